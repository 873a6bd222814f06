"""``import biasamp`` is light: public names load on first use, optional libraries never.

Each check runs in a fresh interpreter, so what the test process imported does not count.
"""

from __future__ import annotations

import importlib
import json
import subprocess
import sys

import pytest

import biasamp
from biasamp._lazy import ERR_NO_ATTRIBUTE, lazy_exports

#: Libraries that ``import biasamp`` must not import (a call imports what it needs).
NOT_AT_IMPORT = (
    "scipy",
    "sklearn",
    "matplotlib",
    "rich",
    "torch",
    "duckdb",
    "dask",
    "pyspark",
    "evaluate",
)

#: The rooms whose public names are loaded on first use.
LAZY_ROOMS = (
    "comparison",
    "counts",
    "engines",
    "generated",
    "inputs",
    "metrics",
    "mitigation",
    "predictability",
    "report",
    "results",
    "text",
    "uncertainty",
)


def _imported_after(code: str) -> list[str]:
    """Top-level packages imported by ``code`` in a fresh interpreter (beyond the startup)."""
    probe = (
        "import sys\n"
        "before = set(sys.modules)\n"
        f"{code}\n"
        "import json\n"
        "print(json.dumps(sorted({m.split('.')[0] for m in set(sys.modules) - before})))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True
    )
    return list(json.loads(done.stdout.strip().splitlines()[-1]))


def test_import_biasamp_imports_no_optional_or_heavy_library() -> None:
    imported = _imported_after("import biasamp")
    assert [name for name in NOT_AT_IMPORT if name in imported] == []
    # nor pandas, numpy or pyarrow: the package face loads nothing numerical
    assert {"numpy", "pandas", "pyarrow"} & set(imported) == set()


def test_import_of_a_room_module_does_not_load_the_room() -> None:
    imported = _imported_after("import biasamp.results._display, biasamp.inputs._collections")
    assert [name for name in NOT_AT_IMPORT if name in imported] == []


def test_a_public_name_loads_what_it_needs() -> None:
    imported = _imported_after("from biasamp import mals")
    assert "scipy" in imported and "pandas" in imported
    assert [name for name in ("matplotlib", "torch", "duckdb", "pyspark") if name in imported] == []


@pytest.mark.parametrize("room", ["biasamp", *(f"biasamp.{r}" for r in LAZY_ROOMS)])
def test_every_public_name_resolves_and_is_listed(room: str) -> None:
    module = importlib.import_module(room)
    assert set(module.__all__) <= set(dir(module))
    for name in module.__all__:
        value = getattr(module, name)
        assert value is getattr(module, name)  # cached after the first access
        if name != "__version__":
            assert value.__doc__, f"{room}.{name}"


def test_rooms_are_attributes_of_the_package() -> None:
    assert biasamp.text.caption_labels is importlib.import_module("biasamp.text").caption_labels
    assert "datasets" in dir(biasamp)


def test_unknown_names_raise_attribute_error() -> None:
    with pytest.raises(AttributeError, match="has no attribute 'not_a_metric'"):
        biasamp.not_a_metric  # noqa: B018
    with pytest.raises(ImportError):
        exec("from biasamp.metrics import not_a_metric", {})
    # a private submodule still imports by name
    namespace: dict[str, object] = {}
    exec("from biasamp.metrics import _mals", namespace)
    assert namespace["_mals"] is sys.modules["biasamp.metrics._mals"]


def test_lazy_exports_reads_each_name_from_its_module() -> None:
    getattr_, dir_ = lazy_exports(
        "biasamp", {"biasamp.metrics": ["mals", "directional"]}, submodules=["text"]
    )
    assert getattr_("mals") is biasamp.metrics.mals
    assert getattr_("text") is sys.modules["biasamp.text"]
    assert {"mals", "directional", "text"} <= set(dir_())
    with pytest.raises(AttributeError) as caught:
        getattr_("nothing")
    assert str(caught.value) == ERR_NO_ATTRIBUTE.format(module="biasamp", name="nothing")


def test_dask_counter_is_registered_without_importing_dask() -> None:
    code = (
        "import sys, biasamp\n"
        "from biasamp.inputs import counter_for\n"
        "counter_for('dask')\n"
        "print('dask' in sys.modules, 'biasamp.engines._dask' in sys.modules)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert done.stdout.split() == ["False", "False"]

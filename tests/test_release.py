"""What a release ships: the licence, the changelog entry of this version, the package data.

The built wheel itself is tested by ``.ci/test_wheel.py`` (in ``.ci/run``); these checks read
the checkout only, so they fail fast when a data file would be left out of the wheel.
"""

from __future__ import annotations

import re
from fnmatch import fnmatch
from pathlib import Path

import pytest

import biasamp

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    tomllib = pytest.importorskip("tomli")

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "biasamp"

pytestmark = pytest.mark.skipif(
    not (ROOT / "pyproject.toml").exists() or not PACKAGE.exists(), reason="not a source checkout"
)


def _pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_licence_file_and_spdx_metadata() -> None:
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License") and "biasamp developers" in text
    project = _pyproject()["project"]
    assert project["license"] == "MIT"
    assert project["license-files"] == ["LICENSE"]
    assert "setuptools>=77" in _pyproject()["build-system"]["requires"]


def test_one_source_of_the_version() -> None:
    config = _pyproject()
    assert "version" not in config["project"] and config["project"]["dynamic"] == ["version"]
    attr = config["tool"]["setuptools"]["dynamic"]["version"]["attr"]
    assert attr == "biasamp._version.__version__"
    assert tuple(int(p) for p in biasamp.__version__.split(".")) > (0, 1, 0)


def test_the_changelog_has_this_version() -> None:
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    versions = re.findall(r"^## \[(\d+\.\d+\.\d+)\] - \d{4}-\d{2}-\d{2}$", text, re.MULTILINE)
    assert versions[0] == biasamp.__version__
    assert "0.1.0" in versions


def test_every_deprecated_spelling_is_in_the_changelog() -> None:
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    source = "\n".join(p.read_text(encoding="utf-8") for p in PACKAGE.rglob("*.py"))
    positional = re.findall(r'positional_keywords\(\s*"(\w+)"', source)
    renamed = re.findall(r'renamed_keyword\(\s*\w+, old="(\w+)"', source)
    assert positional and renamed
    rows = [line for line in text.splitlines() if line.startswith("| `")]
    for function in positional:
        assert any(row.startswith(f"| `{function}(") for row in rows), function
    for old in renamed:
        assert any(f"{old}=" in row for row in rows), old
    # old keys of returned mappings (RenamedKeys): each place that keeps them has a row
    places = re.findall(r'RenamedKeys\((?:[^()]|\([^()]*\))*?where="([^"]+)"', source, re.DOTALL)
    assert {"dbac_both", "the evaluate modules"} <= set(places)
    for place in places:
        assert any(place in row.replace("`", "") for row in rows), place
    # the policy (docs/versioning.md): kept for one minor release after the one that
    # deprecates it, removed with the next (0.1.0 -> 0.3.0, 0.2.0 -> 0.4.0)
    for row in rows:
        cells = [c.strip() for c in row.strip(" |").split("|")]
        deprecated, removed = cells[-2], cells[-1]
        major, minor, _ = (int(p) for p in deprecated.split("."))
        assert removed == f"{major}.{minor + 2}.0", row


def _package_data_patterns() -> dict[str, list[str]]:
    return _pyproject()["tool"]["setuptools"]["package-data"]


def test_package_data_covers_every_data_file() -> None:
    """Every file of src/biasamp that is not a module matches a package-data pattern."""
    patterns = _package_data_patterns()
    missing = []
    for path in PACKAGE.rglob("*"):
        if not path.is_file() or "__pycache__" in path.parts or path.suffix == ".pyc":
            continue
        rel = path.relative_to(PACKAGE.parent)
        in_package = (PACKAGE.parent / rel.parent / "__init__.py").exists()
        if path.suffix == ".py" and in_package:
            continue  # a module of a package: setuptools finds it
        covered = False
        for package, globs in patterns.items():
            base = PACKAGE.parent / package.replace(".", "/")
            if base in path.parents:
                inner = path.relative_to(base).as_posix()
                covered = covered or any(fnmatch(inner, g) for g in globs)
        if not covered:
            missing.append(rel.as_posix())
    assert missing == [], f"add these to [tool.setuptools.package-data]: {missing}"


def test_provenance_states_the_licences() -> None:
    text = (PACKAGE / "datasets" / "data" / "PROVENANCE.md").read_text(encoding="utf-8")
    assert "## Licences" in text
    data = sorted(p.name for p in (PACKAGE / "datasets" / "data").iterdir() if p.suffix != ".md")
    licences = text.split("## Licences", 1)[1]
    for name in data:
        stem = re.sub(r"_(train|val|test)\.csv\.gz$", "", name)
        assert name in licences or stem in licences, name

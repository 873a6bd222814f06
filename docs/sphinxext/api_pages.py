"""Write ``api/index.rst`` from the package itself, so the reference never lags the code.

Every name in ``biasamp.__all__`` gets an autosummary entry (one generated page
each, documented as ``biasamp.<name>``: the name users import), grouped by the
subpackage that defines it; then :mod:`biasamp.datasets` and, when it can be
imported (it needs torch), ``biasamp.torchmetrics``.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from types import ModuleType

# subpackage -> section title, in reading order
SECTIONS = {
    "biasamp.counts": "Count tables",
    "biasamp.metrics": "Co-occurrence metrics",
    "biasamp.predictability": "Predictability metrics",
    "biasamp.text": "Captioning and text-output models",
    "biasamp.generated": "Generated outputs",
    "biasamp.results": "Results",
    "biasamp.uncertainty": "Uncertainty and thresholds",
    "biasamp.mitigation": "Mitigation",
    "biasamp.comparison": "Comparing models",
    "biasamp.hf_evaluate": "Comparing models",
    "biasamp.report": "Reports",
    "biasamp.auditing": "Auditing files",
    "biasamp.engines": "Data larger than memory",
    "biasamp.inputs": "Data larger than memory",
    "biasamp.output": "Data larger than memory",
}
OTHER = "Other"
INTERSECTIONAL = "Intersectional groups and differential fairness"
RETRIEVAL = "Ranked retrieval"
# modules whose names go to a section of their own, whatever their room
MODULE_SECTIONS = {
    "biasamp.inputs._intersect": INTERSECTIONAL,
    "biasamp.inputs._group_sizes": INTERSECTIONAL,
    "biasamp.metrics._differential_fairness": INTERSECTIONAL,
    "biasamp.results._differential_fairness": INTERSECTIONAL,
    "biasamp.metrics._retrieval": RETRIEVAL,
    "biasamp.results._retrieval": RETRIEVAL,
}
# reading order of the sections
TITLES = list(dict.fromkeys(SECTIONS.values()))
TITLES.insert(TITLES.index("Co-occurrence metrics") + 1, INTERSECTIONAL)
TITLES.insert(TITLES.index(INTERSECTIONAL) + 1, RETRIEVAL)
# optional submodules documented as a whole: (module, title, extra it needs)
SUBMODULES = [
    ("biasamp.datasets", "Bundled data sets", None),
    ("biasamp.text", "Captions: parser and word lists", None),
    ("biasamp.torchmetrics", "torchmetrics integration", "torch"),
]

HEADER = """\
API reference
=============

Every public name is importable from the top-level package (``import biasamp``)
and documented here under that name. This page is generated from
``biasamp.__all__`` when the documentation is built (``docs/sphinxext/api_pages.py``).

.. currentmodule:: biasamp
"""


def _section_of(obj: object) -> str:
    module = getattr(obj, "__module__", "") or ""
    if module in MODULE_SECTIONS:
        return MODULE_SECTIONS[module]
    for prefix, title in SECTIONS.items():
        if module == prefix or module.startswith(prefix + "."):
            return title
    return OTHER


def _autosummary(names: list[str]) -> str:
    lines = ["", ".. autosummary::", "   :toctree: generated/", "   :nosignatures:", ""]
    lines += [f"   {name}" for name in names]
    return "\n".join(lines) + "\n"


def _underline(title: str, char: str) -> str:
    return f"\n{title}\n{char * len(title)}\n"


def _optional(name: str) -> ModuleType | None:
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


def api_index() -> str:
    """The reST text of the API index page."""
    import biasamp

    groups: dict[str, list[str]] = {}
    for name in biasamp.__all__:
        if name.startswith("__"):
            continue
        groups.setdefault(_section_of(getattr(biasamp, name)), []).append(name)
    titles = [*TITLES, OTHER]
    text = HEADER
    for title in titles:
        if title in groups:
            text += _underline(title, "-") + _autosummary(sorted(groups[title], key=str.lower))
    for module_name, title, _extra in SUBMODULES:
        module = _optional(module_name)
        if module is None:
            continue
        text += _underline(f"{title}: ``{module_name}``", "-")
        text += f"\n.. automodule:: {module_name}\n   :no-members:\n\n"
        text += f".. currentmodule:: {module_name}\n"
        # names the top-level package exports are documented there once
        names = [n for n in getattr(module, "__all__", []) if n not in biasamp.__all__]
        text += _autosummary(names)
    return text


def write_api_index(docs_dir: Path) -> Path:
    """Write ``docs/api/index.rst`` (only when its text changed)."""
    path = docs_dir / "api" / "index.rst"
    path.parent.mkdir(exist_ok=True)
    text = api_index()
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")
    return path

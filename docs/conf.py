"""Sphinx configuration of the biasamp documentation.

Build (from the repository root)::

    python -m sphinx -W -b html docs docs/_build/html

``-W`` turns every warning (a broken link or cross-reference, a malformed
docstring, a failing gallery example) into an error. The build works offline:
intersphinx links to numpy, pandas, scikit-learn and matplotlib are resolved only
when ``BIASAMP_DOCS_INTERSPHINX=1`` is set (their inventories are downloaded then).
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(DOCS / "sphinxext"))
if (ROOT / "src" / "biasamp").is_dir():  # document this checkout, not another install
    sys.path.insert(0, str(ROOT / "src"))

from api_pages import write_api_index  # noqa: E402

import biasamp  # noqa: E402

project = "biasamp"
author = "the biasamp developers"
copyright = "the biasamp developers"  # noqa: A001
release = biasamp.__version__
version = release

extensions = [
    "myst_parser",
    "numpydoc",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.intersphinx",
    "sphinx.ext.mathjax",
    "sphinx_gallery.gen_gallery",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
templates_path = ["_templates"]
exclude_patterns = [
    "_build",
    "sphinxext",
    "gallery/[0-9]*.md",  # tables the example scripts write (data files, not pages)
    "auto_examples/*.ipynb",
    "auto_examples/*.py",
    "auto_examples/*.zip",
    "auto_examples/*.md5",
    "auto_examples/*.json",
]

# Docstrings write the number of groups, tasks, ... as |G|, |T|, |A|, |M|; reST would read
# those as substitutions, so each one is defined as itself.
rst_prolog = "\n".join(
    f".. |{letter}| replace:: \\|{letter}\\|" for letter in ("A", "G", "M", "S", "T")
)

# Markdown pages (MyST)
myst_enable_extensions = ["dollarmath", "colon_fence"]
myst_heading_anchors = 3

# API reference: one page per public name, written under the name users import
write_api_index(DOCS)
autosummary_generate = True
autodoc_typehints = "none"  # numpydoc "Parameters" give the types; avoids private paths
autodoc_member_order = "bysource"
autodoc_preserve_defaults = True  # show defaults as written (CountTable, not its private path)
autodoc_default_options = {"inherited-members": False}
# A member without its own docstring is not given its base class's: MitigationComparison
# is a DataFrame, and pandas' docstrings are written for pandas' Sphinx setup.
autodoc_inherit_docstrings = False
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_validation_checks: set[str] = set()

# intersphinx: offline by default (no inventory download); BIASAMP_DOCS_INTERSPHINX=1 enables
intersphinx_mapping: dict[str, tuple[str, str | None]] = {}
if os.environ.get("BIASAMP_DOCS_INTERSPHINX") == "1":
    intersphinx_mapping = {
        "python": ("https://docs.python.org/3", None),
        "numpy": ("https://numpy.org/doc/stable/", None),
        "pandas": ("https://pandas.pydata.org/docs/", None),
        "sklearn": ("https://scikit-learn.org/stable/", None),
        "matplotlib": ("https://matplotlib.org/stable/", None),
        "scipy": ("https://docs.scipy.org/doc/scipy/", None),
    }

# Gallery: every numbered script in examples/ runs (about 20 s in all on 2 cores: the
# examples use bundled or small synthetic data) and shows the figures it saves.
os.environ["BIASAMP_GALLERY_OUTPUT"] = tempfile.mkdtemp(prefix="biasamp-gallery-")
sphinx_gallery_conf = {
    "examples_dirs": str(ROOT / "examples"),
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/\d\d_",
    "ignore_pattern": r"(__init__|_gallery)\.py",
    "image_scrapers": ("gallery_files",),
    "abort_on_example_error": True,
    "download_all_examples": False,
    "remove_config_comments": True,
    "within_subsection_order": "FileNameSortKey",
    "matplotlib_animations": False,
    "min_reported_time": 1,
    "write_computation_times": False,
}

# HTML
html_theme = "pydata_sphinx_theme"
html_title = f"biasamp {release}"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "navbar_align": "left",
}
html_static_path: list[str] = []
html_show_sourcelink = False

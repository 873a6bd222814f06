"""The documentation site builds with warnings as errors (the README's build command).

``python -m sphinx -W -b html docs <tmp>``: a broken link or cross-reference, a
malformed docstring, an API page that fails to import or a failing gallery example
fails this test. The build runs offline (no intersphinx download). It builds a
temporary copy of ``docs/`` and ``examples/``, so the checkout gains no generated file.

The gallery here executes one example (:data:`EXECUTED`) and renders the others
from their source: every example already runs end to end, asserting its numbers
and its figure file, in ``tests/examples/test_examples.py`` (and
``tests/text/test_gallery_example.py``), so executing all of them again here
doubled the cost of this build (about 40 s of its 70 s) without testing anything
new. The one executed example proves the gallery's scraper puts an example's
figures on its page; the README's build command executes them all.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

for _module in ("sphinx", "myst_parser", "numpydoc", "pydata_sphinx_theme", "sphinx_gallery"):
    pytest.importorskip(_module)


#: the gallery example this build executes (a quick one; see the module docstring)
EXECUTED = "01_painting_fairness_metrics"

#: what the build writes next to its sources (API stubs, the executed gallery, a build)
GENERATED = ("_build", "api", "auto_examples")


def source_copy(target: Path) -> Path:
    """A copy of ``docs/`` and ``examples/`` (and a link to ``src/``) to build from.

    Sphinx writes the API stubs (``api/``) and sphinx-gallery the executed
    examples (``auto_examples/``) beside the sources; building a copy keeps the
    checkout untouched.
    """
    shutil.copytree(ROOT / "docs", target / "docs", ignore=shutil.ignore_patterns(*GENERATED))
    shutil.copytree(ROOT / "examples", target / "examples")
    (target / "src").symlink_to(ROOT / "src", target_is_directory=True)
    return target


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    sources = source_copy(tmp_path_factory.mktemp("sources"))
    command = [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html"]
    command += ["-D", f"sphinx_gallery_conf.filename_pattern=/{EXECUTED}"]
    command += ["-d", str(out / "doctrees"), "docs", str(out / "html")]
    done = subprocess.run(command, cwd=sources, capture_output=True, text=True, timeout=1200)
    assert done.returncode == 0, f"sphinx -W failed:\n{done.stdout}\n{done.stderr}"
    return out / "html"


def test_every_public_name_has_a_page(site: Path) -> None:
    import biasamp
    import biasamp.datasets

    pages = site / "api" / "generated"
    names = [n for n in biasamp.__all__ if not n.startswith("__")]
    missing = [n for n in names if not (pages / f"biasamp.{n}.html").exists()]
    missing += [
        f"datasets.{n}"
        for n in biasamp.datasets.__all__
        if not (pages / f"biasamp.datasets.{n}.html").exists()
    ]
    assert missing == []
    # documented under the name users import, not a private module path
    text = (pages / "biasamp.directional.html").read_text(encoding="utf-8")
    assert 'id="biasamp.directional"' in text
    private = re.compile(r"biasamp(?:\.[a-z]\w*)*\._[a-z]\w*")
    leaks = {p.name: private.findall(p.read_text(encoding="utf-8")) for p in pages.glob("*.html")}
    assert {name: found for name, found in leaks.items() if found} == {}
    assert "metrics._directional" not in text


def test_gallery_pages_show_their_figures(site: Path) -> None:
    examples = sorted(p.stem for p in (ROOT / "examples").glob("[0-9][0-9]_*.py"))
    assert len(examples) >= 9
    assert EXECUTED in examples
    for stem in examples:
        page = (site / "auto_examples" / f"{stem}.html").read_text(encoding="utf-8")
        # every example is on its page with its code and a thumbnail in the gallery
        assert '<span class="nf">main</span>' in page, stem
        assert (site / "_images" / f"sphx_glr_{stem}_thumb.png").exists(), stem
    # the executed one shows the figure it wrote (the gallery_files scraper)
    page = (site / "auto_examples" / f"{EXECUTED}.html").read_text(encoding="utf-8")
    assert f"sphx_glr_{EXECUTED}_001.png" in page
    assert (site / "_images" / f"sphx_glr_{EXECUTED}_001.png").stat().st_size > 5_000
    others = [s for s in examples if s != EXECUTED]
    assert not any((site / "_images" / f"sphx_glr_{s}_001.png").exists() for s in others)


def test_pages_are_in_the_site(site: Path) -> None:
    for page in ("index", "getting_started", "guide", "metrics/mals", "metrics/leakage"):
        assert (site / f"{page}.html").exists(), page

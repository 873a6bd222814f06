"""The documentation site builds with warnings as errors (the README's build command).

``python -m sphinx -W -b html docs <tmp>``: a broken link or cross-reference, a
malformed docstring, an API page that fails to import or a failing gallery example
fails this test. The build runs offline (no intersphinx download). The gallery
executes every example (about 20 s: bundled or small synthetic data). It builds a
temporary copy of ``docs/`` and ``examples/``, so the checkout gains no generated file.
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
    for stem in examples:
        page = (site / "auto_examples" / f"{stem}.html").read_text(encoding="utf-8")
        assert f"sphx_glr_{stem}_001.png" in page, stem
        assert (site / "_images" / f"sphx_glr_{stem}_001.png").stat().st_size > 5_000


def test_pages_are_in_the_site(site: Path) -> None:
    for page in ("index", "getting_started", "guide", "metrics/mals", "metrics/leakage"):
        assert (site / f"{page}.html").exists(), page

"""sphinx-gallery image scraper for the biasamp examples.

The example scripts save their figures with ``savefig`` into the directory
``_gallery.output_dir()`` returns (``$BIASAMP_GALLERY_OUTPUT`` during a
documentation build) and close them, so the standard matplotlib scraper would
find no open figure. This scraper picks up every PNG file written or rewritten
there since the previous code block, copies it to the gallery's image path and
returns the reST that shows it.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

OUTPUT_ENV = "BIASAMP_GALLERY_OUTPUT"


class GalleryFileScraper:
    """Show the PNG files an example wrote, in name order."""

    def __init__(self) -> None:
        self._seen: dict[str, int] = {}

    def __repr__(self) -> str:  # stable across builds (sphinx compares configs by repr)
        return "GalleryFileScraper()"

    def __call__(self, block: Any, block_vars: dict[str, Any], gallery_conf: dict[str, Any]) -> str:
        from sphinx_gallery.scrapers import figure_rst

        folder = os.environ.get(OUTPUT_ENV)
        if not folder:
            return ""
        fresh = []
        for png in sorted(Path(folder).glob("*.png")):
            stamp = png.stat().st_mtime_ns
            if self._seen.get(png.name) != stamp:
                self._seen[png.name] = stamp
                fresh.append(png)
        images = []
        for png, target in zip(fresh, block_vars["image_path_iterator"], strict=False):
            shutil.copyfile(png, target)
            images.append(target)
        return figure_rst(images, gallery_conf["src_dir"])


_SCRAPER = GalleryFileScraper()


def _get_sg_image_scraper() -> GalleryFileScraper:
    """The hook sphinx-gallery calls for a scraper named by its module."""
    return _SCRAPER

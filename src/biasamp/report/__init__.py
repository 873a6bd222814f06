"""The self-contained HTML report (inline figures, interactive pair tables, a strict CSP),
and the page comparing models."""

from __future__ import annotations

from typing import TYPE_CHECKING

from biasamp._lazy import lazy_exports

if TYPE_CHECKING:
    from biasamp.report._compare_html import render_comparison, write_comparison
    from biasamp.report._html import render_report, write_report

__all__ = ["render_comparison", "render_report", "write_comparison", "write_report"]

if not TYPE_CHECKING:
    __getattr__, __dir__ = lazy_exports(
        __name__,
        {
            "biasamp.report._compare_html": ("render_comparison", "write_comparison"),
            "biasamp.report._html": ("render_report", "write_report"),
        },
    )

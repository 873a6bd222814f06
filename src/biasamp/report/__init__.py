"""The self-contained HTML report (inline figures, interactive pair tables, a strict CSP),
and the page comparing models."""

from biasamp.report._compare_html import render_comparison, write_comparison
from biasamp.report._html import render_report, write_report

__all__ = ["render_comparison", "render_report", "write_comparison", "write_report"]

"""The self-contained HTML report (inline figures, no script, a strict CSP)."""

from biasamp.report._html import render_report, write_report

__all__ = ["render_report", "write_report"]

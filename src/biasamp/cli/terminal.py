"""Terminal output of an audit (rich): each metric with its interval, n, pairs and top pairs.

Output that is not a terminal is never cut (:func:`biasamp.cli.console.new_console`); in
a terminal, a column too narrow for its text folds it onto the next line instead of
ending it with ``…``.

Label and column names are untrusted: they are printed as :class:`rich.text.Text`,
never interpreted as rich markup, with their invisible and control characters
(bidirectional overrides, zero-width characters, ...) escaped visibly (``\\u202e``).
"""

from __future__ import annotations

from typing import Any, cast

from rich.console import Console, JustifyMethod
from rich.table import Table
from rich.text import Text

from biasamp.results._base import group_sizes_lines, pair_trust_lines
from biasamp.results._display import display_text
from biasamp.results._significance import chance_text

from .audit import Audit

__all__ = ["print_audit"]

_PAIR_COLUMNS = (  # (column of by_pair, header, format)
    ("b_train", "b* train", "{:.3f}"),
    ("b_pred", "b~ pred", "{:.3f}"),
    ("p_true", "P true", "{:.3f}"),
    ("p_pred", "P pred", "{:.3f}"),
    ("delta", "delta", "{:+.3f}"),
    ("ci_low", "delta low", "{:+.3f}"),
    ("ci_high", "delta high", "{:+.3f}"),
    ("y", "y", "{:+d}"),
    ("n_pred", "n pred", "{:g}"),
    ("support", "rows", "{:g}"),
)

_SUMMARY_COLUMNS: tuple[tuple[str, JustifyMethod], ...] = (  # (header, justification)
    ("metric", "left"),
    ("value", "right"),
    ("interval", "right"),
    ("n", "right"),
    ("n train", "right"),
    ("pairs", "right"),
    ("empty pairs", "right"),
)


def _fmt(value: Any, spec: str = "{:+.4f}") -> str:
    try:
        if value != value:  # NaN
            return "n/a"
        return spec.format(value)
    except (TypeError, ValueError):
        return str(value)


def _interval(result: Any) -> str:
    ci = getattr(result, "ci", None)
    if ci is None:
        return "-"
    return f"[{_fmt(ci[0])}, {_fmt(ci[1])}] ({result.ci_level:.0%})"


def chance_line(result: Any) -> str:
    """The swap test in words, with what the null gives (empty when it did not run)."""
    p = getattr(result, "p_value", None)
    null = getattr(result, "null", None)
    if p is None or null is None:
        return ""
    return (
        f"{chance_text(p)} (null mean {_fmt(null.mean)}, "
        f"95% of {null.n_perm} swapped data sets in "
        f"[{_fmt(null.quantiles.get('0.025'))}, {_fmt(null.quantiles.get('0.975'))}])"
    )


def _summary_table(audit: Audit) -> Table:
    table = Table(title="Bias amplification", title_justify="left")
    for name, justify in _SUMMARY_COLUMNS:
        table.add_column(name, justify=justify, overflow="fold")
    for key, result in audit.results.items():
        table.add_row(
            Text(display_text(f"{key} ({result.name})")),
            _fmt(result.value),
            _interval(result),
            f"{result.n:g}",
            "-" if result.n_train is None else f"{result.n_train:g}",
            str(result.n_pairs),
            str(result.n_empty),
        )
    return table


def _pairs_table(key: str, result: Any, k: int) -> Table:
    top = result.top(k)
    table = Table(
        title=Text(display_text(f"Top {min(k, len(top))} pairs of {key}")), title_justify="left"
    )
    table.add_column("group", overflow="fold")
    table.add_column("task", overflow="fold")
    shown = [(c, h, f) for c, h, f in _PAIR_COLUMNS if c in top.columns]
    for _, header, _ in shown:
        table.add_column(header, justify="right", overflow="fold")
    table.add_column("contribution", justify="right", overflow="fold")
    flagged = "fragile" in top.columns
    if flagged:
        table.add_column("fragile", overflow="fold")
    for row in top.to_dict(orient="records"):
        table.add_row(
            Text(display_text(row["group"])),
            Text(display_text(row["task"])),
            *(_fmt(row[c], f) for c, _, f in shown),
            _fmt(row["contribution"], "{:+.5f}"),
            *((Text("fragile", style="yellow") if row["fragile"] else "",) if flagged else ()),
        )
    return table


def print_audit(console: Console, audit: Audit, *, top: int = 10) -> None:
    """Print the audit: summary, per-metric top pairs, skipped metrics, warnings, gates."""
    data = audit.data
    files = ", ".join(f"{f.role}={f.path} ({f.n_rows} rows)" for f in data.files)
    console.print(Text(display_text(f"inputs: {files}")))
    console.print(
        Text(
            f"{len(data.group_names)} groups, {len(data.task_names)} tasks"
            + (f"; thresholds: {len(data.thresholds)} labels" if data.thresholds else "")
        )
    )
    engine = audit.settings.get("engine")
    if engine:
        how = "streamed counts" if audit.settings.get("streamed") else "rows read in memory"
        console.print(Text(f"engine: {engine} ({how})", style="dim"))
    console.print(_summary_table(audit))
    for key, result in audit.results.items():
        extras = {
            k: (f"{v:.4g}" if isinstance(v, float) else v)
            for k, v in result.extras.items()
            if isinstance(v, (int, float, str))
        }
        if extras:
            console.print(
                Text(display_text(f"{key}: " + ", ".join(f"{k}={v}" for k, v in extras.items())))
            )
        chance = chance_line(result)
        if chance:
            console.print(Text(display_text(f"{key}: {chance}")))
        for line in group_sizes_lines(result):
            console.print(Text(display_text(f"{key}:{line.rstrip()[1:]}"), style="dim"))
        for line in pair_trust_lines(result, k=top):
            console.print(Text(display_text(f"{key}:{line.rstrip()[1:]}")))
        if top > 0 and len(result.by_pair):
            console.print(_pairs_table(key, result, top))
    if audit.by_size is not None:
        sizes = Table(title="Amplification by combination size", title_justify="left")
        for name in ("metric", "size", "combinations", "pairs", "value"):
            sizes.add_column(name, justify="left" if name == "metric" else "right", overflow="fold")
        for row in audit.by_size.itertuples(index=False):
            sizes.add_row(
                display_text(cast(str, row.metric)),  # by_size's metric column: metric keys
                str(row.size),
                str(row.n_combinations),
                str(row.n_pairs),
                _fmt(row.value),
            )
        console.print(sizes)
    for key, sweep in (audit.sweep or {}).items():
        console.print(
            Text(
                display_text(
                    f"{key}: mean over the threshold sweep {_fmt(sweep.mean)} "
                    f"({len(sweep.thresholds)} thresholds)"
                )
            )
        )
    for key, why in audit.skipped.items():
        console.print(Text(display_text(f"skipped {key}: {why}"), style="dim"))
    for message in audit.warnings:
        console.print(Text("warning: ", style="yellow") + Text(display_text(message, keep="\n")))
    for gate in audit.gates:
        style = "bold red" if gate.failed else "green"
        verdict = "FAILED" if gate.failed else "passed"
        console.print(
            Text(
                display_text(
                    f"gate {gate.key} <= {gate.bound:g}: {verdict} (value {_fmt(gate.value)})"
                ),
                style=style,
            )
        )

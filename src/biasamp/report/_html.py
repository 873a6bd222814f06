"""A self-contained HTML report of bias-amplification results.

One HTML file with no external request: no CDN, no web font, one inline script. The
figures are drawn with matplotlib's non-interactive backends (no pyplot, so
the caller's backend is untouched) and embedded as ``data:`` URIs in ``<img>``
elements (SVG by default, PNG on request); an SVG inside ``<img>`` can run no
script and load nothing. A Content-Security-Policy meta tag forbids every
request but inline images and styles, as a second line of defence.

Label names, column names, file paths and settings are untrusted text: every
one has its invisible and control characters escaped visibly (a bidirectional
override shows as ``\\u202e`` and reverses nothing) and is HTML-escaped; in
figures ``$`` is escaped too, so matplotlib never parses mathtext.

Contents: a summary table (value, interval, n, pairs, gates), warnings,
training vs predicted bias per task with the margin band (Zhao et al. 2017,
figures 2 and 3; the farthest points that fit are named, every point outside the
band is in a table), then per metric: the registry's sentences on what its value
means and which sign is amplification, and its paper; the size of each group per
split (with the text of each ``SmallGroupWarning`` and the intersections that never
occur); the group x task delta heatmap, the top pairs (bars coloured by the sign of
their contribution, with interval whiskers) and the pair table, each column's
meaning in its heading's tooltip and a legend. Every result type renders:
predictability and LIC results show both attackers' quality, differential fairness
its epsilons and rates, RBA its before/after table, and a captioning model
(:class:`~biasamp.text.CaptionBiasResult`) how its captions were read beside its
metrics, and the generated-output results (:mod:`biasamp.generated`) their statistics,
figure, per-concept or per-step table and the concepts left out. Then the threshold sweep (when given), amplification by combination size
(when given), and the inputs and settings used.
"""

from __future__ import annotations

import base64
import html
import io
import math
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from os import PathLike, fspath
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from biasamp.inputs._keys import key_names
from biasamp.metrics._group_sizes import (
    checked_splits,
    missing_messages,
    reference_split,
    size_messages,
)
from biasamp.output._targets import check_written_output, input_files_of
from biasamp.report._explain import column_meanings, result_card
from biasamp.report._tables import (
    PAGE_SIZE,
    SCRIPT,
    SCRIPT_HASH,
    column_legend,
    interactive_table,
)
from biasamp.results import _plotting
from biasamp.results._base import pair_trust_lines
from biasamp.results._differential_fairness import driver_words
from biasamp.results._display import display_text
from biasamp.results._intervals import interval_words
from biasamp.results._significance import chance_text

__all__ = ["CSP", "render_report", "write_report"]

ERR_IMAGE_FORMAT = "image_format: expected 'svg' or 'png', got {got!r}."
ERR_NO_RESULTS = "results: the report needs at least one result."
ERR_RESULTS_TYPE = (
    "results: expected a mapping of name -> result or an object with a .results mapping "
    "(an AuditResult, a CaptionBiasResult), got {got}."
)
ERR_RESULT_VALUE = "results[{key!r}]: expected a biasamp result (value, ci, n), got {got}."
ERR_GATE = "gates: expected objects with key, bound and failed (--fail-above outcomes), got {got}."

#: The Content-Security-Policy of the report: inline images and styles, the one table
#: script (allowed by its SHA-256 hash; no other script, no eval), Trusted Types required
#: (no string becomes markup or code), and no request of any kind.
CSP = (
    "default-src 'none'; img-src data:; style-src 'unsafe-inline'; "
    f"script-src {SCRIPT_HASH}; require-trusted-types-for 'script'; trusted-types 'none'; "
    "base-uri 'none'; form-action 'none'"
)

_STYLE = """
body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;margin:2rem auto;
max-width:1100px;padding:0 1rem;color:#222;line-height:1.45}
h1{font-size:1.6rem;margin-bottom:.2rem}h2{font-size:1.25rem;margin-top:2.2rem;
border-bottom:1px solid #ddd;padding-bottom:.2rem}h3{font-size:1.05rem}
table{border-collapse:collapse;margin:.6rem 0;font-size:.88rem}
th,td{border:1px solid #ddd;padding:.25rem .5rem;text-align:right;vertical-align:top}
th{background:#f4f4f4}td.l,th.l{text-align:left}td.mono{font-family:monospace;font-size:.8rem;
word-break:break-all;text-align:left}
figure{margin:1rem 0}figure img{max-width:100%;height:auto;border:1px solid #eee}
figcaption{font-size:.85rem;color:#555}.fail{color:#b2182b;font-weight:bold}
.pass{color:#1a9850}.warn{color:#8a6d3b}.muted{color:#777;font-size:.85rem}
th button.sort{all:unset;cursor:pointer}th button.sort:disabled{cursor:default}
th[aria-sort=descending] button::after{content:" \\25BC"}
th[aria-sort=ascending] button::after{content:" \\25B2"}
.controls{margin:.4rem 0;font-size:.85rem}.controls label{margin-right:.6rem}
.meaning{margin:.3rem 0}.sign{margin:.3rem 0;font-style:italic}
dl.legend{font-size:.8rem;color:#444;display:grid;grid-template-columns:max-content auto;
gap:.1rem .8rem;margin:.3rem 0 1rem}dl.legend dt{font-family:monospace}dl.legend dd{margin:0}
th[title]{text-decoration:underline dotted;cursor:help}
"""


def _e(value: Any) -> str:
    """Any value as HTML text: invisible and control characters (bidirectional overrides,
    zero-width characters, carriage returns, ...) escaped visibly (``\\u202e``), then
    HTML-escaped, quotes included."""
    return html.escape(display_text(value), quote=True)


def html_page(title: str, body: Sequence[str]) -> str:
    """A whole HTML document: ``title`` (escaped here), the report's CSP and style, and
    ``body``'s parts (already HTML)."""
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{_e(CSP)}">\n'
        '<meta name="referrer" content="no-referrer">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{_e(title)}</title>\n<style>{_STYLE}</style>\n</head>\n<body>\n"
        + "\n".join(body)
        + "\n</body>\n</html>\n"
    )


def _num(value: Any, spec: str = "{:+.4f}") -> str:
    if value is None:
        return "n/a"
    try:
        if isinstance(value, float) and not math.isfinite(value):
            return "n/a"
        return spec.format(value)
    except (TypeError, ValueError):
        return _e(value)


def _figure_html(fig: Any, *, alt: str, caption: str, image_format: str) -> str:
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        # a label with a control or rare character has no glyph: drawn as a box, not an error
        warnings.filterwarnings("ignore", message=r"Glyph \d+ .*missing from", category=UserWarning)
        if image_format == "svg":
            fig.savefig(buffer, format="svg", bbox_inches="tight", metadata={"Date": None})
            mime = "image/svg+xml"
        else:
            fig.savefig(
                buffer, format="png", dpi=110, bbox_inches="tight", metadata={"Software": None}
            )
            mime = "image/png"
    data = base64.b64encode(buffer.getvalue()).decode("ascii")
    return (
        f'<figure><img class="figure" alt="{_e(alt)}" src="data:{mime};base64,{data}">'
        f"<figcaption>{_e(caption)}</figcaption></figure>"
    )


def _new_figure(width: float, height: float, ncols: int = 1) -> tuple[Any, Any]:
    _plotting.require_matplotlib()
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), layout="constrained")
    axes = fig.subplots(1, ncols)
    return fig, axes


def _table(headers: Sequence[str], rows: Iterable[Sequence[str]], left: int = 1) -> str:
    """An HTML table; ``rows`` cells must already be escaped. The first ``left`` columns are
    left-aligned."""
    head = "".join(
        f'<th class="{"l" if i < left else ""}">{_e(h)}</th>' for i, h in enumerate(headers)
    )
    body = "".join(
        "<tr>"
        + "".join(f'<td class="{"l" if i < left else ""}">{c}</td>' for i, c in enumerate(row))
        + "</tr>"
        for row in rows
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _interval(result: Any) -> str:
    ci = getattr(result, "ci", None)
    if ci is None:
        return "-"
    return f"[{_num(ci[0])}, {_num(ci[1])}] ({_num(result.ci_level, '{:.0%}')})"


def _chance(result: Any) -> str:
    """The swap test (or random rankings) in words, when it ran: the p-value and what
    the null gives on average."""
    p = getattr(result, "p_value", None)
    null = getattr(result, "null", None)
    if p is None or null is None:
        return ""
    what = (
        "rankings drawn at random from the same pool"
        if null.method == "random-ranking"
        else "data sets with each row's labels and outputs swapped at random"
    )
    low, high = null.quantiles.get("0.025"), null.quantiles.get("0.975")
    spread = "" if low is None or high is None else f"; 95% of them in [{_num(low)}, {_num(high)}]"
    return (
        f"<p class='chance'><b>{_e(chance_text(p))}</b> ({null.n_perm} {what} give "
        f"{_num(null.mean)} on average{spread}).</p>"
    )


def _is_container(value: Any) -> bool:
    """A result that holds results (an ``AuditResult``, a ``CaptionBiasResult``)."""
    return isinstance(getattr(value, "results", None), Mapping)


def _flatten(results: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """Every metric result with the name it is shown under (a container's results as
    ``"{container} {metric}"``)."""
    leaves: list[tuple[str, Any]] = []
    for key, result in results.items():
        if _is_container(result):
            leaves += _flatten({f"{key} {k}": r for k, r in result.results.items()})
        else:
            leaves.append((str(key), result))
    return leaves


def _headline(result: Any) -> Any:
    """A result's value (RBA: BiasAmp_MALS after the calibration)."""
    if hasattr(result, "value"):
        return result.value
    after = getattr(result, "mals_after", None)
    return getattr(after, "value", None)


def _title(result: Any, key: str) -> str:
    """The display title of a result: its own name, else its registry card's title."""
    name = getattr(result, "name", None)
    if isinstance(name, str):
        return name
    if hasattr(result, "mals_after"):
        return "RBA: BiasAmp_MALS after calibration"
    card = result_card(result, key)
    return card.title if card is not None else type(result).__name__


def _count(result: Any, name: str, spec: str) -> str:
    value = getattr(result, name, None)
    return "-" if value is None else _num(value, spec)


def _summary(leaves: Sequence[tuple[str, Any]], gates: Sequence[Any]) -> str:
    by_key = {g.key: g for g in gates}
    rows = []
    for key, result in leaves:
        gate = by_key.get(key)
        if gate is None:
            verdict = "-"
        else:
            cls = "fail" if gate.failed else "pass"
            word = "exceeded" if gate.failed else "passed"
            verdict = f'<span class="{cls}">{word} (bound {_num(gate.bound, "{:g}")})</span>'
        rows.append(
            [
                f"{_e(key)}<br><span class='muted'>{_e(_title(result, key))}</span>",
                _num(_headline(result)),
                _interval(result),
                _count(result, "n", "{:g}"),
                _count(result, "n_train", "{:g}"),
                _count(result, "n_pairs", "{:d}"),
                _count(result, "n_empty", "{:d}"),
                verdict,
            ]
        )
    return _table(
        ["metric", "value", "interval", "n", "n train", "pairs", "empty pairs", "gate"], rows
    )


#: Groups listed in a metric's group-size table (the smallest first).
MAX_SIZE_ROWS = 50


def _group_sizes_section(result: Any) -> str:
    """The size of each group per split (smallest first), the text of each
    :class:`SmallGroupWarning` the sizes give and the intersections that never occur;
    empty when the result has no sizes (saved before they were recorded)."""
    sizes = getattr(result, "group_sizes", None)
    if sizes is None or not len(sizes):
        return ""
    limit = getattr(result, "min_group_size", None)
    parts = ["<h4>Group sizes</h4>"]
    order = sizes.where(sizes > 0).min(axis=1).sort_values(kind="stable").index
    shown = sizes.loc[order[:MAX_SIZE_ROWS]]

    def cell(value: float) -> str:
        text = _num(value, "{:g}")
        if limit is not None and 0 < value < limit:
            return f'<span class="warn">{text}</span>'
        return text if value > 0 else '<span class="muted">0</span>'

    checked = checked_splits(list(sizes.columns))
    rows = [
        [
            _e(g),
            *(
                cell(float(v)) if split in checked else _num(float(v), "{:g}")
                for split, v in zip(sizes.columns, row, strict=True)
            ),
        ]
        for g, row in zip(shown.index, shown.to_numpy(), strict=True)
    ]
    parts.append(_table(["group", *(str(c) for c in sizes.columns)], rows))
    notes = []
    if len(sizes) > MAX_SIZE_ROWS:
        notes.append(f"{len(sizes) - MAX_SIZE_ROWS} larger group(s) not listed.")
    notes.append(
        "Rows per group and split (the sum of sample_weight when weights were given); "
        + (
            f"below min_group_size={limit:g} in a checked split (the ground truth): warned."
            if limit is not None
            else "not checked."
        )
    )
    parts.append(f'<p class="muted">{_e(" ".join(notes))}</p>')
    messages = size_messages(sizes, limit)
    if messages:
        parts.append(
            '<ul class="small-groups">'
            + "".join(f'<li class="warn">SmallGroupWarning: {_e(m)}</li>' for m in messages)
            + "</ul>"
        )
    never = getattr(result, "never_occurring", None)
    if never is not None and len(never):
        labels = [" x ".join(str(v) for v in row) for row in never.head(20).to_numpy()]
        more = f", ... ({len(never)} in all)" if len(never) > 20 else ""
        parts.append(
            f'<p class="muted">{len(never)} intersection(s) never occur '
            f"({_e(' x '.join(str(c) for c in never.columns))}): "
            f"{_e(', '.join(labels) + more)}</p>"
        )
    return "\n".join(parts)


#: Queries listed in a retrieval result's by-query table (the largest MaxSkew@k first).
MAX_QUERY_ROWS = 100


def _retrieval_section(key: str, result: Any, *, image_format: str) -> str:
    """A :class:`RetrievalBiasResult`: the value with its interval, mean NDKL and MinSkew@k,
    the reference and pool shares, the Skew@k and NDKL figures and the by-query table."""
    k = result.k
    parts = [
        f"<h3>{_e(key)}: {_e(result.name)} = {_num(result.value)}</h3>",
        _explanation(result_card(result, key)),
        _chance(result),
    ]
    ndkl_ci = getattr(result, "ndkl_ci", None)
    rows = [
        [f"mean MaxSkew@{k}", _num(result.value), _interval(result)],
        [
            f"mean NDKL@{k}",
            _num(result.mean_ndkl, "{:.4f}"),
            "-" if ndkl_ci is None else f"[{_num(ndkl_ci[0])}, {_num(ndkl_ci[1])}]",
        ],
        [
            f"mean MinSkew@{k}",
            "-inf" if result.mean_min_skew == -np.inf else _num(result.mean_min_skew),
            "-",
        ],
        ["queries", _num(result.n, "{:d}"), "-"],
        ["items", _num(result.n_items, "{:d}"), "-"],
    ]
    parts.append(_table(["statistic", "value", "interval"], rows))
    shares = [
        [_e(display_text(g)), _num(float(r), "{:.4f}"), _num(float(p), "{:.4f}")]
        for g, r, p in zip(
            result.reference_shares.index,
            result.reference_shares.to_numpy(),
            result.pool_shares.to_numpy(),
            strict=True,
        )
    ]
    parts.append(
        f"<h4>Groups (reference: {_e(result.reference)})</h4>"
        + _table(["group", "reference share", "pool share"], shares)
    )
    fig, axes = _new_figure(10.0, 3.8, ncols=2)
    result.plot("skew", ax=axes[0])
    result.plot("ndkl", ax=axes[1])
    parts.append(
        _figure_html(
            fig,
            alt=f"{key}: Skew@{k} per group and NDKL per query",
            caption=f"Left: Skew@{k} of each group over the queries (ln of its top-{k} share "
            "over its reference share; queries that miss a group are counted under it). "
            f"Right: NDKL@{k} per query.",
            image_format=image_format,
        )
    )
    frame = result.by_query
    order = np.argsort(-frame["max_skew"].to_numpy(dtype=np.float64), kind="stable")
    shown = frame.iloc[order[:MAX_QUERY_ROWS]]
    columns = list(shown.columns)

    def cell(column: str, value: Any) -> str:
        if column.startswith("count_"):
            return _num(int(value), "{:d}")
        return "-inf" if value == -np.inf else _num(float(value))

    body = [
        [_e(display_text(q))] + [cell(c, v) for c, v in zip(columns, row, strict=True)]
        for q, row in zip(shown.index, shown.itertuples(index=False), strict=True)
    ]
    note = (
        f"<p class='muted'>The {len(shown)} queries with the largest MaxSkew@{k}"
        + ("" if len(shown) == len(frame) else f" of {len(frame)}")
        + ".</p>"
    )
    parts.append("<h4>By query</h4>" + note + _table(["query", *columns], body))
    return "\n".join(parts)


def _explanation(card: Any, *, lead: str = "") -> str:
    """The registry card's sentences on what the value means and which sign is
    amplification, and its paper (nothing when the result has no card)."""
    if card is None:
        return f'<p class="meaning">{_e(lead)}</p>' if lead else ""
    return (
        f'<p class="meaning">{_e(lead + card.meaning)}</p>'
        f'<p class="sign">{_e(card.sign)}</p>'
        f'<p class="paper muted">{_e(card.name)}: {_e(card.paper)}</p>'
    )


def _float_cell(value: float) -> str:
    return _num(value, "{:g}" if math.isfinite(value) and value.is_integer() else "{:.4f}")


def _statistics(rows: Sequence[tuple[str, Any]]) -> str:
    cells = [
        [_e(name), _e(value) if not isinstance(value, float) else _float_cell(value)]
        for name, value in rows
        if value is not None
    ]
    return _table(["statistic", "value"], cells) if cells else ""


def _pairs_body(
    key: str, result: Any, *, k: int, image_format: str, table_id: str, page_size: int
) -> list[str]:
    """Heatmap, top pairs coloured by their contribution's sign, the pair table with
    each column's meaning."""
    parts: list[str] = []
    frame = result.by_pair
    if (
        "task" in frame.columns
        and "delta" in frame.columns
        and np.isfinite(frame["delta"].to_numpy(dtype=float)).any()
    ):
        n_groups = frame["group"].nunique()
        n_tasks = min(frame["task"].nunique(), 40)
        fig, ax = _new_figure(max(6.0, 0.22 * n_tasks + 2.5), max(2.2, 0.35 * n_groups + 1.8))
        _plotting.plot_delta_heatmap(result, ax=ax)
        parts.append(
            _figure_html(
                fig,
                alt=f"{key}: group x task delta heatmap",
                caption="delta = predicted - true conditional probability per group x task "
                "(red: more in the predictions; grey: undefined).",
                image_format=image_format,
            )
        )
    top = result.top(k)
    finite = np.isfinite(
        top["delta" if "delta" in top.columns else "contribution"].to_numpy(dtype=float)
    )
    if finite.any():
        fig, ax = _new_figure(7.5, max(2.2, 0.3 * int(finite.sum()) + 1.2))
        _plotting.plot_top_pairs(result, k=k, ax=ax)
        has_ci = _plotting.pair_interval_columns(top) is not None
        what = "combinations" if "combination" in top.columns else "pairs"
        parts.append(
            _figure_html(
                fig,
                alt=f"{key}: top pairs",
                caption=f"The {int(finite.sum())} {what} with the largest contributions. "
                "A bar's length is its delta; its colour is the sign of its contribution "
                "to the value: red raises the value, blue lowers it; a hatched bar rests on "
                "fewer than min_cell rows (fragile). "
                + (
                    "Whiskers are bootstrap intervals of delta."
                    if has_ci
                    else "No per-pair intervals (run with --n-boot for them)."
                ),
                image_format=image_format,
            )
        )
    meanings = column_meanings(result, list(frame.columns))
    parts.append(
        interactive_table(frame, table_id=table_id, page_size=page_size, meanings=meanings)
    )
    return parts


def _predictability_body(result: Any, *, image_format: str) -> list[str]:
    """DPA, leakage amplification and LIC: the two attackers' quality and their runs."""
    if result.family == "lic":
        data_name, model_name = "LIC_D (human captions)", "LIC_M (model captions)"
    elif result.family == "dpa":
        data_name, model_name = "Psi_D (ground truth)", "Psi_M (model outputs)"
    else:
        data_name, model_name = "lambda_D (perturbed labels)", "lambda_M (model outputs)"
    rows = [
        ("value", float(result.value)),
        (f"{data_name}, mean", float(np.mean(result.data_quality))),
        (f"{model_name}, mean", float(np.mean(result.model_quality))),
        ("attacker", result.attacker),
        ("attacker quality", result.quality),
        ("perturbation", result.perturbation),
        ("model accuracy", result.model_accuracy),
        ("rows", result.n),
        ("iterations", getattr(result, "n_iter", None)),
    ]
    parts = [_statistics(rows)]
    if len(np.atleast_1d(result.values)) > 0:
        fig, ax = _new_figure(6.5, 3.4)
        _plotting.plot_predictability(result, ax=ax)
        parts.append(
            _figure_html(
                fig,
                alt="attacker quality per iteration",
                caption=f"{data_name} and {model_name} per iteration (each a fresh split and "
                "attacker); the value is the mean difference.",
                image_format=image_format,
            )
        )
    return parts


def _differential_fairness_body(result: Any, *, image_format: str) -> list[str]:
    """epsilon of the labels (and predictions) and each group's smoothed class rates."""
    rows: list[tuple[str, Any]] = [
        ("epsilon of the labels", result.epsilon_labels),
        (
            "epsilon of the labels set by",
            None if result.driver_labels is None else driver_words(result.driver_labels),
        ),
        ("epsilon of the predictions", result.epsilon_pred),
        (
            "epsilon of the predictions set by",
            None if result.driver_pred is None else driver_words(result.driver_pred),
        ),
        ("value", float(result.value)),
        ("Dirichlet concentration (smoothing)", float(result.concentration)),
        ("classes", ", ".join(map(str, result.classes))),
        ("rows", result.n),
    ]
    parts = [_statistics([(n, v) for n, v in rows if v is not None])]
    rates = result.rates
    if len(rates):
        fig, ax = _new_figure(6.0, max(2.6, 0.3 * min(len(result.groups), 40) + 1.6))
        result.plot(ax=ax)
        parts.append(
            _figure_html(
                fig,
                alt="group x group log-ratios",
                caption="The log-ratio of a class's smoothed rate between every two groups; "
                "epsilon is the largest in absolute value.",
                image_format=image_format,
            )
        )
        shown = rates.head(MAX_SIZE_ROWS)
        numeric = [c for c in shown.columns if c.startswith(("rate_", "count_"))]
        cells = [
            [_e(row["group"]), _e(row["label"]), *(_num(row[c], "{:.4g}") for c in numeric)]
            for row in shown.to_dict(orient="records")
        ]
        parts.append(_table(["group", "class", *numeric], cells, left=2))
        meanings = {
            "count_labels": "rows of the group with the class in the labels",
            "rate_labels": "the class's smoothed rate in the group, labels",
            "count_pred": "rows of the group with the class in the predictions",
            "rate_pred": "the class's smoothed rate in the group, predictions",
        }
        parts.append(column_legend(numeric, meanings))
        if len(rates) > MAX_SIZE_ROWS:
            parts.append(f'<p class="muted">{len(rates) - MAX_SIZE_ROWS} more rows.</p>')
    return parts


def _rba_body(result: Any) -> list[str]:
    """RBA: the paper's table 2 before and after, and whether it converged."""
    table = result.table()
    cells = [
        [_e(index), *(_num(v, "{:.4g}") for v in row)]
        for index, row in zip(table.index, table.to_numpy(), strict=True)
    ]
    rows = [("converged", str(bool(result.converged))), ("iterations", result.n_iter)]
    return [_table(["", *map(str, table.columns)], cells), _statistics(rows)]


def _trust_section(result: Any) -> str:
    """How far the value can be trusted, in words: the interval against 0, the fragile
    pairs (fewer than ``min_cell`` rows) among the top, the groups missing from a split."""
    words = interval_words(getattr(result, "ci", None), getattr(result, "ci_level", None))
    items = [] if words is None else [("", words)]
    items += [("warn", line.strip()) for line in pair_trust_lines(result)[1 if words else 0 :]]
    for message in missing_messages(
        getattr(result, "missing_groups", None),
        reference=reference_split(getattr(result, "group_sizes", None)),
    ):
        items.append(("warn", f"MissingGroupWarning: {message}"))
    if not items:
        return ""
    body = "".join(f'<li class="{cls}">{_e(text)}</li>' for cls, text in items)
    return f'<ul class="trust">{body}</ul>'


#: The result families of generated outputs (``biasamp.generated``): statistics, figure, table.
GENERATED_METRICS = ("output_amplification", "bias_transfer", "share_trajectory")
#: Rows listed in a generated-output result's table.
MAX_GENERATED_ROWS = 200

_GENERATED_CAPTIONS = {
    "output_amplification": (
        "Each concept's reference share of its majority group (x) against the outputs' share "
        "of that group (y). Points above the diagonal (red) push the concept further toward "
        "the group its reference favours."
    ),
    "bias_transfer": (
        "Each concept's reference bias (x) against its output bias (y), the least-squares "
        "line and the diagonal; a slope above 1 reads as amplifying transfer."
    ),
    "share_trajectory": (
        "Each group's share of the outputs per step, with its bootstrap band when computed."
    ),
}


def _generated_body(key: str, result: Any, *, image_format: str) -> list[str]:
    """A generated-output result: its statistics, its figure, its table and what was left out."""
    parts = [_statistics(list(result.statistics()))]
    fig, ax = _new_figure(6.4, 4.4)
    result.plot(ax=ax)
    parts.append(
        _figure_html(
            fig,
            alt=f"{key}: {_title(result, key)}",
            caption=_GENERATED_CAPTIONS[result.family],
            image_format=image_format,
        )
    )
    table = result.table()
    shown = table.iloc[:MAX_GENERATED_ROWS]
    index_name = str(table.index.name or "")

    def cell(value: Any) -> str:
        if isinstance(value, (float, np.floating)):
            return _float_cell(float(value))
        if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
            return _num(int(value), "{:d}")
        return _e(display_text(value))

    body = [
        [_e(display_text(i))] + [cell(v) for v in row]
        for i, row in zip(shown.index, shown.itertuples(index=False), strict=True)
    ]
    note = (
        ""
        if len(shown) == len(table)
        else f"<p class='muted'>The first {len(shown)} of {len(table)} rows.</p>"
    )
    parts.append(note + _table([index_name, *map(str, table.columns)], body))
    excluded = getattr(result, "excluded", None)
    if isinstance(excluded, pd.Series) and len(excluded):
        rows = [
            [_e(display_text(c)), _e(r)] for c, r in list(excluded.items())[:MAX_GENERATED_ROWS]
        ]
        parts.append("<h4>Left out</h4>" + _table(["concept", "reason"], rows))
    return parts


def _metric_section(
    key: str, result: Any, *, k: int, image_format: str, table_id: str, page_size: int
) -> str:
    if hasattr(result, "by_query"):
        return _retrieval_section(key, result, image_format=image_format)
    card = result_card(result, key)
    lead = ""
    if hasattr(result, "mals_after") and hasattr(result, "mals_before"):
        card = result_card(result.mals_after, "mals")
        lead = (
            "RBA calibrates the predictions under corpus-level constraints so that "
            "BiasAmp_MALS falls; the value is BiasAmp_MALS after it. "
        )
    parts = [
        f"<h3>{_e(key)}: {_e(_title(result, key))} = {_num(_headline(result))}</h3>",
        _explanation(card, lead=lead),
        _chance(result),
    ]
    trust = _trust_section(result)
    if trust:
        parts.append(trust)
    sizes_html = _group_sizes_section(result)
    if sizes_html:
        parts.append(sizes_html)
    frame = getattr(result, "by_pair", None)
    if hasattr(result, "mals_after") and hasattr(result, "mals_before"):
        parts += _rba_body(result)
    elif hasattr(result, "epsilon_labels"):
        parts += _differential_fairness_body(result, image_format=image_format)
    elif hasattr(result, "data_quality") and hasattr(result, "model_quality"):
        parts += _predictability_body(result, image_format=image_format)
    elif getattr(result, "family", None) in GENERATED_METRICS:
        parts += _generated_body(key, result, image_format=image_format)
    elif isinstance(frame, pd.DataFrame) and len(frame) and "contribution" in frame.columns:
        parts += _pairs_body(
            key, result, k=k, image_format=image_format, table_id=table_id, page_size=page_size
        )
    else:  # no pairs: the numbers behind the value
        extras = getattr(result, "extras", {}) or {}
        parts.append(_statistics(list(extras.items())))
    return "\n".join(part for part in parts if part)


def _container_section(key: str, container: Any) -> str:
    """The heading of a result that holds results (one captioning model), with what it
    knows of itself beside its metrics: for captions, how the captions were read (one
    group / none / two) and the gender (group) accuracy."""
    parts = [f'<h3 class="model">{_e(key)}</h3>']
    if hasattr(container, "group_accuracy"):
        cells = [
            [
                _num(container.n, "{:d}"),
                _num(container.n_one_group, "{:d}"),
                _num(container.n_no_group, "{:d}"),
                _num(container.n_conflict, "{:d}"),
                _num(container.group_accuracy, "{:.4f}"),
                _e(container.exclude_no_group),
            ]
        ]
        headers = ["captions", "one group", "no group", "two groups", "group accuracy", "excluded"]
        meanings = {
            "captions": "images (rows), one model caption each",
            "one group": "captions that name exactly one group (they give a predicted group)",
            "no group": "captions that name no group",
            "two groups": "captions that name two groups (conflicting)",
            "group accuracy": (
                "among captions with one group, the share whose group is the image's"
            ),
            "excluded": (
                "captions with no group or two are left out of T->A and MALS; "
                "'all': of A->T too, 'group-side': only of the group-side metrics"
            ),
        }
        parts.append('<p class="muted">How the captions were read:</p>')
        parts.append(_table(headers, cells, left=0))
        parts.append(column_legend(headers, meanings))
    return "\n".join(parts)


#: Points listed in the table under the bias figure (farthest from the diagonal first).
MAX_POINT_ROWS = 50


def _comparison_section(comparison: pd.DataFrame, *, margin: float, image_format: str) -> str:
    fig, axes = _new_figure(10.0, 4.6, ncols=2)
    _plotting.plot_bias_comparison(comparison, margin=margin, ax=axes[0])
    ax = axes[1]
    groups = list(pd.unique(comparison["group"]))
    shown = comparison[comparison["group"] == groups[0]] if len(groups) == 2 else comparison
    x = shown["b_train"].to_numpy(dtype=float)
    y = shown["b_pred"].to_numpy(dtype=float) - x
    keep = np.isfinite(x) & np.isfinite(y)
    outside = np.abs(y) > margin
    for mask, color, label in (
        (keep & ~outside, "#1a9850", "within margin"),
        (keep & outside, "#d73027", "outside margin"),
    ):
        ax.scatter(x[mask], y[mask], s=12, color=color, label=label)
    ax.legend(loc="upper left", fontsize=7)
    ax.axhline(0.0, color="black", linewidth=0.8)
    for offset in (-margin, margin):
        ax.axhline(offset, color="#3182bd", linewidth=0.8, linestyle=":")
    ax.set_xlim(0, 1)
    ax.set_xlabel("training bias")
    ax.set_ylabel("predicted - training bias")
    ax.set_title("Amplification against training bias", fontsize=10)
    points = shown[keep]
    named = _plotting.label_largest_points(
        ax, points, x[keep], y[keep], n=5, with_group=len(groups) != 2, y=y[keep]
    )
    reference = comparison.attrs.get("reference", "training")
    predicted = comparison.attrs.get("predicted", "predictions")
    n_out = int((np.abs(y[keep]) > margin).sum())
    figure = _figure_html(
        fig,
        alt="training vs predicted bias per task",
        caption=f"Bias b(t, g) = P(g | t) from the {reference} (x) against the {predicted} (y); "
        f"{n_out} point(s) lie outside the ±{margin:g} band (Zhao et al. 2017, "
        f"figures 2 and 3). The {len(named)} farthest that fit without overlapping are "
        "named; the table below lists every point outside the band.",
        image_format=image_format,
    )
    return (
        "<h2>Training vs predicted bias</h2>\n"
        + figure
        + _points_table(points, y[keep], margin=margin, named={a.row for a in named})
    )


def _points_table(
    points: pd.DataFrame, change: np.ndarray, *, margin: float, named: set[int]
) -> str:
    """The points outside the margin band, farthest first: the ones the figure names and
    the rest, so no point needs a label to be read."""
    rows = np.flatnonzero(np.abs(change) > margin)
    if not len(rows):
        return ""
    rows = rows[np.argsort(-np.abs(change[rows]), kind="stable")]
    cells = [
        [
            _e(points["group"].iloc[i]),
            _e(points["task"].iloc[i]),
            _num(float(points["b_train"].iloc[i]), "{:.3f}"),
            _num(float(points["b_pred"].iloc[i]), "{:.3f}"),
            _num(float(change[i]), "{:+.3f}"),
            "yes" if int(i) in named else "no",
        ]
        for i in rows[:MAX_POINT_ROWS]
    ]
    headers = ["group", "task", "b_train", "b_pred", "change", "named in the figure"]
    meanings = {
        "b_train": "training bias: P(group | task) in the training labels",
        "b_pred": "predicted bias: P(group | task) in the predictions",
        "change": "b_pred - b_train (outside the band when larger than the margin)",
    }
    more = (
        f'<p class="muted">{len(rows) - MAX_POINT_ROWS} more point(s) outside the band.</p>'
        if len(rows) > MAX_POINT_ROWS
        else ""
    )
    return (
        '<h3>Points outside the band</h3><div class="points">'
        + _table(headers, cells, left=2)
        + column_legend(headers, meanings)
        + more
        + "</div>"
    )


def _sweep_section(sweep: Any, *, image_format: str) -> str:
    """Threshold sweep: a mapping of metric -> ThresholdSweep (one panel each, drawn by
    :func:`biasamp.plot_threshold_sweep`) or a DataFrame (``threshold`` + one column per
    metric)."""
    if isinstance(sweep, pd.DataFrame):
        fig, ax = _new_figure(7.0, 4.0)
        _plotting.plot_threshold_sweep(sweep, ax=ax)
        means = ""
    else:
        from biasamp.uncertainty._sweep import plot_threshold_sweep

        fig, axes = _new_figure(5.0 * len(sweep), 3.6, ncols=len(sweep))
        axes = np.atleast_1d(axes)
        for ax, (key, item) in zip(axes, sweep.items(), strict=True):
            plot_threshold_sweep(item, ax=ax, label=_plotting.plot_text(key))
            ax.set_title(_plotting.plot_text(key, 60), fontsize=10)
            ax.set_ylabel("value")
        means = _table(
            ["metric", "mean over the grid", "thresholds"],
            [
                [
                    _e(key),
                    _num(item.mean),
                    _e(
                        f"{item.thresholds.min():g} .. "
                        f"{item.thresholds.max():g} ({len(item.thresholds)})"
                    ),
                ]
                for key, item in sweep.items()
            ],
        )
    return (
        "<h2>Threshold sweep</h2>"
        + _figure_html(
            fig,
            alt="threshold sweep",
            caption="Each metric recomputed with every prediction score "
            "binarised at the same threshold (predicted positive when score > threshold); the "
            "dashed line is the mean over the grid, a threshold-free summary.",
            image_format=image_format,
        )
        + means
    )


#: The metrics an audit sweeps along thresholds when its predictions are scores.
SWEPT_METRICS = ("mals", "directional-a2t", "directional-t2a")
#: The sweep section of an audit of scores computed without its sweeps.
SWEEP_NOT_COMPUTED = (
    "Not computed for this audit: its predictions are scores, and "
    "<code>biasamp.audit(..., sweeps=True)</code> (what <code>biasamp report</code> runs) "
    "recomputes each co-occurrence metric with every score binarised at each threshold "
    "of a grid."
)


def _unswept(audit: Any) -> bool:
    """An audit of prediction scores whose threshold sweeps were not computed."""
    return (
        bool(audit.document.get("thresholds"))
        and not getattr(audit, "sweeps", None)
        and any(key in SWEPT_METRICS for key in audit.results)
    )


def _settings_section(
    inputs: Sequence[Mapping[str, Any]],
    settings: Mapping[str, Any],
    labels: Mapping[str, Sequence[Any]] | None,
    thresholds: Mapping[str, float] | None,
    version: str,
) -> str:
    parts = ["<h2>Inputs and settings</h2>"]
    if inputs:
        rows = [
            [
                _e(f.get("role", "")),
                _e(f.get("path", "")),
                _e(f.get("format", "")),
                _num(f.get("rows"), "{:d}"),
                f'<span class="mono">{_e(f.get("sha256", ""))}</span>',
            ]
            for f in inputs
        ]
        parts.append(_table(["role", "file", "format", "rows", "sha256"], rows, left=3))
    rows = [[_e(k), _e(v)] for k, v in settings.items() if v not in (None, [], "")]
    rows.append(["biasamp version", _e(version)])
    parts.append(_table(["setting", "value"], rows, left=2))
    if labels:
        for kind, names in labels.items():
            names = [str(n) for n in names]
            shown = ", ".join(names[:60]) + (
                f", ... ({len(names)} in all)" if len(names) > 60 else ""
            )
            parts.append(f"<p><b>{_e(kind)}</b> ({len(names)}): {_e(shown)}</p>")
    if thresholds:
        rows = [[_e(k), _num(v, "{:.4g}")] for k, v in thresholds.items()]
        parts.append("<h3>Decision thresholds</h3>" + _table(["label", "threshold"], rows))
    return "\n".join(parts)


#: Half-width of the band in the bias figure when neither ``margin=`` nor the audit gives one.
DEFAULT_MARGIN = 0.05


@dataclass(frozen=True)
class _Gate:
    """A gate of an audit's document (``metric``, ``bound``, ``passed``) as the summary
    reads it."""

    key: str
    bound: float
    failed: bool


def _is_audit(value: Any) -> bool:
    """An :class:`~biasamp.AuditResult`: a container of results with its document."""
    return _is_container(value) and isinstance(getattr(value, "document", None), Mapping)


def audit_sections(audit: Any) -> dict[str, Any]:
    """The keywords of :func:`render_report` an audit holds besides its results.

    Parameters
    ----------
    audit : AuditResult
        What :func:`biasamp.audit` returns (or :func:`biasamp.load_result` reads).

    Returns
    -------
    dict
        ``comparison``, ``sweep``, ``by_size``, ``inputs``, ``settings``, ``labels``,
        ``thresholds``, ``warnings``, ``skipped``, ``gates`` and ``margin`` (the
        audit's setting, ``None`` when it has none).
    """
    document = audit.document
    settings = dict(document.get("settings") or {})
    gates = [
        _Gate(key=str(g["metric"]), bound=float(g["bound"]), failed=not g.get("passed", True))
        for g in document.get("gates") or ()
    ]
    margin = settings.get("margin")
    return {
        "comparison": getattr(audit, "comparison", None),
        "sweep": getattr(audit, "sweeps", None),
        "by_size": getattr(audit, "by_size", None),
        "inputs": [dict(f) for f in document.get("inputs") or ()],
        "settings": settings,
        "labels": dict(document.get("labels") or {}),
        "thresholds": dict(document.get("thresholds") or {}),
        "warnings": list(document.get("warnings") or ()),
        "skipped": dict(document.get("skipped") or {}),
        "gates": gates,
        "margin": None if margin is None else float(margin),
    }


def render_report(
    results: Any = None,
    *,
    comparison: pd.DataFrame | None = None,
    sweep: pd.DataFrame | None = None,
    by_size: pd.DataFrame | None = None,
    inputs: Sequence[Mapping[str, Any]] | None = None,
    settings: Mapping[str, Any] | None = None,
    labels: Mapping[str, Sequence[Any]] | None = None,
    thresholds: Mapping[str, float] | None = None,
    warnings: Sequence[str] | None = None,
    gates: Sequence[Any] | None = None,
    skipped: Mapping[str, str] | None = None,
    title: str = "biasamp report",
    top: int = 10,
    margin: float | None = None,
    image_format: str = "svg",
    page_size: int = PAGE_SIZE,
) -> str:
    """The report as one self-contained HTML string.

    Parameters
    ----------
    results : mapping of name -> result, or an object with a ``.results`` mapping
        The metrics, in display order: any result type (pairwise, multi-attribute,
        predictability, LIC, differential fairness, RBA) or a result that holds
        results (a :class:`CaptionBiasResult` per captioning model, shown with how its
        captions were read; an ``AuditResult``). An object with a ``.results``
        mapping may be passed itself (``render_report(audit)``). Each metric's
        section opens with its registry card's meaning, sign and paper
        (:func:`biasamp.registry.metric_card`). An
        :class:`~biasamp.AuditResult` brings the rest of its report too: its
        warnings, skipped metrics, training vs predicted bias figure, threshold
        sweeps, amplification by combination size, inputs, settings, label
        names, thresholds, margin and gates, each used where the keyword below
        is not given; ``render_report(biasamp.audit(...))`` has the sections of
        ``biasamp report`` on the same files (the command renders its page
        with this function). An audit of prediction scores computed without
        ``sweeps=True`` keeps the threshold-sweep section, which then says how to
        compute it.
    comparison : DataFrame, optional
        ``group``, ``task``, ``b_train``, ``b_pred`` per pair (training vs
        predicted bias figure).
    sweep : mapping of name -> ThresholdSweep, or DataFrame, optional
        Threshold sweeps (:func:`biasamp.threshold_sweep`), one panel per metric;
        or a DataFrame with ``threshold`` and one column per metric.
    by_size : DataFrame, optional
        ``size``, ``value`` (and ``metric``): amplification by combination size.
    inputs : sequence of dict, optional
        Input files: ``role``, ``path``, ``format``, ``rows``, ``sha256``.
    settings : mapping, optional
        Settings used, shown as a table.
    labels : mapping, optional
        Label names per kind (``{"groups": [...], "tasks": [...]}``).
    thresholds : mapping, optional
        Decision threshold per label.
    warnings : sequence of str, optional
    gates : sequence of Gate, optional
        ``--fail-above`` outcomes (objects with ``key``, ``bound``, ``failed``).
    skipped : mapping, optional
        Metrics not computed and why.
    title : str
    top : int, default 10
        Pairs shown in each metric's top-pairs figure.
    margin : float, optional
        Half-width of the band in the bias figure: the audit's ``margin``
        setting, else 0.05.
    image_format : {"svg", "png"}, default "svg"
    page_size : int, default 25
        Rows per page of the pair and combination tables. Every table holds all of
        its rows and can be sorted by any column, filtered by text and by group and
        paged in the browser (one inline script, allowed by its hash in the
        Content-Security-Policy); without JavaScript it shows its first page,
        sorted by ``|contribution|``.

    Returns
    -------
    str
        The HTML document.

    Examples
    --------
    >>> from biasamp import mals
    >>> from biasamp import render_report
    >>> result = mals(groups_train=["w", "m", "w"], tasks_train=["cook", "cook", "ski"],
    ...               groups_pred=["w", "w", "m"], tasks_pred=["cook", "cook", "ski"])
    >>> page = render_report(results={"mals": result}, title="<b>audit</b>")
    >>> page.startswith("<!DOCTYPE html>"), "&lt;b&gt;audit&lt;/b&gt;" in page
    (True, True)
    """
    if image_format not in ("svg", "png"):
        raise ValueError(ERR_IMAGE_FORMAT.format(got=image_format))
    given: dict[str, Any] = {
        "comparison": comparison,
        "sweep": sweep,
        "by_size": by_size,
        "inputs": inputs,
        "settings": settings,
        "labels": labels,
        "thresholds": thresholds,
        "warnings": warnings,
        "gates": gates,
        "skipped": skipped,
        "margin": margin,
    }
    audit = results if _is_audit(results) else None
    held = audit_sections(audit) if audit is not None else {}
    parts: dict[str, Any] = {k: held.get(k) if v is None else v for k, v in given.items()}
    comparison, sweep, by_size = parts["comparison"], parts["sweep"], parts["by_size"]
    settings, labels, thresholds = parts["settings"], parts["labels"], parts["thresholds"]
    skipped = parts["skipped"]
    files: Sequence[Mapping[str, Any]] = parts["inputs"] or ()
    warnings = parts["warnings"] or ()
    gates = () if parts["gates"] is None else parts["gates"]
    band = DEFAULT_MARGIN if parts["margin"] is None else float(parts["margin"])
    if not isinstance(results, Mapping):
        if not _is_container(results):
            raise TypeError(ERR_RESULTS_TYPE.format(got=type(results).__name__))
        # an AuditResult stands for its metrics; a CaptionBiasResult keeps its section
        own = hasattr(results, "group_accuracy")
        results = {"captions": results} if own else dict(results.results)
    if not results:
        raise ValueError(ERR_NO_RESULTS)
    results = dict(zip(key_names(results, arg="results"), results.values(), strict=True))
    leaves = _flatten(results)
    for key, result in leaves:
        if not (hasattr(result, "value") or hasattr(result, "mals_after")):
            raise TypeError(ERR_RESULT_VALUE.format(key=key, got=type(result).__name__))
    if not leaves:
        raise ValueError(ERR_NO_RESULTS)
    if isinstance(gates, (str, bytes)) or not isinstance(gates, Iterable):
        raise TypeError(ERR_GATE.format(got=type(gates).__name__))
    gates = list(gates)
    for gate in gates:
        if not all(hasattr(gate, a) for a in ("key", "bound", "failed")):
            raise TypeError(ERR_GATE.format(got=type(gate).__name__))
    _plotting.require_matplotlib()
    from biasamp._version import __version__

    body = [
        f"<h1>{_e(title)}</h1>",
        f'<p class="muted">biasamp {_e(__version__)}: bias amplification report. '
        "Positive values: the model amplifies the bias of its data.</p>",
        "<h2>Summary</h2>",
        _summary(leaves, gates),
    ]
    if skipped:
        body.append(
            "<ul>"
            + "".join(
                f'<li class="muted">not computed: {_e(k)} ({_e(v)})</li>'
                for k, v in skipped.items()
            )
            + "</ul>"
        )
    if warnings:
        body.append(
            "<h3>Warnings</h3><ul>"
            + "".join(f'<li class="warn">{_e(w)}</li>' for w in warnings)
            + "</ul>"
        )
    if comparison is not None and len(comparison):
        body.append(_comparison_section(comparison, margin=band, image_format=image_format))
    body.append("<h2>Metrics</h2>")
    shown = 0
    for key, result in results.items():
        if _is_container(result):
            body.append(_container_section(str(key), result))
            children = _flatten({f"{key} {k}": r for k, r in result.results.items()})
        else:
            children = [(str(key), result)]
        for name, child in children:
            body.append(
                _metric_section(
                    name,
                    child,
                    k=top,
                    image_format=image_format,
                    table_id=f"pairs-{shown}",
                    page_size=page_size,
                )
            )
            shown += 1
    if sweep is not None and len(sweep):
        body.append(_sweep_section(sweep, image_format=image_format))
    elif given["sweep"] is None and audit is not None and _unswept(audit):
        body.append(f'<h2>Threshold sweep</h2>\n<p class="muted">{SWEEP_NOT_COMPUTED}</p>')
    if by_size is not None and len(by_size):
        fig, ax = _new_figure(7.0, 4.0)
        _plotting.plot_by_size(by_size, ax=ax)
        body.append(
            "<h2>Amplification by combination size</h2>"
            + _figure_html(
                fig,
                alt="amplification by combination size",
                caption="Multi-attribute amplification for combinations of 1, 2, ... attributes.",
                image_format=image_format,
            )
        )
    body.append(_settings_section(files, settings or {}, labels, thresholds, __version__))
    if any('class="pairs"' in part for part in body):
        body.append(f'<script id="table-script">{SCRIPT}</script>')
    return html_page(title, body)


def _input_files(results: Any, inputs: Any) -> list[tuple[str, str]]:
    """The files a report is about: its ``inputs`` records and the files its results
    were computed from (an ``AuditResult`` knows its own)."""
    files: list[tuple[str, str]] = []
    if isinstance(inputs, Iterable) and not isinstance(inputs, (str, bytes, Mapping)):
        for record in inputs:
            if isinstance(record, Mapping) and isinstance(record.get("path"), (str, PathLike)):
                files.append((f"inputs ({record.get('role', 'file')})", fspath(record["path"])))
    for obj in [results, *(results.values() if isinstance(results, Mapping) else ())]:
        files.extend(input_files_of(obj))
    return files


def write_report(path: str | Path, results: Any = None, **kwargs: Any) -> Path:
    """Write :func:`render_report` to ``path`` (UTF-8); return the path.

    ``path`` may not be one of the report's input files (the ``inputs`` records and
    the files its results were computed from, such as an ``AuditResult``'s): that is
    a ``ValueError`` naming ``path`` and the input, raised before anything is done.
    """
    from biasamp.output._atomic import atomic_output

    target = check_written_output(
        path, argument="path", inputs=_input_files(results, kwargs.get("inputs", ()))
    )
    page = render_report(results, **kwargs)
    with atomic_output(target, "w", encoding="utf-8") as handle:
        handle.write(page)
    return Path(path)

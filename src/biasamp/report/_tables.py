"""The report's pair and combination tables: sortable, filterable and paged in the browser.

Each table is written twice:

* as HTML, its first page (rows sorted by ``|contribution|``, largest first), which
  every reader sees, with or without JavaScript;
* as a JSON data block (``<script type="application/json">``, which no browser
  executes) holding every row, column by column, group and task names as indices
  into name lists.

One inline script (:data:`SCRIPT`) reads the data blocks and, on request, re-renders
a table's body: sort by any column (a click on its header; again to reverse), filter
by text (group or task name, case-insensitive) and by group, page through the rows.
It builds the page with DOM methods and ``textContent`` only: no ``innerHTML``, no
``eval``, no request. The report's Content-Security-Policy allows this script by its
SHA-256 hash (:data:`SCRIPT_HASH`) and nothing else, and requires Trusted Types,
so an injected string could not become markup or code even if one slipped through.

Names are untrusted: they pass through :func:`biasamp.results._display.display_text`
(invisible and bidirectional characters escaped visibly) before they are written, and
the JSON is written with ``<``, ``>`` and ``&`` escaped, so no name can close the
data block.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from biasamp.results._display import display_text

__all__ = ["PAGE_SIZE", "SCRIPT", "SCRIPT_HASH", "column_legend", "interactive_table"]

#: Rows per page (the first page is the table shown without JavaScript).
PAGE_SIZE = 25

#: Columns shown when the result has them: (column, header, JavaScript format, decimals kept).
_STAT_COLUMNS = (
    ("size", "size", "int", 0),
    ("b_train", "b_train", "f3", 6),
    ("b_pred", "b_pred", "f3", 6),
    ("p_true", "p_true", "f3", 6),
    ("p_pred", "p_pred", "f3", 6),
    ("delta", "delta", "f3", 6),
    ("ci_low", "ci_low", "f3", 6),
    ("ci_high", "ci_high", "f3", 6),
    ("y", "y", "sint", 0),
    ("contribution", "contribution", "sf5", 8),
)

SCRIPT = """(() => {
'use strict';
const fmt = {
  int: v => String(v),
  sint: v => (v > 0 ? '+' : '') + v,
  f3: v => v.toFixed(3),
  sf5: v => (v >= 0 ? '+' : '') + v.toFixed(5),
};
function cell(text, left) {
  const td = document.createElement('td');
  if (left) td.className = 'l';
  td.textContent = text;
  return td;
}
function setup(section) {
  const data = JSON.parse(section.querySelector('script.table-data').textContent);
  const n = data.rows;
  const table = section.querySelector('table');
  const body = table.tBodies[0];
  const heads = [...table.tHead.rows[0].cells];
  const controls = section.querySelector('.controls');
  const search = controls.querySelector('input.search');
  const group = controls.querySelector('select.group');
  const size = controls.querySelector('select.size');
  const status = section.querySelector('.status');
  const prev = controls.querySelector('button.prev');
  const next = controls.querySelector('button.next');
  const names = {group: data.groups, label: data.labels};
  for (const [i, name] of data.groups.entries()) {
    const option = document.createElement('option');
    option.value = String(i);
    option.textContent = name;
    group.append(option);
  }
  const lower = {group: data.groups.map(s => s.toLowerCase()),
                 label: data.labels.map(s => s.toLowerCase())};
  const state = {key: 'contribution', dir: -1, abs: true, page: 0, size: data.page};
  let shown = [];
  function value(col, i) {
    const c = data.columns[col];
    if (c.kind === 'text') return names[col === 0 ? 'group' : 'label'][c.values[i]];
    return c.values[i];
  }
  function order() {
    const want = search.value.trim().toLowerCase();
    const g = group.value === '' ? -1 : Number(group.value);
    const gi = data.columns[0].values, ti = data.columns[1].values;
    const rows = [];
    for (let i = 0; i < n; i++) {
      if (g >= 0 && gi[i] !== g) continue;
      if (want && !lower.group[gi[i]].includes(want) && !lower.label[ti[i]].includes(want)) continue;
      rows.push(i);
    }
    const col = data.columns.findIndex(c => c.name === state.key);
    const c = data.columns[col];
    if (c.kind === 'text') {
      const list = names[col === 0 ? 'group' : 'label'];
      rows.sort((a, b) => state.dir * list[c.values[a]].localeCompare(list[c.values[b]]) || a - b);
    } else {
      const key = i => {
        const v = c.values[i];
        return v === null ? null : (state.abs ? Math.abs(v) : v);
      };
      rows.sort((a, b) => {
        const x = key(a), y = key(b);
        if (x === null || y === null) return (x === null) - (y === null) || a - b;
        return state.dir * (x - y) || a - b;
      });
    }
    shown = rows;
  }
  function render() {
    const pages = Math.max(1, Math.ceil(shown.length / state.size));
    state.page = Math.min(Math.max(state.page, 0), pages - 1);
    const start = state.page * state.size;
    const stop = Math.min(start + state.size, shown.length);
    const rows = [];
    for (let k = start; k < stop; k++) {
      const i = shown[k];
      const tr = document.createElement('tr');
      data.columns.forEach((c, col) => {
        const v = value(col, i);
        tr.append(cell(c.kind === 'text' ? v : (v === null ? 'n/a' : fmt[c.format](v)), c.kind === 'text'));
      });
      rows.push(tr);
    }
    body.replaceChildren(...rows);
    heads.forEach((th, col) => {
      const c = data.columns[col];
      th.setAttribute('aria-sort', c.name === state.key ? (state.dir < 0 ? 'descending' : 'ascending') : 'none');
    });
    const how = (state.abs ? '|' + state.key + '|' : state.key) + (state.dir < 0 ? ', largest first' : ', smallest first');
    status.textContent = (shown.length ? `rows ${start + 1}-${stop} of ${shown.length}` : 'no rows')
      + (shown.length < n ? ` (filtered from ${n})` : '') + `; page ${state.page + 1} of ${pages}; sorted by ${how}`;
    prev.disabled = state.page === 0;
    next.disabled = state.page >= pages - 1;
  }
  heads.forEach((th, col) => {
    const button = th.querySelector('button');
    button.addEventListener('click', () => {
      const name = data.columns[col].name;
      if (state.key === name && !state.abs) state.dir = -state.dir;
      else { state.key = name; state.abs = false; state.dir = data.columns[col].kind === 'text' ? 1 : -1; }
      state.page = 0; order(); render();
    });
    button.disabled = false;
  });
  search.addEventListener('input', () => { state.page = 0; order(); render(); });
  group.addEventListener('change', () => { state.page = 0; order(); render(); });
  size.addEventListener('change', () => { state.size = Number(size.value); state.page = 0; render(); });
  prev.addEventListener('click', () => { state.page -= 1; render(); });
  next.addEventListener('click', () => { state.page += 1; render(); });
  controls.hidden = false;
  order(); render();
}
document.querySelectorAll('section.pairs').forEach(setup);
})();"""

#: The CSP source allowing :data:`SCRIPT` (and no other script).
SCRIPT_HASH = "'sha256-" + base64.b64encode(hashlib.sha256(SCRIPT.encode()).digest()).decode() + "'"


def _e(value: Any) -> str:
    return html.escape(display_text(value), quote=True)


def _json_block(data: dict[str, Any]) -> str:
    """``data`` as JSON that no text can break out of a ``<script>`` element."""
    text = json.dumps(data, ensure_ascii=True, separators=(",", ":"), allow_nan=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _numbers(values: np.ndarray, decimals: int, integer: bool) -> list[Any]:
    """Column values for JSON: rounded, NaN and infinities as ``null``."""
    values = np.asarray(values, dtype=np.float64)
    finite = np.isfinite(values)
    rounded = np.round(np.where(finite, values, 0.0), decimals)
    if integer:
        out = rounded.astype(np.int64).astype(object)
    else:
        out = rounded.astype(object)
    out[~finite] = None
    return list(out.tolist())


def _format(value: float, kind: str) -> str:
    if not np.isfinite(value):
        return "n/a"
    if kind == "int":
        return f"{int(value):d}"
    if kind == "sint":
        return f"{int(value):+d}"
    if kind == "f3":
        return f"{value:.3f}"
    return f"{value:+.5f}"


def _labels(frame: pd.DataFrame) -> tuple[str, pd.Series]:
    if "task" in frame.columns:
        return "task", frame["task"]
    return "combination", frame["combination"].map(
        lambda c: " + ".join(map(str, c)) if isinstance(c, tuple) else str(c)
    )


def column_legend(headers: Any, meanings: Mapping[str, str] | None) -> str:
    """A ``<dl class="legend">`` naming what each column (of ``headers``) holds."""
    if not meanings:
        return ""
    items = "".join(f"<dt>{_e(h)}</dt><dd>{_e(meanings[h])}</dd>" for h in headers if h in meanings)
    return f'<dl class="legend">{items}</dl>' if items else ""


def interactive_table(
    frame: pd.DataFrame,
    *,
    table_id: str,
    page_size: int = PAGE_SIZE,
    meanings: Mapping[str, str] | None = None,
) -> str:
    """A pair (or combination) table as HTML: the first page, controls and the data.

    Parameters
    ----------
    frame : DataFrame
        A result's ``by_pair``: ``group``, ``task`` (or ``combination``),
        ``contribution`` and any of the statistics columns.
    table_id : str
        A unique id within the page (letters, digits, ``-``).
    page_size : int, default :data:`PAGE_SIZE`
    meanings : mapping of column -> str, optional
        What each column holds: the header's tooltip (``title``) and a legend under
        the table.

    Returns
    -------
    str
        A ``<section class="pairs">`` element.
    """
    label_name, labels = _labels(frame)
    group_codes, group_names = pd.factorize(frame["group"].astype(str), sort=False)
    label_codes, label_names = pd.factorize(labels.astype(str), sort=False)
    stats = [c for c in _STAT_COLUMNS if c[0] in frame.columns]
    contribution = frame["contribution"].to_numpy(dtype=np.float64)
    magnitude = np.where(np.isfinite(contribution), np.abs(contribution), -np.inf)
    first = np.argsort(-magnitude, kind="stable")[:page_size]
    shown_groups = [display_text(g) for g in group_names]
    shown_labels = [display_text(t) for t in label_names]
    columns: list[dict[str, Any]] = [
        {"name": "group", "kind": "text", "values": group_codes.tolist()},
        {"name": label_name, "kind": "text", "values": label_codes.tolist()},
    ]
    for column, _, kind, decimals in stats:
        values = frame[column].to_numpy(dtype=np.float64)
        columns.append(
            {
                "name": column,
                "kind": "number",
                "format": kind,
                "values": _numbers(values, decimals, kind in ("int", "sint")),
            }
        )
    data = {
        "rows": len(frame),
        "page": int(page_size),
        "groups": shown_groups,
        "labels": shown_labels,
        "columns": columns,
    }
    headers = ["group", label_name, *(c[1] for c in stats)]
    meanings = meanings or {}
    head = "".join(
        f'<th class="{"l" if i < 2 else ""}" aria-sort="{"descending" if h == "contribution" else "none"}"'
        + (f' title="{_e(meanings[h])}"' if h in meanings else "")
        + f'><button type="button" class="sort" disabled>{_e(h)}</button></th>'
        for i, h in enumerate(headers)
    )
    body_rows = []
    for i in first:
        cells = [
            f'<td class="l">{html.escape(shown_groups[group_codes[i]])}</td>',
            f'<td class="l">{html.escape(shown_labels[label_codes[i]])}</td>',
        ]
        cells += [
            f"<td>{_format(float(frame[column].iloc[i]), kind)}</td>"
            for column, _, kind, _ in stats
        ]
        body_rows.append("<tr>" + "".join(cells) + "</tr>")
    shown = len(first)
    status = f"rows 1-{shown} of {len(frame)}; sorted by |contribution|, largest first" + (
        "" if shown == len(frame) else " (the full table needs JavaScript)"
    )
    sizes = sorted({10, 25, 100, 500, int(page_size)})
    options = "".join(
        f'<option value="{s}"{" selected" if s == page_size else ""}>{s} rows</option>'
        for s in sizes
    )
    controls = (
        '<div class="controls" hidden>'
        f'<label>filter <input type="search" class="search" placeholder="group or {label_name}"></label> '
        '<label>group <select class="group"><option value="">all groups</option></select></label> '
        f'<label>page size <select class="size">{options}</select></label> '
        '<button type="button" class="prev">previous</button> '
        '<button type="button" class="next">next</button>'
        "</div>"
    )
    return (
        f'<section class="pairs" id="{_e(table_id)}">'
        + controls
        + f'<p class="status muted">{_e(status)}</p>'
        + f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body_rows)}</tbody></table>"
        + f'<script type="application/json" class="table-data">{_json_block(data)}</script>'
        + column_legend(headers, meanings)
        + "</section>"
    )

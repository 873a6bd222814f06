"""The report's pair and combination tables (``report/_tables.py``): every row in the data
block, the first page in the HTML, nothing that can close the data block."""

from __future__ import annotations

import json
import re

import numpy as np

import biasamp
from biasamp.report._tables import SCRIPT, SCRIPT_HASH, interactive_table


def _data(page: str) -> dict:
    block = re.search(r'<script type="application/json" class="table-data">(.*?)</script>', page)
    assert block is not None
    return json.loads(block.group(1))


def test_pair_table_holds_every_row_and_shows_the_first_page():
    rng = np.random.default_rng(1)
    n = 500
    groups = rng.choice(["m", "w", "</script><script>alert(1)</script>"], n)
    tasks = rng.choice([f"t{i}" for i in range(12)] + ["a\u202eb"], n)
    pred = np.where(rng.random(n) < 0.3, rng.permutation(tasks), tasks)
    result = biasamp.mals(
        groups_train=groups, tasks_train=tasks, groups_pred=groups, tasks_pred=pred
    )
    frame = result.by_pair
    html = interactive_table(frame, table_id="t", page_size=7)
    assert html.count("</script>") == 1  # the data block cannot be closed by a name
    data = _data(html)
    assert data["rows"] == len(frame) == 3 * 13
    assert [c["name"] for c in data["columns"]] == [
        "group",
        "task",
        "b_train",
        "b_pred",
        "delta",
        "contribution",
    ]
    names = np.array(data["groups"])[data["columns"][0]["values"]]
    assert set(names) == {"m", "w", "</script><script>alert(1)</script>"}
    assert "a\\u202eb" in data["labels"] and all("\u202e" not in t for t in data["labels"])
    contribution = data["columns"][-1]["values"]
    np.testing.assert_allclose(contribution, frame["contribution"].round(8))
    # the first page: 7 rows by |contribution|, largest first
    body = re.search(r"<tbody>(.*)</tbody>", html).group(1)
    rows = re.findall(r"<tr>(.*?)</tr>", body)
    top = result.top(7)
    assert len(rows) == 7
    for row, (_, want) in zip(rows, top.iterrows(), strict=True):
        cells = re.findall(r"<td[^>]*>(.*?)</td>", row)
        assert cells[1] == want["task"].replace("\u202e", "\\u202e")
        assert cells[-1] == f"{want['contribution']:+.5f}"
    assert "rows 1-7 of 39" in html and "the full table needs JavaScript" in html


def test_combination_table_names_each_combination():
    rng = np.random.default_rng(2)
    n = 300
    g = (rng.random((n, 2)) < 0.5).astype(int)
    t = (rng.random((n, 3)) < 0.4).astype(int)
    tp = np.where(rng.random((n, 3)) < 0.2, 1 - t, t)
    result = biasamp.multi_mals(
        groups_train=g, tasks_train=t, groups=g, tasks=t, groups_pred=g, tasks_pred=tp
    )
    data = _data(interactive_table(result.by_pair, table_id="c"))
    assert data["columns"][1]["name"] == "combination"
    assert "0 + 1" in data["labels"] and data["rows"] == len(result.by_pair)


def test_the_script_hash_is_the_script():
    import base64
    import hashlib

    digest = base64.b64encode(hashlib.sha256(SCRIPT.encode()).digest()).decode()
    assert SCRIPT_HASH == f"'sha256-{digest}'"
    # no eval-like construct, no markup from strings
    for banned in ("eval(", "new Function", "innerHTML", "outerHTML", "insertAdjacentHTML"):
        assert banned not in SCRIPT

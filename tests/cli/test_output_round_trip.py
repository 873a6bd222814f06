"""Untrusted label names survive every output format of the command line.

Random names (any Unicode, spreadsheet formula prefixes, HTML) are written
through ``measure --json``, ``report --html --json``, ``calibrate --output``
(CSV and JSON) and ``mitigate --output`` (CSV), and read back unchanged: with
:mod:`json`, an HTML parser, biasamp's own thresholds reader and biasamp's own
CSV reader. The CSV cells are also checked to be inert in a spreadsheet.
"""

from __future__ import annotations

import csv
import json
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from biasamp.auditing._threshold_files import read_thresholds
from biasamp.cli.main import main
from biasamp.engines._file_reader import ColumnBlock, read_blocks
from biasamp.results._display import display_text

pytest.importorskip("pyarrow")
pytest.importorskip("matplotlib")

PREFIXES = ["", "=", "+", "-", "@", "\t", "\r", "'", "'=", "''", "-1", "<script>", "&amp;", " "]
_text = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="|"), max_size=8
)
LABEL = st.builds(lambda p, t: p + t, st.sampled_from(PREFIXES), _text).filter(
    lambda s: s != "" and s not in ("ga", "gb")
)
FORMULA_START = ("=", "+", "@", "\t", "\r")


class _Cells(HTMLParser):
    """The text of every table cell of a page."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.cells: list[str] = []
        self._cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: object) -> None:
        if tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None:
            self.cells.append("".join(self._cell))
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def _indicator_files(folder: Path, tasks: list[str]) -> Path:
    rng = np.random.default_rng(0)
    n = 40
    first = rng.random(n) < 0.5
    frame = pd.DataFrame({"ga": first.astype(int), "gb": (~first).astype(int)})
    frame["s_ga"] = np.clip(first * 0.6 + rng.random(n) * 0.5, 0, 1)
    frame["s_gb"] = 1 - frame["s_ga"]
    for j, task in enumerate(tasks):
        present = rng.random(n) < np.where(first, 0.3 + 0.1 * j, 0.7 - 0.1 * j)
        present[j] = True  # every task occurs
        frame[f"t_{task}"] = present.astype(int)
        frame[f"s_t_{task}"] = np.clip(present * 0.5 + rng.random(n) * 0.6, 0, 1)
    path = folder / "data.parquet"
    frame.to_parquet(path, index=False)
    return path


def _categorical_files(folder: Path, groups: list[str], tasks: list[str]) -> tuple[Path, Path]:
    rng = np.random.default_rng(1)
    n = 30
    train = pd.DataFrame(
        {
            "g": [groups[i % len(groups)] for i in range(n)],
            "t": [tasks[(i // len(groups)) % len(tasks)] for i in range(n)],
        }
    )
    train.to_parquet(folder / "train.parquet", index=False)
    scores = pd.DataFrame({"id": [f"r{i}" for i in range(n)]})
    for g in groups:
        for t in tasks:
            scores[f"{g}|{t}"] = rng.normal(size=n)
    scores.to_parquet(folder / "scores.parquet", index=False)
    return folder / "train.parquet", folder / "scores.parquet"


def _csv_cells_are_inert(path: Path) -> None:
    with path.open(encoding="utf-8", newline="") as handle:
        for row in csv.reader(handle):
            for cell in row:
                assert not cell.startswith(FORMULA_START), (path.name, cell)
                if cell.startswith("-"):
                    float(cell)


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    phases=[Phase.explicit, Phase.reuse, Phase.generate],  # shrinking CLI runs is slow
)
@given(
    tasks=st.lists(LABEL, min_size=2, max_size=3, unique=True),
    groups=st.lists(LABEL, min_size=2, max_size=2, unique=True),
)
def test_label_names_survive_every_output_format(tmp_path_factory, tasks, groups):
    folder = tmp_path_factory.mktemp("round")
    data = _indicator_files(folder, tasks)
    layout = ["--group-cols", "ga,gb", "--task-prefix", "t_", "--pred-prefix", "s_"]
    scored = {"ga", "gb", *tasks}

    # measure --json and report --html --json
    assert main(
        ["measure", str(data), *layout, "--threshold", "0.5", "--json", str(folder / "m.json")]
    ) in (0, 1)
    html, report_json = folder / "r.html", folder / "r.json"
    code = main(
        [
            "report",
            str(data),
            *layout,
            "--threshold",
            "0.5",
            "--html",
            str(html),
            "--json",
            str(report_json),
        ]
    )
    assert code in (0, 1)
    for path in (folder / "m.json", report_json):
        doc = json.loads(path.read_text(encoding="utf-8"))
        assert set(doc["labels"]["tasks"]) == set(tasks)
        assert set(doc["thresholds"]) == scored
    parser = _Cells()
    with html.open(encoding="utf-8", newline="") as handle:  # no newline translation
        parser.feed(handle.read())
    # the report shows each name with its invisible and control characters escaped visibly
    assert {display_text(name) for name in scored} <= set(parser.cells)

    # calibrate --output CSV and JSON, read back by --thresholds' reader
    for name in ("th.csv", "th.json"):
        assert main(["calibrate", str(data), *layout, "--output", str(folder / name)]) == 0
        assert set(read_thresholds(folder / name)) == scored
    _csv_cells_are_inert(folder / "th.csv")
    assert read_thresholds(folder / "th.csv") == read_thresholds(folder / "th.json")

    # mitigate --output CSV (categorical labels as cell values), read back by biasamp
    train, scores = _categorical_files(folder, groups, tasks)
    out, before = folder / "cal.csv", folder / "before.csv"
    code = main(
        [
            "mitigate",
            str(scores),
            "--structure",
            "single",
            "--train",
            str(train),
            "--group",
            "g",
            "--task",
            "t",
            "--id",
            "id",
            "--max-iter",
            "3",
            "--output",
            str(out),
            "--output-before",
            str(before),
        ]
    )
    assert code == 0
    blocks = [
        ColumnBlock("g", "label", ("pred_g",), "x"),
        ColumnBlock("t", "label", ("pred_t",), "x"),
    ]
    back, _ = read_blocks(before, blocks, role="x")
    frame = pd.read_parquet(scores)
    pair = frame[[f"{g}|{t}" for g in sorted(groups) for t in sorted(tasks)]].to_numpy()
    best = pair.argmax(axis=1)
    assert back["g"].tolist() == [sorted(groups)[i // len(tasks)] for i in best]
    assert back["t"].tolist() == [sorted(tasks)[i % len(tasks)] for i in best]
    calibrated, _ = read_blocks(out, blocks, role="x")
    assert set(calibrated["g"]) <= set(groups) and set(calibrated["t"]) <= set(tasks)
    for path in (out, before):
        _csv_cells_are_inert(path)

"""Group sizes on the command line: per split in the JSON and the terminal, and the
small-group warning as a warning line (``--min-group-size``)."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest

from biasamp.cli.flags import to_flags
from biasamp.cli.main import EXIT_USAGE, main
from biasamp.inputs._group_sizes import WARN_SMALL_GROUPS, SmallGroupWarning

TASKS = ["cup", "ski"]


def _frame(sizes: dict[str, int], seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    groups = np.repeat(list(sizes), list(sizes.values()))
    frame = pd.DataFrame({"g": groups})
    for task in TASKS:
        frame[task] = (rng.random(len(frame)) < 0.5).astype(int)
        frame[f"pred_{task}"] = frame[task]
    frame["pred_g"] = frame["g"]
    return frame


@pytest.fixture
def files(tmp_path):
    _frame({"a": 50, "b": 10}, 0).to_csv(tmp_path / "test.csv", index=False)
    _frame({"a": 40, "b": 35}, 1).to_csv(tmp_path / "train.csv", index=False)
    return tmp_path


def _run(files, *extra: str) -> list[str]:
    return [
        "measure",
        str(files / "test.csv"),
        "--train",
        str(files / "train.csv"),
        "--group",
        "g",
        "--task-cols",
        ",".join(TASKS),
        "--pred-prefix",
        "pred_",
        "--json",
        str(files / "out.json"),
        *extra,
    ]


@pytest.mark.parametrize("engine", ["numpy", "duckdb"])
def test_sizes_per_split_in_json_and_terminal_and_the_warning_line(files, capsys, engine):
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        assert main(_run(files, "--engine", engine)) == 0
    # nothing reaches Python's warnings: the command prints them as warning lines
    assert not [w for w in record if issubclass(w.category, SmallGroupWarning)]
    doc = json.loads((files / "out.json").read_text())
    by_key = {m["key"]: m for m in list(doc["results"].values())}
    for key in ("mals", "directional-a2t", "directional-t2a"):
        sizes = by_key[key]["group_sizes"]
        assert sizes["train"] == {"a": 40.0, "b": 35.0}
        assert sizes["evaluation"] == {"a": 50.0, "b": 10.0}
        assert by_key[key]["small_groups"] == ["b"]
        assert by_key[key]["min_group_size"] == 30
    assert by_key["directional-t2a"]["group_sizes"]["predicted"] == {"a": 50.0, "b": 10.0}
    out = " ".join(capsys.readouterr().out.split())
    assert "smallest group: train 35 (b), evaluation 10 (b)" in out
    small = WARN_SMALL_GROUPS.format(
        count=1, limit=30, split="the evaluation split", examples="b (10)"
    )
    assert doc["warnings"][0] == small
    assert sum("min_group_size" in w for w in doc["warnings"]) == 1  # once, not per metric
    assert to_flags(small) in out  # the terminal names the flag: --min-group-size 30


def test_min_group_size_none_turns_the_check_off(files):
    assert main(_run(files, "--min-group-size", "none")) == 0
    doc = json.loads((files / "out.json").read_text())
    assert all(
        m["small_groups"] == [] and m["min_group_size"] is None
        for m in list(doc["results"].values())
    )
    assert doc["settings"]["min_group_size"] is None


def test_min_group_size_sets_the_threshold(files):
    assert main(_run(files, "--min-group-size", "5")) == 0
    doc = json.loads((files / "out.json").read_text())
    assert all(
        m["small_groups"] == [] and m["min_group_size"] == 5 for m in list(doc["results"].values())
    )


def test_a_negative_min_group_size_is_refused(files, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(_run(files, "--min-group-size", "-1"))
    assert exit_info.value.code == EXIT_USAGE
    assert "--min-group-size" in capsys.readouterr().err


def test_load_result_reads_the_sizes_back_from_the_json(files):
    from biasamp import load_result

    assert main(_run(files)) == 0
    loaded = load_result(files / "out.json")
    for key in ("mals", "directional-a2t", "directional-t2a"):
        sizes = loaded[key].group_sizes
        assert sizes.loc["b", "evaluation"] == 10 and sizes.loc["a", "train"] == 40
        assert loaded[key].small_groups == ("b",) and loaded[key].min_group_size == 30

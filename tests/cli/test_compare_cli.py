"""``biasamp compare``: saved results and CLI JSON files side by side."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import biasamp
from biasamp.cli.compare import ERR_NAMES
from biasamp.cli.main import main

from .conftest import XSS_GROUP


@pytest.fixture
def saved(tmp_path):
    rng = np.random.default_rng(2)
    groups = rng.choice([XSS_GROUP, "w"], 300)
    tasks = rng.choice(["a", "b", "c"], 300)
    results = {}
    for e in range(3):
        pred = np.where(rng.random(300) < 0.15 * (e + 1), np.where(groups == "w", "a", "b"), tasks)
        result = biasamp.directional(
            direction="A->T", groups=groups, tasks=tasks, tasks_pred=pred, n_boot=30, random_state=0
        )
        result.save(tmp_path / f"ep{e}.json")
        results[f"ep{e}"] = result
    pd.DataFrame(
        {"model": ["1", "2", "3"], "epoch": [1, 2, 3], "accuracy": [0.9, 0.8, 0.7]}
    ).to_csv(tmp_path / "perf.csv", index=False)
    return tmp_path, results


def test_compare_writes_the_table_and_the_page(saved, capsys):
    folder, results = saved
    files = [str(folder / f"ep{e}.json") for e in range(3)]
    names = ["--name", "1", "--name", "2", "--name", "3"]
    html, out = folder / "c.html", folder / "c.json"
    code = main(
        ["compare", *files, *names, "--performance", str(folder / "perf.csv"), "--x", "epoch"]
        + ["--html", str(html), "--json", str(out), "--title", "<b>runs</b>"]
    )
    assert code == 0
    table = biasamp.load_result(out)
    want = biasamp.compare(
        dict(zip(["1", "2", "3"], results.values(), strict=True)),
        performance={str(e): {"epoch": e, "accuracy": 1 - e / 10} for e in (1, 2, 3)},
    )
    pd.testing.assert_frame_equal(pd.DataFrame(table), pd.DataFrame(want))
    page = html.read_text(encoding="utf-8")
    assert "&lt;b&gt;runs&lt;/b&gt;" in page and "<script" not in page
    assert page.count('<img class="figure"') == 2  # trajectory by epoch, scatter vs accuracy
    printed = capsys.readouterr().out
    assert "directional-a2t" in printed and f"{results['ep1'].value:+.4f}"[1:] in printed


def test_names_come_from_the_files(saved):
    folder, results = saved
    out = folder / "c.json"
    assert (
        main(["compare", str(folder / "ep0.json"), str(folder / "ep2.json"), "--json", str(out)])
        == 0
    )
    assert biasamp.load_result(out)["model"].tolist() == ["ep0", "ep2"]


def test_bad_names_exit_2(saved, capsys):
    folder, _ = saved
    files = [str(folder / "ep0.json"), str(folder / "ep1.json")]
    assert main(["compare", *files, "--name", "x"]) == 2
    assert ERR_NAMES.format(names=1, files=2) in capsys.readouterr().err.replace("\n", "")
    assert main(["compare", *files, "--name", "x", "--name", "x"]) == 2
    err = capsys.readouterr().err.replace("\n", "")
    assert "give the same model name 'x'" in err
    assert main(["compare", files[0], "--json", files[0]]) == 2  # an input is not an output


def test_cli_json_files_compare_by_metric_key(indicator_report):
    doc = json.loads(indicator_report["json"].read_text(encoding="utf-8"))
    keys = [m["key"] for m in list(doc["results"].values())]
    table = biasamp.compare({"a": indicator_report["json"], "b": indicator_report["json"]})
    assert table["metric"].tolist() == keys * 2  # threshold sweeps left out
    assert table["value"].tolist() == [m["value"] for m in list(doc["results"].values())] * 2


def test_a_performance_file_without_a_model_column_exits_2_naming_it(saved, capsys):
    """It exited 3, "internal error" (a KeyError), for an input problem."""
    from biasamp.cli.compare import ERR_PERF_FILE, ERR_PERF_MODEL_COLUMN

    folder, _ = saved
    files = [str(folder / f"ep{e}.json") for e in range(3)]
    names = ["--name", "1", "--name", "2", "--name", "3"]
    perf = folder / "no_model.csv"
    pd.DataFrame({"name": ["1", "2", "3"], "epoch": [1, 2, 3]}).to_csv(perf, index=False)
    capsys.readouterr()
    assert main(["compare", *files, *names, "--performance", str(perf)]) == 2
    err = " ".join(capsys.readouterr().err.split())
    expected = ERR_PERF_MODEL_COLUMN.format(file=perf, columns="'name', 'epoch'")
    assert err == "error: " + " ".join(expected.split())
    empty = folder / "empty.csv"
    empty.write_text("")
    assert main(["compare", *files, *names, "--performance", str(empty)]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert err.startswith("error: " + ERR_PERF_FILE.format(file=empty, detail="").split("(")[0])


def test_the_terminal_table_has_each_interval(saved, capsys):
    folder, results = saved
    files = [str(folder / f"ep{e}.json") for e in range(3)]
    assert main(["compare", *files, "--performance", str(folder / "perf.csv"),
                 "--name", "1", "--name", "2", "--name", "3"]) == 0  # fmt: skip
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["directional-a2t", "epoch", "accuracy"]
    for line, result in zip(lines[1:], results.values(), strict=True):
        low, high = result.ci
        cell = f"{result.value:+.4f} [{low:+.4f}, {high:+.4f}]"
        assert cell in line, (cell, line)
    # a result without an interval shows its value alone
    plain = biasamp.directional(direction="A->T", groups=["m", "w"] * 20,
                                tasks=["a", "b", "b", "a"] * 10, tasks_pred=["a", "b"] * 20,
                                min_group_size=None)  # fmt: skip
    plain.save(folder / "plain.json")
    assert main(["compare", str(folder / "plain.json")]) == 0
    row = capsys.readouterr().out.splitlines()[1]
    assert row.split() == ["plain", f"{plain.value:+.4f}"]

"""``biasamp captions``: every model side by side, JSON and HTML, errors naming file and column."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pytest

import biasamp
from biasamp.cli.captions import ERR_NO_HUMAN_COLS
from biasamp.cli.main import main
from biasamp.datasets import load_coco_captions, load_coco_gender
from biasamp.text import caption_bias_table
from biasamp.text._caption_bias import METRICS


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("captions")
    truth = load_coco_gender("test").iloc[:1500]
    captions = load_coco_captions("test").iloc[:1500]
    truth.merge(captions, on="image_id").to_csv(root / "data.csv", index=False)
    load_coco_gender("val").to_parquet(root / "train.parquet")
    return {"root": root, "data": root / "data.csv", "train": root / "train.parquet"}


def test_models_side_by_side_json_and_html(files, capsys) -> None:
    out, html = files["root"] / "out.json", files["root"] / "report.html"
    code = main([
        "captions", str(files["data"]), "--group", "gender", "--id", "image_id",
        "--caption-cols", "baseline_ft,equalizer", "--train", str(files["train"]),
        "--json", str(out), "--html", str(html),
    ])  # fmt: skip
    assert code == 0
    printed = capsys.readouterr().out
    assert "baseline_ft" in printed and "equalizer" in printed
    document = json.loads(out.read_text(encoding="utf-8"))
    assert document["schema"] == "biasamp-captions"
    assert [row["model"] for row in document["table"]] == ["baseline_ft", "equalizer"]
    # The same numbers as the library call (task columns: every numeric column but the id).
    data, train = pd.read_csv(files["data"]), pd.read_parquet(files["train"])
    objects = [c for c in load_coco_gender("val").columns if c not in ("image_id", "gender")]
    table, _ = caption_bias_table(
        data[["baseline_ft", "equalizer"]], groups=data["gender"], tasks=data[objects],
        groups_train=train["gender"], tasks_train=train[objects],
    )  # fmt: skip
    for row, expected in zip(document["table"], table.to_dict(orient="records"), strict=True):
        for key in ("one_group", "no_group", "conflict", *METRICS):
            assert row[key] == pytest.approx(expected[key])
        assert row["directional-t2a ci_low"] is None  # no --n-boot: JSON null (not NaN)
    assert set(document["models"]["equalizer"]["results"]) == set(METRICS)
    page = html.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>")
    # each model's parse counts and gender accuracy open its section, beside its metrics
    for row in document["table"]:
        section = page.split(f'<h3 class="model">{row["model"]}</h3>', 1)[1].split("<h3>", 1)[0]
        cells = [str(row["one_group"]), str(row["no_group"]), str(row["conflict"]),
                 f"{row['group_accuracy']:.4f}"]  # fmt: skip
        found = re.findall(r"<td[^>]*>([^<]*)</td>", section)
        assert found[1:5] == cells
        assert "<dt>group accuracy</dt>" in section


def test_bootstrap_and_metric_choice(files, capsys) -> None:
    out = files["root"] / "boot.json"
    code = main([
        "captions", str(files["data"]), "--group", "gender", "--id", "image_id",
        "--caption-cols", "upweight", "--metric", "A->T", "--n-boot", "50", "--seed", "1",
        "--json", str(out),
    ])  # fmt: skip
    assert code == 0
    row = json.loads(out.read_text(encoding="utf-8"))["table"][0]
    key = "directional-a2t"  # the old spelling "A->T" is an alias
    assert row[f"{key} ci_low"] <= row[key] <= row[f"{key} ci_high"]
    assert "directional-t2a" not in row


def test_errors_name_the_file_and_column(files, capsys) -> None:
    code = main([
        "captions", str(files["data"]), "--group", "sex", "--caption-cols", "equalizer",
    ])  # fmt: skip
    assert code == 2
    err = capsys.readouterr().err
    assert "data.csv: no column(s) ['sex']" in " ".join(err.split())
    code = main([
        "captions", str(files["data"]), "--group", "gender", "--caption-cols", "equalizer",
        "--json", str(files["data"]),
    ])  # fmt: skip
    assert code == 2
    assert "--json" in capsys.readouterr().err


def test_help_has_examples(capsys) -> None:
    with pytest.raises(SystemExit) as info:
        main(["captions", "--help"])
    assert info.value.code == 0
    text = capsys.readouterr().out
    assert "Examples:" in text and "biasamp captions" in text


def test_dbac_columns_with_human_captions(tmp_path, capsys) -> None:
    from biasamp.datasets import load_coco_human_captions
    from biasamp.text import dbac_both

    human = load_coco_human_captions("test")
    data = human.merge(load_coco_gender("test"), on="image_id").merge(
        load_coco_captions("test")[["image_id", "equalizer"]], on="image_id"
    )
    path, out = tmp_path / "human.csv", tmp_path / "dbac.json"
    data.to_csv(path, index=False)
    columns = [f"human_{i}" for i in range(1, 6)]
    code = main([
        "captions", str(path), "--group", "gender", "--id", "image_id",
        "--caption-cols", "equalizer", "--human-cols", ",".join(columns),
        "--metric", "dbac-t2a", "--metric", "dbac-a2t", "--metric", "T->A",
        "--dbac-iter", "2", "--seed", "3", "--json", str(out), "--html", str(tmp_path / "r.html"),
    ])  # fmt: skip
    assert code == 0
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert '<h3 class="model">equalizer</h3>' in page and "DBAC T-&gt;A" in page
    row = json.loads(out.read_text(encoding="utf-8"))["table"][0]
    expected = dbac_both(captions_human=data[columns].to_numpy().tolist(),
                         captions_model=data["equalizer"], groups=data["gender"], n_iter=2,
                         random_state=3)  # fmt: skip
    for name in ("dbac-a2t", "dbac-t2a"):
        assert row[name] == pytest.approx(expected[name].value, abs=1e-12)
        assert row[f"{name} ci_low"] == pytest.approx(expected[name].ci[0])
    capsys.readouterr()
    code = main([
        "captions", str(path), "--group", "gender", "--caption-cols", "equalizer",
        "--metric", "dbac-t2a",
    ])  # fmt: skip
    assert code != 0
    assert "--human-cols" in capsys.readouterr().err
    code = main([
        "captions", str(path), "--group", "gender", "--caption-cols", "equalizer",
        "--id", "image_id", "--human-cols", "human_1", "--metric", "dbac-t2a",
        "--dbac-iter", "2", "--html", str(tmp_path / "x.html"),
    ])  # fmt: skip
    assert code == 0  # the report draws DBAC alone too (its attacker scores per split)
    assert "DBAC T-&gt;A" in (tmp_path / "x.html").read_text(encoding="utf-8")


def test_measure_names_and_old_spellings_name_the_same_metrics(files, capsys) -> None:
    runs = {}
    for spelling in ("directional-t2a", "T->A", "t2a"):
        out = files["root"] / f"metric-{spelling.replace('>', '')}.json"
        code = main([
            "captions", str(files["data"]), "--group", "gender", "--id", "image_id",
            "--caption-cols", "equalizer", "--metric", spelling, "--metric", "MALS",
            "--json", str(out),
        ])  # fmt: skip
        assert code == 0
        runs[spelling] = json.loads(out.read_text(encoding="utf-8"))["table"][0]
    assert runs["T->A"] == runs["directional-t2a"] == runs["t2a"]
    assert {"directional-t2a", "mals"} <= set(runs["T->A"]) and "directional-a2t" not in runs[
        "T->A"
    ]
    with pytest.raises(SystemExit) as info:
        main([
            "captions", str(files["data"]), "--group", "gender", "--caption-cols", "equalizer",
            "--metric", "dpa-t2a",
        ])  # fmt: skip
    assert info.value.code == 2
    err = " ".join(capsys.readouterr().err.split())
    assert (
        "argument --metric: unknown metric 'dpa-t2a'; choose from directional-t2a, "
        "directional-a2t, mals, dbac-a2t, dbac-t2a, lic." in err
    )


def test_help_names_metrics_that_need_no_shell_quoting(capsys) -> None:
    with pytest.raises(SystemExit):
        main(["captions", "--help"])
    text = capsys.readouterr().out
    option = text[text.index("  --metric NAME") : text.index("  --mask")]
    assert "directional-t2a, directional-a2t, mals" in " ".join(option.split())
    assert "->" not in option


def test_load_result_reads_the_json_back_equal(files, capsys) -> None:
    out = files["root"] / "load.json"
    code = main([
        "captions", str(files["data"]), "--group", "gender", "--id", "image_id",
        "--caption-cols", "baseline_ft,equalizer", "--train", str(files["train"]),
        "--n-boot", "20", "--seed", "3", "--json", str(out),
    ])  # fmt: skip
    assert code == 0
    loaded = biasamp.load_result(out)
    assert list(loaded) == ["baseline_ft", "equalizer"]
    data, train = pd.read_csv(files["data"]), pd.read_parquet(files["train"])
    objects = [c for c in load_coco_gender("val").columns if c not in ("image_id", "gender")]
    _, expected = caption_bias_table(
        data[["baseline_ft", "equalizer"]], groups=data["gender"], tasks=data[objects],
        groups_train=train["gender"], tasks_train=train[objects], n_boot=20, random_state=3,
    )  # fmt: skip
    for model, result in loaded.items():
        assert isinstance(result, biasamp.CaptionBiasResult)
        assert result == expected[model]
        assert result["T->A"].value == expected[model]["directional-t2a"].value
    table = biasamp.compare(loaded)
    assert table["model"].tolist() == ["baseline_ft"] * 3 + ["equalizer"] * 3
    assert table["metric"].tolist() == list(METRICS) * 2
    row = table[(table["model"] == "equalizer") & (table["metric"] == "mals")].iloc[0]
    assert row["value"] == expected["equalizer"]["mals"].value
    assert row["group_accuracy"] == expected["equalizer"].group_accuracy


@pytest.fixture()
def small(tmp_path) -> Path:
    """Eight images with an integer image_id, two tasks and one model's captions."""
    frame = pd.DataFrame(
        {
            "image_id": [101, 102, 103, 104, 105, 106, 107, 108],
            "gender": ["man", "woman"] * 4,
            "dog": [1, 0, 1, 1, 0, 0, 1, 0],
            "skis": [0, 1, 1, 0, 1, 1, 0, 0],
            "model": [
                "a man with a dog", "a woman on skis", "a man with a dog on skis",
                "a woman with a dog", "a man on skis", "a woman on skis", "a man with a dog",
                "a woman in a room",
            ],
        }
    )  # fmt: skip
    frame.to_csv(tmp_path / "data.csv", index=False)
    return tmp_path / "data.csv"


def test_an_id_column_is_not_read_as_a_task(small, capsys) -> None:
    from biasamp.cli.captions import ERR_ID_AS_TASK

    base = ["captions", str(small), "--group", "gender", "--caption-cols", "model"]
    assert main(base) == 2
    err = " ".join(capsys.readouterr().err.split())
    expected = ERR_ID_AS_TASK.format(
        path=str(small), column="image_id", why="a different whole number in each row"
    )
    assert " ".join(expected.split()) in err and "--id image_id" in err
    assert main([*base, "--id", "image_id"]) == 0
    capsys.readouterr()
    # --task-cols names the tasks: no guess to make
    assert main([*base, "--task-cols", "dog,skis"]) == 0
    capsys.readouterr()
    # named like an id but repeated: still refused, for its name
    frame = pd.read_csv(small).rename(columns={"image_id": "photo_id"})
    frame["photo_id"] = [7, 7, 8, 8, 9, 9, 10, 10]
    frame.to_csv(small, index=False)
    assert main(base) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "'photo_id' looks like an id (named like an id" in err and "--id photo_id" in err


def test_fail_above_works_as_in_measure(small, capsys) -> None:
    base = ["captions", str(small), "--group", "gender", "--caption-cols", "model"]
    base += ["--id", "image_id"]
    out = small.parent / "gates.json"
    code = main([*base, "--fail-above", "directional-t2a=-5", "--fail-above", "T->A=5",
                 "--json", str(out)])  # fmt: skip
    assert code == 1
    printed = capsys.readouterr().out
    # the gate is named by the model and its result's key, and holds the library's value
    from biasamp.registry import metric_name

    frame = pd.read_csv(small)
    _, results = caption_bias_table(
        frame[["model"]], groups=frame["gender"], tasks=frame[["dog", "skis"]]
    )
    key = next(k for k in results["model"].results if metric_name(k) == "directional-t2a")
    value = results["model"].results[key].value
    assert f"gate model {key} <= -5: FAILED (value {value:+.4f})" in printed
    assert f"gate model {key} <= 5: passed (value {value:+.4f})" in printed
    document = json.loads(out.read_text(encoding="utf-8"))
    assert document["gates"] == [
        {"metric": f"model {key}", "bound": -5.0, "value": pytest.approx(value), "passed": False},
        {"metric": f"model {key}", "bound": 5.0, "value": pytest.approx(value), "passed": True},
    ]
    assert main([*base, "--fail-above", "mals=5"]) == 0
    capsys.readouterr()
    # a metric that is not computed, or a bad bound: usage errors (exit 2), before any work
    assert main([*base, "--metric", "A->T", "--fail-above", "mals=0.1"]) == 2
    assert "--fail-above: mals is not computed here" in capsys.readouterr().err
    with pytest.raises(SystemExit) as info:
        main([*base, "--fail-above", "mals"])
    assert info.value.code == 2
    assert "--fail-above: expected METRIC=VALUE" in capsys.readouterr().err


def test_help_lists_fail_above(capsys) -> None:
    with pytest.raises(SystemExit):
        main(["captions", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "--fail-above METRIC=VALUE" in text and "exit code 1" in text


def test_a_caption_column_given_twice_is_named(files, capsys) -> None:
    from biasamp.cli.arguments import ERR_COLUMN_TWICE

    with pytest.raises(SystemExit) as info:  # was "expected ... captions, got a 2-D table"
        main(["captions", str(files["data"]), "--group", "gender", "--caption-cols",
              "equalizer,equalizer"])  # fmt: skip
    assert info.value.code == 2
    err = " ".join(capsys.readouterr().err.split())
    assert f"argument --caption-cols: {ERR_COLUMN_TWICE.format(column='equalizer')}" in err


def test_lic_is_a_caption_metric_of_the_command(tmp_path, capsys) -> None:
    from biasamp.datasets import load_coco_human_captions

    human = load_coco_human_captions("test").iloc[:600]
    data = human.merge(load_coco_gender("test"), on="image_id").merge(
        load_coco_captions("test")[["image_id", "equalizer"]], on="image_id"
    )
    path, out = tmp_path / "human.csv", tmp_path / "lic.json"
    data.to_csv(path, index=False)
    columns = [f"human_{i}" for i in range(1, 3)]
    code = main([
        "captions", str(path), "--group", "gender", "--id", "image_id",
        "--caption-cols", "equalizer", "--human-cols", ",".join(columns),
        "--metric", "lic", "--metric", "LIC", "--dbac-iter", "2", "--seed", "3",
        "--json", str(out), "--fail-above", "lic=1",
    ])  # fmt: skip
    assert code == 0
    document = json.loads(out.read_text(encoding="utf-8"))
    row = document["table"][0]
    expected = biasamp.lic(captions_human=data[columns].to_numpy().tolist(),
                           captions_model=data["equalizer"], groups=data["gender"], n_iter=2,
                           random_state=3)  # fmt: skip
    assert row["lic"] == pytest.approx(expected.value, abs=1e-12)
    assert row["lic ci_low"] == pytest.approx(expected.ci[0])
    assert [g["metric"] for g in document["gates"]] == ["equalizer lic"]
    # LIC compares with human captions: without them the command says so, naming the flag
    code = main(["captions", str(path), "--group", "gender", "--id", "image_id",
                 "--caption-cols", "equalizer", "--metric", "lic"])  # fmt: skip
    assert code == 2
    err = " ".join(capsys.readouterr().err.split())
    assert ERR_NO_HUMAN_COLS.format(metrics="lic") in err
    # the library: the same metric by its registry name
    result = biasamp.caption_bias_amplification(
        captions=data["equalizer"], groups=data["gender"],
        tasks=data[[c for c in load_coco_gender("test").columns if c not in ("image_id", "gender")]],
        captions_human=data[columns].to_numpy().tolist(), metrics="lic", random_state=3,
        lic_params={"n_iter": 2},
    )  # fmt: skip
    assert result["lic"].value == pytest.approx(expected.value, abs=1e-12)

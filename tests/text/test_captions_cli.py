"""``biasamp captions``: every model side by side, JSON and HTML, errors naming file and column."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from biasamp.cli.main import main
from biasamp.datasets import load_coco_captions, load_coco_gender
from biasamp.text import caption_bias_table


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
        for key in ("one_group", "no_group", "conflict", "T->A", "A->T", "MALS"):
            assert row[key] == pytest.approx(expected[key])
        assert row["T->A ci_low"] is None  # no --n-boot: no interval, JSON null (not NaN)
    assert set(document["models"]["equalizer"]["results"]) == {"T->A", "A->T", "MALS"}
    page = html.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>")
    assert "equalizer T-&gt;A" in page or "equalizer T->A" in page
    assert "captions with one group / none / two" in page


def test_bootstrap_and_metric_choice(files, capsys) -> None:
    out = files["root"] / "boot.json"
    code = main([
        "captions", str(files["data"]), "--group", "gender", "--id", "image_id",
        "--caption-cols", "upweight", "--metric", "A->T", "--n-boot", "50", "--seed", "1",
        "--json", str(out),
    ])  # fmt: skip
    assert code == 0
    row = json.loads(out.read_text(encoding="utf-8"))["table"][0]
    assert row["A->T ci_low"] <= row["A->T"] <= row["A->T ci_high"]
    assert "T->A" not in row


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


def test_a_caption_column_given_twice_is_named(files, capsys) -> None:
    from biasamp.cli.arguments import ERR_COLUMN_TWICE

    with pytest.raises(SystemExit) as info:  # was "expected ... captions, got a 2-D table"
        main(["captions", str(files["data"]), "--group", "gender", "--caption-cols",
              "equalizer,equalizer"])  # fmt: skip
    assert info.value.code == 2
    err = " ".join(capsys.readouterr().err.split())
    assert f"argument --caption-cols: {ERR_COLUMN_TWICE.format(column='equalizer')}" in err

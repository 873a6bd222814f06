"""One document: ``result.save()`` and the command line's ``--json`` open with one envelope.

Both start with ``schema``, ``schema_version``, ``biasamp_version``, ``metrics`` (the
registry's canonical names) and ``settings`` with ``random_state`` (never ``seed``),
written by one function (:func:`biasamp.results._persist.envelope`); ``load_result``
reads both, and the files of earlier versions (saved version 1; command line version
2 with ``seed`` and the family under ``metric``; version 1) give the same results.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

import biasamp
from biasamp.cli.main import main
from biasamp.registry import METRICS
from biasamp.results._persist import ENVELOPE_KEYS, envelope

from .test_load_fuzz import _saved_version_1, _version_1, _version_2

RNG = np.random.default_rng(8)
N = 120


def _files(folder: Path) -> Path:
    frame = pd.DataFrame({"gender": RNG.choice(["m", "w"], N, p=[0.6, 0.4])})
    for task in ("ski", "cook"):
        frame[task] = (RNG.random(N) < 0.4).astype(int)
        frame[f"pred_{task}"] = np.where(RNG.random(N) < 0.8, frame[task], 1 - frame[task])
    frame["pred_gender"] = np.where(RNG.random(N) < 0.8, frame["gender"], "m")
    frame.to_csv(folder / "data.csv", index=False)
    return folder / "data.csv"


def _keys(value: Any) -> set[str]:
    """Every key of a JSON document, at any depth."""
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in _keys(v)}
    if isinstance(value, list):
        return {k for v in value for k in _keys(v)}
    return set()


@pytest.fixture(scope="module")
def documents(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    folder = tmp_path_factory.mktemp("envelope")
    data = _files(folder)
    args = ["measure", str(data), "--train", str(data), "--group", "gender",
            "--task-cols", "ski,cook", "--pred-prefix", "pred_", "--metric", "mals",
            "--metric", "t2a", "--n-boot", "20", "--seed", "7", "--min-group-size", "0"]  # fmt: skip
    assert main([*args, "--json", str(folder / "cli.json")]) == 0
    audit = biasamp.audit(
        data, train=data, group="gender", task_cols=["ski", "cook"], pred_prefix="pred_",
        metrics=["mals", "directional-t2a"], n_boot=20, random_state=7, min_group_size=0,
    )  # fmt: skip
    result = audit["directional-t2a"]
    return {
        "folder": folder,
        "audit": audit,
        "cli": json.loads((folder / "cli.json").read_text(encoding="utf-8")),
        "saved_audit": json.loads(audit.save(folder / "a.json").read_text(encoding="utf-8")),
        "saved": json.loads(result.save(folder / "r.json").read_text(encoding="utf-8")),
    }


def test_save_and_json_open_with_the_same_envelope(documents):
    cli, saved, saved_audit = documents["cli"], documents["saved"], documents["saved_audit"]
    for doc in (cli, saved, saved_audit):
        assert list(doc)[: len(ENVELOPE_KEYS)] == list(ENVELOPE_KEYS)
        assert doc["biasamp_version"] == biasamp.__version__
        assert set(doc["metrics"]) <= set(METRICS)
        assert "seed" not in _keys(doc)
    assert cli["metrics"] == saved_audit["metrics"] == ["mals", "directional-t2a"]
    assert saved["metrics"] == ["directional-t2a"]
    # the audit's settings are the command's: random_state is --seed
    assert cli["settings"]["random_state"] == saved_audit["settings"]["random_state"] == 7
    assert "random_state" in saved["settings"]
    for key, record in cli["results"].items():
        assert record["metric"] == record["key"] == key
        assert record["family"] == METRICS[key].family
        assert record["random_state"] == 7 and record["n_boot"] == 20


def test_the_envelope_is_one_function():
    doc = envelope("x", 1, metrics=("mals",), settings={"seed": 3, "n": np.int64(2)})
    assert doc == {
        "schema": "x",
        "schema_version": 1,
        "biasamp_version": biasamp.__version__,
        "metrics": ["mals"],
        "settings": {"n": 2, "random_state": 3},  # the old spelling read as random_state
    }
    both = envelope("x", 1, settings={"seed": 3, "random_state": 4, "ci": float("nan")})
    assert both["settings"] == {"random_state": 4, "ci": None}
    assert (
        envelope("x", 1)["settings"] == {"random_state": None} and envelope("x", 1)["metrics"] == []
    )


def test_both_envelopes_load_back(documents):
    folder, audit = documents["folder"], documents["audit"]
    from_cli = biasamp.load_result(folder / "cli.json")
    assert from_cli == audit  # the command line's audit equals the library's
    assert biasamp.load_result(folder / "a.json") == audit
    loaded = biasamp.load_result(folder / "r.json")
    assert loaded == audit["directional-t2a"] and loaded.metric == "directional-t2a"
    assert loaded.family == "directional"


def _write(doc: dict[str, Any], path: Path) -> Path:
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def test_files_of_earlier_versions_give_the_same_results(documents):
    folder, audit, cli = documents["folder"], documents["audit"], documents["cli"]
    # the command line's version 2: seed, the family under metric, no envelope metrics
    v2 = _version_2(cli)
    assert "seed" in _keys(v2) and v2["results"]["mals"]["metric"] == "mals"
    assert v2["results"]["directional-t2a"]["metric"] == "directional"
    old = biasamp.load_result(_write(v2, folder / "v2.json"))
    assert old == audit and old.to_dict() == biasamp.load_result(folder / "cli.json").to_dict()
    assert old.document["results"]["directional-t2a"]["random_state"] == 7
    assert [r.metric for r in old.results.values()] == ["mals", "directional-t2a"]
    # version 1: a list of records
    v1 = biasamp.load_result(_write(_version_1(cli), folder / "v1.json"))
    assert {k: r.metric for k, r in v1.items()} == {
        "mals": "mals",
        "directional-t2a": "directional-t2a",
    }
    assert v1["directional-t2a"].value == audit["directional-t2a"].value
    # a saved result of version 1 (no metrics, no settings; the family under metric)
    saved = _saved_version_1(documents["saved"])
    saved["result"]["metric"] = "directional"
    loaded = biasamp.load_result(_write(saved, folder / "saved-v1.json"))
    assert loaded == audit["directional-t2a"] and loaded.metric == "directional-t2a"


def test_a_newer_command_line_document_is_refused(documents):
    newer = dict(documents["cli"], schema_version=4)
    with pytest.raises(ValueError, match="newer biasamp"):
        biasamp.load_result(_write(newer, documents["folder"] / "v4.json"))

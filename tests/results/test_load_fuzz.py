"""Fuzzing ``biasamp.load_result`` with edits of valid files (hypothesis).

Every saved result type and a command-line ``--json`` document are saved once;
hypothesis then edits them: values replaced by values of another type (strings,
huge and negative integers, floats, null, lists, objects), keys deleted, keys
added (``_mgr``, ``__type__``, ...), list items dropped or repeated, type tags and
class names swapped, sizes made negative or huge, values nested thousands of levels
deep. Loading an edited file either gives a result that prints, converts with
``to_dict()`` and compares equal to itself, or raises ``ValueError`` / ``TypeError``
whose message names the file. Nothing else (``KeyError``, ``AttributeError``,
``RecursionError``, a hang) is allowed.
"""

from __future__ import annotations

import copy
import json
import warnings
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import biasamp
from biasamp.results._persist import registered_results

RNG = np.random.default_rng(5)
N = 40
TASKS = ["cup", "ski", "fork"]
G_TRAIN = RNG.choice(["man", "woman"], N)
T_TRAIN = pd.DataFrame((RNG.random((N, 3)) < 0.4).astype(int), columns=TASKS)
G_PRED = RNG.choice(["man", "woman"], N)
T_PRED = pd.DataFrame((RNG.random((N, 3)) < 0.4).astype(int), columns=TASKS)
DEEP = "__deeply_nested__"
TAGS = ["float", "tuple", "dict", "ndarray", "series", "frame", "index", "range_index", "result"]


def _results() -> dict[str, Any]:
    kw = {"groups_train": G_TRAIN, "tasks_train": T_TRAIN, "groups_pred": G_PRED}
    mals = biasamp.mals(**kw, tasks_pred=T_PRED, n_boot=5, random_state=0)
    multi = biasamp.multi_directional(
        direction="G->M", groups=G_TRAIN, tasks=T_TRAIN, tasks_pred=T_PRED, **kw
    )
    dpa = biasamp.dpa(
        direction="T->A",
        groups=G_TRAIN,
        tasks=T_TRAIN,
        groups_pred=G_PRED,
        n_iter=2,
        random_state=0,
    )
    scores = pd.DataFrame(RNG.random((N, 3)), columns=TASKS)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rba = biasamp.rba(
            (RNG.normal(size=(N, 2)), RNG.normal(size=(N, 2, 3, 2))),
            structure="multilabel",
            groups_train=G_TRAIN,
            tasks_train=T_TRAIN,
            max_iter=3,
        )
    return {
        "pairwise": mals,
        "multi_attribute": multi,
        "predictability": dpa,
        "runs_summary": biasamp.across_runs([mals, mals]),
        "threshold_calibration": biasamp.calibrate_thresholds(scores, labels_val=T_TRAIN),
        "threshold_sweep": biasamp.threshold_sweep(
            biasamp.mals, thresholds=[0.3, 0.6], tasks_scores=scores, **kw
        ),
        "rba": rba,
        "oversampling": biasamp.oversample(G_TRAIN, tasks=T_TRAIN, random_state=0),
        "mitigation_comparison": biasamp.compare_mitigations(
            {"model": {"groups_pred": G_PRED, "tasks_pred": T_PRED}},
            groups_train=G_TRAIN,
            tasks_train=T_TRAIN,
            groups=G_TRAIN,
            tasks=T_TRAIN,
            metrics=["group accuracy", "BiasAmp_MALS"],
        ),
    }


def _cli_document(folder: Path) -> dict[str, Any]:
    from biasamp.cli.main import main

    frame = pd.DataFrame({"gender": G_TRAIN, "pred_gender": G_PRED})
    for task in TASKS:
        frame[task] = T_TRAIN[task]
        frame[f"pred_{task}"] = T_PRED[task]
    frame.to_csv(folder / "data.csv", index=False)
    args = ["measure", str(folder / "data.csv"), "--train", str(folder / "data.csv")]
    args += ["--group", "gender", "--task-cols", ",".join(TASKS), "--pred-prefix", "pred_"]
    for metric in ("mals", "t2a", "multi-mals", "dpa-t2a"):
        args += ["--metric", metric]
    assert main([*args, "--json", str(folder / "cli.json")]) == 0
    return json.loads((folder / "cli.json").read_text(encoding="utf-8"))


@cache
def documents() -> dict[str, Any]:
    import tempfile

    folder = Path(tempfile.mkdtemp(prefix="biasamp-fuzz-"))
    out = {}
    for kind, result in _results().items():
        path = result.save(folder / f"{kind}.json")
        out[kind] = json.loads(path.read_text(encoding="utf-8"))
    out["cli"] = _cli_document(folder)
    return out


def test_every_result_type_is_fuzzed():
    assert set(registered_results()) <= set(documents())


def _paths(doc: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path into the document (dict keys and list positions)."""
    out = [prefix]
    if isinstance(doc, dict):
        for k, v in doc.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(doc, list):
        for i, v in enumerate(doc[:6]):  # a few items of long lists
            out += _paths(v, (*prefix, i))
    return out


def _parent(doc: Any, path: tuple[Any, ...]) -> Any:
    for key in path[:-1]:
        doc = doc[key]
    return doc


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**6), 10**6)
    | st.sampled_from([-1, -(10**18), 10**18, 10**40, -(10**40), 2**63, 0])
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from([1e308, -1e308, 5e-324, 1e-310])
    | st.text(max_size=8)
    | st.sampled_from(TAGS + ["abc", "nan", "inf", "object", "float64", "<U1000000000", "V8"])
    | st.just(DEEP),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(["__type__", "data", "dtype", "x"]), inner, max_size=3)
    ),
    max_leaves=6,
)


def _edit(doc: Any, data: Any) -> None:
    paths = _paths(doc)
    path = data.draw(st.sampled_from(paths[1:]))
    parent, key = _parent(doc, path), path[-1]
    action = data.draw(
        st.sampled_from(["replace", "delete", "add", "repeat", "tag", "class", "negate", "grow"])
    )
    value = parent[key]
    if action == "replace":
        parent[key] = data.draw(json_values)
    elif action == "delete":
        del parent[key]
    elif action == "add":
        target = value if isinstance(value, dict) else parent
        if isinstance(target, dict):
            name = data.draw(st.sampled_from(["_mgr", "__type__", "extra", "dtype", "shape"]))
            target[name] = data.draw(json_values)
        else:
            target.append(data.draw(json_values))
    elif action == "repeat" and isinstance(parent, list):
        parent.insert(key, copy.deepcopy(value))
    elif action == "tag":
        target = value if isinstance(value, dict) else parent
        if isinstance(target, dict):
            target["__type__"] = data.draw(st.sampled_from(TAGS))
    elif action == "class":
        kinds = sorted(registered_results())
        doc["type"] = data.draw(st.sampled_from(kinds + ["pickle"]))
        doc["class"] = data.draw(
            st.sampled_from([c.__name__ for c in registered_results().values()] + ["Popen"])
        )
    elif action == "negate" and isinstance(value, (int, float)) and not isinstance(value, bool):
        parent[key] = -value - 1
    elif action == "grow" and isinstance(value, (int, float)) and not isinstance(value, bool):
        parent[key] = value * 10**18 + 10**18


def _write(doc: Any, path: Path) -> None:
    text = json.dumps(doc)
    text = text.replace(json.dumps(DEEP), "[" * 5000 + "]" * 5000)
    path.write_text(text, encoding="utf-8")


def _check_loads_or_refuses(path: Path) -> None:
    try:
        loaded = biasamp.load_result(path)
    except (ValueError, TypeError) as exc:
        assert str(path) in str(exc), exc
        return
    results = loaded.values() if isinstance(loaded, dict) else [loaded]
    for result in results:
        repr(result)
        if not isinstance(result, pd.DataFrame):
            result.to_dict()
            assert result == result


@settings(
    max_examples=400,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    kind=st.sampled_from(sorted(registered_results()) + ["cli"]),
    n_edits=st.integers(1, 3),
    data=st.data(),
)
def test_edited_files_load_or_are_refused_naming_the_file(tmp_path, kind, n_edits, data):
    doc = copy.deepcopy(documents()[kind])
    for _ in range(n_edits):
        _edit(doc, data)
    path = tmp_path / f"edited-{kind}.json"
    _write(doc, path)
    _check_loads_or_refuses(path)


@pytest.mark.parametrize("kind", sorted(registered_results()) + ["cli"])
def test_unedited_files_load(tmp_path, kind):
    path = tmp_path / f"{kind}.json"
    _write(documents()[kind], path)
    loaded = biasamp.load_result(path)
    if not isinstance(loaded, pd.DataFrame):
        assert loaded == biasamp.load_result(path)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "[]",
        "null",
        "1e999",
        '{"schema": "biasamp-saved-result", "schema_version": 1, "value": NaN}',
        "[" * 100000 + "]" * 100000,
        '{"schema": "biasamp-result", "schema_version": 1}',
        '{"schema": "biasamp-saved-result"}',
        '{"schema": "biasamp-saved-result", "schema_version": 1.5}',
    ],
)
def test_hand_written_files_are_refused_naming_the_file(tmp_path, text):
    path = tmp_path / "hand.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError, match="hand.json"):
        biasamp.load_result(path)

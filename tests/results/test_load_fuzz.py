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
    words = {"man": "man", "woman": "woman"}
    captions = [
        f"a {words[g]} with a " + " and a ".join([t for t in TASKS if row[t]] or ["dog"])
        for g, (_, row) in zip(G_PRED, T_PRED.iterrows(), strict=True)
    ]
    caption_bias = biasamp.caption_bias_amplification(
        captions=captions,
        groups=G_TRAIN,
        tasks=T_TRAIN,
        task_words=TASKS,
        metrics=("T->A", "MALS"),
        n_boot=5,
        random_state=0,
    )
    human = [f"a {words[g]} at a table" for g in G_TRAIN]
    lic = biasamp.lic(
        captions_human=human, captions_model=captions, groups=G_TRAIN, n_iter=2, random_state=0
    )
    dbac = biasamp.dbac(
        direction="T->A", captions_human=human, captions_model=captions, groups=G_TRAIN,
        n_iter=2, random_state=0,
    )  # fmt: skip
    comparison = biasamp.compare(
        {"epoch 1": mals, "epoch 2": biasamp.mals(**kw, tasks_pred=T_TRAIN)},
        performance={"epoch 1": {"accuracy": 0.5}, "epoch 2": {"accuracy": 1.0}},
    )
    fairness = biasamp.differential_fairness_amplification(
        groups=G_TRAIN,
        labels=T_TRAIN["cup"],
        labels_pred=T_PRED["cup"],
        min_group_size=None,
        n_boot=5,
        random_state=0,
    )
    retrieval = biasamp.retrieval_bias(
        scores=RNG.random((12, N)),
        groups=G_TRAIN,
        k=20,
        reference={"man": 0.4, "woman": 0.4, "other": 0.2},
        n_boot=5,
        random_state=0,
    )
    reference = pd.DataFrame({"man": [7, 2], "woman": [3, 8]}, index=["pilot", "nurse"])
    concepts = np.where(np.arange(N) % 2 == 0, "pilot", "nurse")
    generated = {
        "output_amplification": biasamp.output_amplification(
            concepts=concepts, groups=G_PRED, reference=reference, n_boot=5, random_state=0
        ),
        "bias_transfer": biasamp.bias_transfer(
            reference=pd.concat(
                [reference, pd.DataFrame({"man": [5], "woman": [5]}, index=["chef"])]
            ),
            outputs=pd.DataFrame(
                {"man": [9, 1, 4], "woman": [1, 9, 6]}, index=["pilot", "nurse", "chef"]
            ),
            group="woman",
            min_count=0,
        ),
        "share_trajectory": biasamp.share_trajectory(
            groups=G_PRED, steps=np.arange(N) % 3, n_boot=5, random_state=0
        ),
    }
    return {
        **generated,
        "retrieval_bias": retrieval,
        "differential_fairness": fairness,
        "model_comparison": comparison,
        "caption_bias": caption_bias,
        "lic": lic,
        "dbac": dbac,
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
    out["cli_v2"] = _version_2(out["cli"])
    out["cli_v1"] = _version_1(out["cli"])
    out["saved_v1"] = _saved_version_1(out["pairwise"])
    audit = biasamp.audit(
        folder / "data.csv",
        train=folder / "data.csv",
        group="gender",
        task_cols=TASKS,
        pred_prefix="pred_",
        metrics=["mals", "multi-mals"],
        n_boot=3,
    )
    out["audit"] = json.loads(audit.save(folder / "audit.json").read_text(encoding="utf-8"))
    return out


def _version_2(document: dict[str, Any]) -> dict[str, Any]:
    """The command line's document as version 2 wrote it: no ``metrics`` in the envelope,
    each record's family under ``metric`` and its random state under ``seed``."""
    old = copy.deepcopy(document)
    old["schema_version"] = 2
    del old["metrics"]
    for record in old["results"].values():
        record["seed"] = record.pop("random_state")
        record["metric"] = record.pop("family")
    return old


def _version_1(document: dict[str, Any]) -> dict[str, Any]:
    """The command line's document as version 1 wrote it (a ``metrics`` list)."""
    old = _version_2(document)
    old["schema_version"] = 1
    old["metrics"] = list(old.pop("results").values())
    return old


def _saved_version_1(document: dict[str, Any]) -> dict[str, Any]:
    """A saved result as version 1 wrote it: no envelope ``metrics`` and ``settings``."""
    old = {k: v for k, v in copy.deepcopy(document).items() if k not in ("metrics", "settings")}
    old["schema_version"] = 1
    return old


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
    kind=st.sampled_from(sorted(registered_results()) + ["cli", "cli_v2", "cli_v1", "saved_v1"]),
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


@pytest.mark.parametrize(
    "kind", sorted(registered_results()) + ["cli", "cli_v2", "cli_v1", "saved_v1"]
)
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


def _set(path: tuple[Any, ...], value: Any) -> Any:
    def edit(doc: Any) -> None:
        _parent(doc, path)[path[-1]] = value

    return edit


def _drop(path: tuple[Any, ...]) -> Any:
    def edit(doc: Any) -> None:
        del _parent(doc, path)[path[-1]]

    return edit


BY_PAIR = ("result", "by_pair")
HAND_EDITS = {
    "type is a dict": _set(("type",), {"a": 1}),
    "class is a list": _set(("class",), ["PairwiseResult"]),
    "result is a list": _set(("result",), []),
    "inputs is a string": _set(("inputs",), "x"),
    "version is a string": _set(("schema_version",), "1"),
    "version is true": _set(("schema_version",), True),
    "version is huge": _set(("schema_version",), 10**40),
    "no result": _drop(("result",)),
    "no by_pair": _drop((*BY_PAIR,)),
    "by_pair is null": _set(BY_PAIR, None),
    "by_pair is a number": _set(BY_PAIR, 3),
    "frame data is a dict": _set((*BY_PAIR, "data"), {"a": 1}),
    "frame column is a string": _set((*BY_PAIR, "data", 0), "abc"),
    "frame column too short": _set((*BY_PAIR, "data", 2), [0.5]),
    "dtype unknown": _set((*BY_PAIR, "dtypes", 2), "no-such-dtype"),
    "dtype void": _set((*BY_PAIR, "dtypes", 2), "V8"),
    "dtype int for floats": _set((*BY_PAIR, "dtypes", 2), "int64"),
    "dtype is a list": _set((*BY_PAIR, "dtypes", 2), ["float64"]),
    "columns index is a list": _set((*BY_PAIR, "columns"), ["group"]),
    "index step 0": _set((*BY_PAIR, "index", "step"), 0),
    "index start is a float": _set((*BY_PAIR, "index", "start"), 0.5),
    "index negative stop": _set((*BY_PAIR, "index", "stop"), -5),
    "index name is a list": _set((*BY_PAIR, "index", "name"), [1, 2]),
    "tag unknown": _set((*BY_PAIR, "__type__"), "pickle"),
    "tag is a number": _set((*BY_PAIR, "__type__"), 7),
    "replicates shape negative": _set(("result", "replicates", "shape"), [-5]),
    "replicates shape too big": _set(("result", "replicates", "shape"), [10**18]),
    "replicates shape a string": _set(("result", "replicates", "shape"), "abc"),
    "replicates dtype huge string": _set(("result", "replicates", "dtype"), "<U1000000000"),
    "replicates data with a string": _set(("result", "replicates", "data", 0), "x"),
    "replicates data huge int": _set(("result", "replicates", "data", 0), 10**400),
    "ci a list": _set(("result", "ci"), [0.1, 0.2]),
    "ci tuple of three": _set(("result", "ci"), {"__type__": "tuple", "items": [1.0, 2.0, 3.0]}),
    "ci tuple items missing": _set(("result", "ci"), {"__type__": "tuple"}),
    "float tag bad value": _set(("result", "value"), {"__type__": "float", "value": "1.5"}),
    "params a list": _set(("result", "params"), [1]),
    "params with unhashable dict key": _set(
        ("result", "params"), {"__type__": "dict", "items": [[[1], 2]]}
    ),
    "params dict items not pairs": _set(("result", "params"), {"__type__": "dict", "items": [1]}),
    "n_pairs a bool": _set(("result", "n_pairs"), True),
    "n_pairs huge": _set(("result", "n_pairs"), 10**40),
    "n is 1e400 as int": _set(("result", "n"), 10**400),
    "nested result unknown kind": _set(
        ("result", "extras"), {"x": {"__type__": "result", "kind": "x", "fields": {}}}
    ),
    "nested result fields a list": _set(
        ("result", "extras"), {"x": {"__type__": "result", "kind": "pairwise", "fields": []}}
    ),
    "nested result missing field": _set(
        ("result", "extras"), {"x": {"__type__": "result", "kind": "pairwise", "fields": {}}}
    ),
    "value a string": _set(("value",), "abc"),
    "extra top-level key": _set(("extra",), 1),
}


@pytest.mark.parametrize("name", sorted(HAND_EDITS))
def test_hand_written_edits_are_refused_naming_the_file(tmp_path, name):
    doc = copy.deepcopy(documents()["pairwise"])
    HAND_EDITS[name](doc)
    path = tmp_path / "edited.json"
    _write(doc, path)
    with pytest.raises(ValueError, match=r"edited\.json: "):
        biasamp.load_result(path)

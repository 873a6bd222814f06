"""Every registered result type works on every surface: ``save`` -> ``load_result`` gives
an equal object, ``plot()`` draws, and ``biasamp.compare`` takes it, one row per metric and
model, each metric named as in the registry.

The types come from the result registry, so a new type without a builder here fails
``test_every_registered_type_has_a_builder``.
"""

from __future__ import annotations

import json
import re
import tempfile
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

import biasamp  # noqa: E402
from biasamp.comparison._compare import _NO_METRIC, ERR_NO_METRIC, ROWS, SUB_MODEL  # noqa: E402
from biasamp.registry import METRICS, metric_card  # noqa: E402
from biasamp.results._persist import (  # noqa: E402
    ENVELOPE_KEYS,
    metrics_of,
    registered_results,
)

RNG = np.random.default_rng(11)
N = 160
G_TRAIN = RNG.choice(["man", "woman"], N, p=[0.6, 0.4])
T_TRAIN = pd.DataFrame((RNG.random((N, 3)) < 0.4).astype(int), columns=["cup", "ski", "dog"])
G = RNG.choice(["man", "woman"], N, p=[0.6, 0.4])
T = pd.DataFrame((RNG.random((N, 3)) < 0.4).astype(int), columns=list(T_TRAIN.columns))
G_PRED = np.where(RNG.random(N) < 0.8, G, np.where(G == "man", "woman", "man"))
T_PRED = T.where(RNG.random((N, 3)) < 0.8, 1 - T)
QUIET = {"min_group_size": None}


def _pairwise() -> Any:
    return biasamp.directional(
        direction="T->A", groups=G, tasks=T, groups_pred=G_PRED, groups_train=G_TRAIN,
        tasks_train=T_TRAIN, n_boot=20, random_state=0, **QUIET,
    )  # fmt: skip


def _mals() -> Any:
    return biasamp.mals(
        groups_train=G_TRAIN, tasks_train=T_TRAIN, groups_pred=G_PRED, tasks_pred=T_PRED, **QUIET
    )


def _differential_fairness() -> Any:
    return biasamp.differential_fairness_amplification(
        groups=G, labels=T["cup"], labels_pred=T_PRED["cup"], n_boot=20, random_state=0, **QUIET
    )


def _multi_attribute() -> Any:
    return biasamp.multi_directional(
        direction="A->T", groups=G, tasks=T, tasks_pred=T_PRED, groups_train=G_TRAIN,
        tasks_train=T_TRAIN, **QUIET,
    )  # fmt: skip


def _predictability() -> Any:
    return biasamp.dpa(
        groups=G, tasks=T, groups_pred=G_PRED, direction="T->A", n_iter=2, random_state=0, **QUIET
    )


CAPTIONS = ["a man riding skis", "a woman with a dog", "a man with a dog",
            "a person on skis", "a woman on skis", "a man with skis"] * 4  # fmt: skip
CAPTION_GROUPS = ["man", "woman", "woman", "man", "woman", "man"] * 4
CAPTION_TASKS = pd.DataFrame({"skis": [1, 0, 0, 1, 1, 1] * 4, "dog": [0, 1, 1, 0, 0, 0] * 4})


def _caption_bias() -> Any:
    return biasamp.caption_bias_amplification(
        captions=CAPTIONS, groups=CAPTION_GROUPS, tasks=CAPTION_TASKS, n_boot=20, random_state=0
    )


def _lic() -> Any:
    human = ["a man riding skis", "a woman with a dog", "a man on a board", "a woman cooking"] * 10
    model = ["a man on skis", "a woman and a dog", "a man with a board", "a woman in a kitchen"]
    return biasamp.lic(
        captions_human=human, captions_model=model * 10, groups=["m", "w", "m", "w"] * 10,
        n_iter=2, test_size=0.25, random_state=0,
    )  # fmt: skip


SCORES = pd.DataFrame(RNG.random((N, 3)), columns=list(T_TRAIN.columns))


def _threshold_calibration() -> Any:
    return biasamp.calibrate_thresholds(SCORES, labels_val=T_TRAIN)


def _threshold_sweep() -> Any:
    return biasamp.threshold_sweep(
        biasamp.mals, thresholds=np.linspace(0.2, 0.8, 4), tasks_scores=SCORES,
        groups_pred=G_PRED, groups_train=G_TRAIN, tasks_train=T_TRAIN, **QUIET,
    )  # fmt: skip


def _runs_summary() -> Any:
    runs = [
        biasamp.mals(
            groups_train=G_TRAIN,
            tasks_train=T_TRAIN,
            groups_pred=G_PRED,
            tasks_pred=T_PRED.sample(frac=1.0, random_state=s).set_axis(T_PRED.index),
            **QUIET,
        )  # fmt: skip
        for s in range(3)
    ]
    return biasamp.across_runs(runs)


def _rba() -> Any:
    rng = np.random.default_rng(4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return biasamp.rba(
            (rng.normal(size=(N, 2)), rng.normal(size=(N, 2, 3, 2))), structure="multilabel",
            groups_train=G_TRAIN, tasks_train=T_TRAIN, groups=G, tasks=T, max_iter=8,
        )  # fmt: skip


def _mitigation_comparison() -> Any:
    runs = {
        "baseline": [{"groups_pred": G_PRED, "tasks_pred": T_PRED}] * 2,
        "truth": {"groups_pred": G, "tasks_pred": T},
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return biasamp.compare_mitigations(
            runs, groups_train=G_TRAIN, tasks_train=T_TRAIN, groups=G, tasks=T,
            metrics=["group accuracy", "BiasAmp_MALS", "BiasAmp T->A", "Viol."],
        )  # fmt: skip


def _oversampling() -> Any:
    return biasamp.oversample(G_TRAIN, tasks=T_TRAIN, random_state=0)


def _model_comparison() -> Any:
    return biasamp.compare(
        {"a": _pairwise(), "b": [_mals(), _pairwise()]},
        performance={"a": {"accuracy": 0.8}, "b": {"accuracy": 0.7}},
    )


def _dbac() -> Any:
    human = ["a man riding skis", "a woman with a dog", "a man on a board", "a woman cooking"] * 10
    model = ["a man on skis", "a woman and a dog", "a man with a board", "a woman in a kitchen"]
    return biasamp.dbac(
        direction="T->A", captions_human=human, captions_model=model * 10,
        groups=["m", "w", "m", "w"] * 10, n_iter=2, random_state=0,
    )  # fmt: skip


def _retrieval_bias() -> Any:
    scores = np.random.default_rng(5).random((6, 40))
    return biasamp.retrieval_bias(
        scores=scores, groups=["m", "w"] * 20, k=10, n_boot=20, random_state=0
    )


def _audit() -> Any:
    frame = pd.DataFrame(
        {
            "gender": ["m"] * 4 + ["w"] * 4,
            "cup": [1, 1, 1, 0, 1, 0, 0, 0],
            "pred_cup": [1, 1, 1, 1, 0, 0, 0, 0],
            "pred_gender": ["m"] * 4 + ["w"] * 4,
        }
    )
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "test.csv"
        frame.to_csv(path, index=False)
        return biasamp.audit(
            path, group="gender", task_cols="cup", pred_prefix="pred_", min_group_size=None
        )


GEN_REFERENCE = pd.DataFrame(
    {"man": [75, 40, 50], "woman": [25, 60, 50]}, index=["engineer", "nurse", "teacher"]
)


def _output_amplification() -> Any:
    concepts = RNG.choice(["engineer", "nurse", "teacher"], N)
    return biasamp.output_amplification(
        concepts=concepts, groups=G, reference=GEN_REFERENCE, n_boot=20, random_state=0
    )


def _bias_transfer() -> Any:
    outputs = pd.DataFrame({"man": [9, 3, 5], "woman": [1, 7, 4]}, index=GEN_REFERENCE.index)
    return biasamp.bias_transfer(reference=GEN_REFERENCE, outputs=outputs, group="woman")


def _share_trajectory() -> Any:
    return biasamp.share_trajectory(groups=G, steps=np.arange(N) % 4, n_boot=20, random_state=0)


#: One builder per registered type; a type missing here fails the test below.
BUILDERS: dict[str, Callable[[], Any]] = {
    "pairwise": _pairwise,
    "differential_fairness": _differential_fairness,
    "multi_attribute": _multi_attribute,
    "predictability": _predictability,
    "caption_bias": _caption_bias,
    "lic": _lic,
    "threshold_calibration": _threshold_calibration,
    "runs_summary": _runs_summary,
    "threshold_sweep": _threshold_sweep,
    "mitigation_comparison": _mitigation_comparison,
    "oversampling": _oversampling,
    "rba": _rba,
    "model_comparison": _model_comparison,
    "dbac": _dbac,
    "audit": _audit,
    "retrieval_bias": _retrieval_bias,
    "output_amplification": _output_amplification,
    "bias_transfer": _bias_transfer,
    "share_trajectory": _share_trajectory,
}
#: The (model, metric) rows each type gives in ``compare({"m": result})``; ``None``: refused.
EXPECTED_ROWS: dict[str, list[tuple[str, str]] | None] = {
    "pairwise": [("m", "directional-t2a")],
    "differential_fairness": [("m", "df-amplification")],
    "multi_attribute": [("m", "multi-a2t")],
    "predictability": [("m", "dpa-t2a")],
    "caption_bias": [("m", "directional-t2a"), ("m", "directional-a2t"), ("m", "mals")],
    "lic": [("m", "lic")],
    "dbac": [("m", "dbac-t2a")],
    "audit": [("m", "directional-a2t"), ("m", "directional-t2a")],
    "retrieval_bias": [("m", "retrieval-bias")],
    "output_amplification": [("m", "output-amplification")],
    "bias_transfer": [("m", "bias-transfer")],
    "share_trajectory": [("m", "share-trajectory")],
    "threshold_calibration": None,
    "runs_summary": [("m", "mals")],
    "threshold_sweep": [("m", "mals")],
    "mitigation_comparison": [
        (f"m{SUB_MODEL}baseline", "mals"),
        (f"m{SUB_MODEL}baseline", "directional-t2a"),
        (f"m{SUB_MODEL}truth", "mals"),
        (f"m{SUB_MODEL}truth", "directional-t2a"),
    ],
    "oversampling": None,
    "rba": [(f"m{SUB_MODEL}before", "mals"), (f"m{SUB_MODEL}after", "mals")],
    "model_comparison": [
        (f"m{SUB_MODEL}a", "directional-t2a"),
        (f"m{SUB_MODEL}b", "mals"),
        (f"m{SUB_MODEL}b", "directional-t2a"),
    ],
}
KINDS = sorted(registered_results())


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")


@pytest.fixture(scope="module")
def built() -> dict[str, Any]:
    return {kind: BUILDERS[kind]() for kind in KINDS if kind in BUILDERS}


def test_every_registered_type_has_a_builder_and_a_compare_rule():
    assert sorted(BUILDERS) == KINDS, "add a builder for each new result type"
    assert sorted(EXPECTED_ROWS) == KINDS
    assert sorted(ROWS) == KINDS, "biasamp.compare needs a rule for each new result type"


@pytest.mark.parametrize("kind", KINDS)
def test_builder_makes_the_registered_type(kind, built):
    assert type(built[kind]) is registered_results()[kind]


@pytest.mark.parametrize("kind", KINDS)
def test_save_load_round_trip_is_equal(kind, built, tmp_path):
    result = built[kind]
    loaded = biasamp.load_result(result.save(tmp_path / f"{kind}.json"))
    assert type(loaded) is type(result)
    if isinstance(result, pd.DataFrame):  # a table keeps pandas' elementwise ==
        pd.testing.assert_frame_equal(pd.DataFrame(loaded), pd.DataFrame(result))
    else:
        assert loaded == result


@pytest.mark.parametrize("kind", KINDS)
def test_plot_draws_with_matplotlib(kind, built):
    result = built[kind]
    if kind == "model_comparison":
        drawn = biasamp.plot_comparison(result, kind="scatter")
    else:
        drawn = result.plot()
    axes = drawn if isinstance(drawn, (list, tuple, np.ndarray)) else [drawn]
    assert axes and all(isinstance(ax, matplotlib.axes.Axes) for ax in axes)
    assert any(ax.has_data() for ax in axes)


@pytest.mark.parametrize("kind", KINDS)
def test_compare_gives_one_row_per_metric_named_as_in_the_registry(kind, built):
    result, expected = built[kind], EXPECTED_ROWS[kind]
    if expected is None:
        message = ERR_NO_METRIC.format(model="m", kind=type(result).__name__, why=_NO_METRIC[kind])
        with pytest.raises(TypeError, match=f"^{re.escape(message)}$"):
            biasamp.compare({"m": result})
        return
    table = biasamp.compare({"m": result})
    assert list(zip(table["model"], table["metric"], strict=True)) == expected
    assert set(table["metric"]) <= set(METRICS)
    for row in table.itertuples():
        assert row.title.startswith(metric_card(row.metric).title)
    assert np.isfinite(table["value"]).all()


def _named_results(result: Any) -> list[Any]:
    """The results inside ``result`` that carry a metric (itself, an audit's or a captioning
    model's results, an RBA's before and after)."""
    if isinstance(getattr(result, "metric", None), str) and not isinstance(result, pd.DataFrame):
        return [result]
    inner = getattr(result, "results", None)
    if isinstance(inner, dict):
        return [r for value in inner.values() for r in _named_results(value)]
    return [r for name in ("mals_before", "mals_after") for r in [getattr(result, name, None)] if r]


@pytest.mark.parametrize("kind", KINDS)
def test_metric_is_the_canonical_name_and_family_the_family(kind, built, tmp_path):
    """``.metric`` is the registry's canonical name on every result, in ``to_dict()``, in
    the saved file and after loading; ``.family`` is the card's family."""
    result = built[kind]
    named = _named_results(result)
    expected = {metric for _, metric in EXPECTED_ROWS[kind] or []}
    if isinstance(result, pd.DataFrame):
        assert set(result["metric"]) <= set(METRICS) if "metric" in result else not named
    elif kind in ("threshold_calibration", "oversampling"):
        assert named == []  # no metric: nothing to name
    else:
        assert named and {r.metric for r in named} == expected
    for r in named:
        card = METRICS[r.metric]
        assert r.family == card.family and r.metric_name == r.metric == card.name
        assert r.to_dict()["metric"] == r.metric and r.to_dict()["family"] == card.family
    document = json.loads(result.save(tmp_path / "r.json").read_text(encoding="utf-8"))
    assert list(document)[:5] == list(ENVELOPE_KEYS)
    assert document["metrics"] == metrics_of(result) and set(document["metrics"]) <= set(METRICS)
    assert "random_state" in document["settings"] and "seed" not in document["settings"]
    loaded = biasamp.load_result(tmp_path / "r.json")
    assert [r.metric for r in _named_results(loaded)] == [r.metric for r in named]

"""biasamp.compare: the tidy table, saved files, performance columns, plots, errors."""

from __future__ import annotations

import re

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

import biasamp  # noqa: E402
from biasamp.comparison._compare import (  # noqa: E402
    ERR_DUPLICATE,
    ERR_NO_RESULTS,
    ERR_PERF_MODELS,
    ERR_PERF_VALUE,
    ERR_RESULT,
)
from biasamp.results._plotting_comparison import ERR_NO_PERFORMANCE  # noqa: E402

RNG = np.random.default_rng(5)
N = 400
GROUPS = RNG.choice(["m", "w"], N, p=[0.6, 0.4])
TASKS = np.where(RNG.random(N) < np.where(GROUPS == "m", 0.7, 0.3), "cook", "ski")


def _epoch(flip: float, seed: int, n_boot: int | None = 50):
    rng = np.random.default_rng(seed)
    pred = np.where(rng.random(N) < flip, np.where(GROUPS == "m", "cook", "ski"), TASKS)
    kw = {"n_boot": n_boot, "random_state": 0} if n_boot else {}
    return {
        "a2t": biasamp.directional(
            direction="A->T", groups=GROUPS, tasks=TASKS, tasks_pred=pred, **kw
        ),
        "mals": biasamp.mals(
            groups_train=GROUPS, tasks_train=TASKS, groups_pred=GROUPS, tasks_pred=pred, **kw
        ),
    }


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")


@pytest.fixture(scope="module")
def epochs():
    return {f"epoch {e}": _epoch(0.1 * e, e) for e in range(1, 4)}


def test_table_holds_every_value_interval_and_n(epochs):
    perf = {m: {"epoch": i + 1, "accuracy": 0.9 - 0.1 * i} for i, m in enumerate(epochs)}
    table = biasamp.compare(epochs, performance=perf)
    assert isinstance(table, biasamp.ModelComparison)
    assert list(table.columns) == [
        "model",
        "metric",
        "title",
        "value",
        "ci_low",
        "ci_high",
        "ci_level",
        "n",
        "epoch",
        "accuracy",
    ]
    # the keys "a2t" and "mals" name the metrics through the registry
    assert table.models == list(epochs) and table.metrics == ["directional-a2t", "mals"]
    assert table["title"].unique().tolist() == ["BiasAmp A->T", "BiasAmp_MALS"]
    key = {"directional-a2t": "a2t", "mals": "mals"}
    for row in table.itertuples():
        result = epochs[row.model][key[row.metric]]
        assert row.value == result.value and row.n == result.n
        assert (row.ci_low, row.ci_high) == tuple(result.ci) and row.ci_level == result.ci_level
        assert row.accuracy == perf[row.model]["accuracy"]
    wide = table.wide()
    assert wide.loc["epoch 2", "mals"] == epochs["epoch 2"]["mals"].value
    assert list(wide.columns) == ["directional-a2t", "mals", "epoch", "accuracy"]
    # amplification grows as more predictions follow the group
    assert wide["directional-a2t"].is_monotonic_increasing


def test_results_come_from_saved_files_and_the_table_saves(epochs, tmp_path):
    files = {}
    for model, results in epochs.items():
        path = results["a2t"].save(tmp_path / f"{model}.json")
        files[model] = str(path)
    table = biasamp.compare(files)
    assert table["metric"].unique().tolist() == ["directional-a2t"]
    assert table["value"].tolist() == [r["a2t"].value for r in epochs.values()]
    back = biasamp.load_result(table.save(tmp_path / "comparison.json"))
    assert isinstance(back, biasamp.ModelComparison)
    pd.testing.assert_frame_equal(pd.DataFrame(back), pd.DataFrame(table))
    # a single result, a list of results
    one = biasamp.compare({"a": epochs["epoch 1"]["mals"], "b": list(epochs["epoch 2"].values())})
    assert one["metric"].tolist() == ["mals", "directional-a2t", "mals"]
    assert np.isnan(biasamp.compare({"x": _epoch(0.1, 1, n_boot=None)})["ci_low"].to_numpy()).all()


def test_bad_input_is_refused(epochs):
    with pytest.raises(ValueError, match=re.escape(ERR_NO_RESULTS)):
        biasamp.compare({})
    with pytest.raises(TypeError, match=re.escape(ERR_RESULT.format(model="a", got="int"))):
        biasamp.compare({"a": 3})
    twice = [epochs["epoch 1"]["mals"], epochs["epoch 2"]["mals"]]
    with pytest.raises(ValueError, match=re.escape(ERR_DUPLICATE.format(model="a", metric="mals"))):
        biasamp.compare({"a": twice})
    with pytest.raises(
        ValueError,
        match=re.escape(ERR_PERF_MODELS.format(missing=["epoch 3"], unknown=["other"])),
    ):
        biasamp.compare(
            epochs, performance={"epoch 1": {"f1": 1}, "epoch 2": {"f1": 1}, "other": {"f1": 1}}
        )
    perf = {m: {"f1": 0.5} for m in epochs}
    perf["epoch 2"] = {"f1": "high"}
    with pytest.raises(
        ValueError, match=re.escape(ERR_PERF_VALUE.format(model="epoch 2", column="f1", got="high"))
    ):
        biasamp.compare(epochs, performance=perf)
    with pytest.raises(ValueError, match=re.escape(ERR_NO_PERFORMANCE)):
        biasamp.plot_comparison(biasamp.compare(epochs), kind="scatter")


def test_scatter_draws_values_against_performance_with_interval_bars(epochs):
    perf = pd.DataFrame({"accuracy": [0.9, 0.8, 0.7]}, index=list(epochs))
    table = biasamp.compare(epochs, performance=perf)
    ax = biasamp.plot_comparison(table, kind="scatter", metrics="directional-a2t")
    points = ax.lines[0].get_xydata()
    part = table[table["metric"] == "directional-a2t"]
    np.testing.assert_allclose(points, part[["accuracy", "value"]].to_numpy())
    # the interval bars span ci_low .. ci_high
    segments = ax.collections[0].get_segments()
    np.testing.assert_allclose(
        [(s[0][1], s[1][1]) for s in segments], part[["ci_low", "ci_high"]].to_numpy()
    )
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["directional-a2t"]
    assert {t.get_text() for t in ax.texts} == set(epochs)


def test_trajectory_draws_each_metric_over_epochs_with_error_bars(epochs):
    perf = {m: {"epoch": 3 - i} for i, m in enumerate(epochs)}  # given in reverse
    table = biasamp.compare(epochs, performance=perf)
    ax = biasamp.plot_comparison(table, kind="trajectory", x="epoch")
    line = ax.lines[0]
    part = table[table["metric"] == "directional-a2t"].sort_values("epoch")
    np.testing.assert_allclose(line.get_xdata(), [1, 2, 3])
    np.testing.assert_allclose(line.get_ydata(), part["value"])
    bars = [path.vertices for path in ax.collections[0].get_paths()]  # one per epoch
    np.testing.assert_allclose([bar[:, 0].mean() for bar in bars], [1, 2, 3])
    np.testing.assert_allclose([bar[:, 1].min() for bar in bars], part["ci_low"])
    np.testing.assert_allclose([bar[:, 1].max() for bar in bars], part["ci_high"])
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["directional-a2t", "mals"]


def test_trajectory_only_along_an_ordered_column(epochs):
    # without x the models have no order of their own: refused, with the way out
    with pytest.raises(ValueError, match=re.escape(
        ERR_TRAJECTORY_X.format(known="no performance column")
    )):  # fmt: skip
        biasamp.plot_comparison(biasamp.compare(epochs), kind="trajectory")
    perf = {m: {"epoch": float(i), "accuracy": 0.9} for i, m in enumerate(epochs)}
    table = biasamp.compare(epochs, performance=perf)
    edited = pd.DataFrame(table).astype({"epoch": object})  # rows edited by hand: a label
    edited.loc[edited["model"] == "epoch 2", "epoch"] = "late"
    with pytest.raises(ValueError, match=re.escape(
        ERR_TRAJECTORY_VALUES.format(x="epoch", got="late", model="epoch 2")
    )):  # fmt: skip
        biasamp.plot_comparison(edited, kind="trajectory", x="epoch")
    with pytest.raises(ValueError, match=re.escape(
        ERR_TRAJECTORY_X.format(known=["epoch", "accuracy"])
    )):  # fmt: skip
        biasamp.plot_comparison(table, kind="trajectory")


def test_without_performance_the_models_are_drawn_side_by_side_with_intervals(epochs):
    table = biasamp.compare(epochs)
    assert np.isfinite(table["ci_low"].to_numpy(dtype=float)).all()
    ax = biasamp.plot_comparison(table)  # no kind, no performance column: bars
    assert [t.get_text() for t in ax.get_xticklabels()] == list(epochs)
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["directional-a2t", "mals"]
    heights = [patch.get_height() for patch in ax.patches]
    expected = [
        *table[table["metric"] == "directional-a2t"]["value"],
        *table[table["metric"] == "mals"]["value"],
    ]
    np.testing.assert_allclose(heights, expected)
    # one whisker per bar, from ci_low to ci_high
    whiskers = [c for c in ax.collections if len(c.get_segments()) == len(epochs)]
    spans = [(seg[0][1], seg[1][1]) for c in whiskers for seg in c.get_segments()]
    low_high = [
        *table[table["metric"] == "directional-a2t"][["ci_low", "ci_high"]].itertuples(index=False),
        *table[table["metric"] == "mals"][["ci_low", "ci_high"]].itertuples(index=False),
    ]
    np.testing.assert_allclose(spans, [tuple(r) for r in low_high])
    # the bars sit side by side around each model's tick
    centres = [patch.get_x() + patch.get_width() / 2 for patch in ax.patches]
    np.testing.assert_allclose(centres, [-0.2, 0.8, 1.8, 0.2, 1.2, 2.2])


# ------------------------------------------------ every result type, canonical names
from biasamp.comparison._compare import (  # noqa: E402
    ERR_KEY,
    ERR_KEY_MISMATCH,
    ERR_UNNAMED,
    WARN_PLOT,
)
from biasamp.registry import METRICS  # noqa: E402
from biasamp.results._plotting_comparison import (  # noqa: E402
    ERR_TRAJECTORY_VALUES,
    ERR_TRAJECTORY_X,
)

QUIET = {"min_group_size": None}


def test_aliases_as_keys_resolve_through_the_registry(epochs):
    a2t = epochs["epoch 1"]["a2t"]
    for key in ("A->T", "BiasAmp A->T", "a2t", "directional-a2t", "directional_a2t"):
        table = biasamp.compare({"m": {key: a2t}})
        assert table[["metric", "title", "value"]].values.tolist() == [
            ["directional-a2t", "BiasAmp A->T", a2t.value]
        ]
    with pytest.raises(ValueError) as info:
        biasamp.compare({"m": {"mals": a2t}})
    assert str(info.value) == ERR_KEY_MISMATCH.format(
        model="m", key="mals", named="mals", actual="directional-a2t"
    )
    with pytest.raises(ValueError) as info:
        biasamp.compare({"m": {"train split": a2t}})
    assert str(info.value) == ERR_KEY.format(
        model="m", key="train split", choices=", ".join(METRICS)
    )
    # a runs summary of plain numbers says no metric: its key names it
    summary = biasamp.across_runs([0.1, 0.2, 0.3])
    with pytest.raises(ValueError) as info:
        biasamp.compare({"m": summary})
    assert str(info.value) == ERR_UNNAMED.format(
        model="m", kind="runs summary", choices=", ".join(METRICS)
    )
    row = biasamp.compare({"m": {"T->A": summary}}).iloc[0]
    assert row["metric"] == "directional-t2a" and row["value"] == pytest.approx(0.2)
    assert (row["ci_low"], row["ci_high"]) == summary.ci_t


def test_results_holding_several_metrics_give_one_row_each():
    cap = biasamp.caption_bias_amplification(
        captions=["a man on skis", "a woman with a dog", "a man with a dog", "a woman"] * 3,
        groups=["man", "woman", "woman", "woman"] * 3,
        tasks=pd.DataFrame({"skis": [1, 0, 0, 1] * 3, "dog": [0, 1, 1, 0] * 3}),
    )
    table = biasamp.compare({"captioner": cap})
    assert table["metric"].tolist() == ["directional-t2a", "directional-a2t", "mals"]
    assert table["value"].tolist() == [cap[m].value for m in table["metric"]]
    assert table["group_accuracy"].tolist() == [cap.group_accuracy] * 3
    # multi_attribute's mapping keyed by direction: the multi-attribute metrics
    tasks = pd.DataFrame((RNG.random((N, 3)) < 0.4).astype(int), columns=["a", "b", "c"])
    pred = tasks.where(RNG.random((N, 3)) < 0.7, 1 - tasks)
    three = biasamp.multi_attribute(
        groups_train=GROUPS, tasks_train=tasks, groups=GROUPS, tasks=tasks,
        groups_pred=GROUPS, tasks_pred=pred, **QUIET,
    )  # fmt: skip
    table = biasamp.compare({"m": three})
    assert sorted(table["metric"]) == ["multi-a2t", "multi-mals", "multi-t2a"]
    for row in table.itertuples():
        key = {"multi-a2t": "A->T", "multi-t2a": "T->A", "multi-mals": "multi_mals"}[row.metric]
        assert row.value == three[key].value
    # differential fairness amplification: the value, its interval and n
    dfa = biasamp.differential_fairness_amplification(
        groups=GROUPS, labels=TASKS, labels_pred=pred["a"].map({1: "cook", 0: "ski"}),
        n_boot=30, random_state=0, **QUIET,
    )  # fmt: skip
    row = biasamp.compare({"m": dfa}).iloc[0]
    assert (row["metric"], row["title"]) == ("df-amplification", dfa.name)
    assert (row["value"], row["ci_low"], row["ci_high"], row["n"]) == (
        dfa.value, dfa.ci[0], dfa.ci[1], dfa.n,
    )  # fmt: skip


def test_rba_and_mitigation_tables_become_sub_models_with_performance():
    runs = {
        "baseline": [{"groups_pred": GROUPS, "tasks_pred": TASKS[::-1].copy()}] * 3,
        "truth": {"groups_pred": GROUPS, "tasks_pred": TASKS},
    }
    mitigations = biasamp.compare_mitigations(
        runs, groups_train=GROUPS, tasks_train=TASKS, groups=GROUPS, tasks=TASKS,
        metrics=["group accuracy", "BiasAmp_MALS", "Viol."],
    )  # fmt: skip
    table = biasamp.compare({"study": mitigations})
    assert table["model"].tolist() == ["study / baseline", "study / truth"]
    assert table["metric"].tolist() == ["mals", "mals"]
    assert table["value"].tolist() == mitigations["BiasAmp_MALS"].tolist()
    assert table["group accuracy"].tolist() == mitigations["group accuracy"].tolist()
    assert table["Viol."].tolist() == mitigations["Viol."].tolist()
    half = mitigations.loc["baseline", "BiasAmp_MALS ±"]  # 0: three identical runs
    base = table.iloc[0]
    assert (base["ci_low"], base["ci_high"]) == (base["value"] - half, base["value"] + half)
    assert base["ci_level"] == 0.95 and np.isnan(table.iloc[1]["ci_low"])
    rng = np.random.default_rng(2)
    with pytest.warns(biasamp.RBAConvergenceWarning):
        rba = biasamp.rba(
            rng.normal(size=(N, 2, 2)), structure="single", groups_train=GROUPS,
            tasks_train=TASKS, groups=GROUPS, tasks=TASKS, max_iter=3,
        )  # fmt: skip
    table = biasamp.compare({"rba": rba})
    assert table["model"].tolist() == ["rba / before", "rba / after"]
    assert table["value"].tolist() == [rba.mals_before.value, rba.mals_after.value]
    assert table["task accuracy"].tolist() == [
        rba.performance_before["task accuracy"], rba.performance_after["task accuracy"],
    ]  # fmt: skip


def test_table_plot_is_pandas_and_the_old_calls_warn(epochs):
    perf = {m: {"epoch": i + 1} for i, m in enumerate(epochs)}
    table = biasamp.compare(epochs, performance=perf)
    ax = table.plot(x="epoch", y="value", kind="scatter")  # pandas' own scatter
    np.testing.assert_allclose(ax.collections[0].get_offsets(), table[["epoch", "value"]])
    part = table[table["metric"] == "mals"]
    assert type(part) is pd.DataFrame  # a filtered table is a plain DataFrame
    bars = part.plot(x="model", y="value", kind="bar")
    assert [p.get_height() for p in bars.patches] == part["value"].tolist()
    ax = biasamp.plot_comparison(part, kind="trajectory", x="epoch")
    np.testing.assert_allclose(ax.lines[0].get_ydata(), part["value"])
    with pytest.warns(FutureWarning, match=re.escape(WARN_PLOT.format(kind="trajectory"))):
        old = table.plot(kind="trajectory", x="epoch")
    assert [t.get_text() for t in old.get_legend().get_texts()] == ["directional-a2t", "mals"]
    with pytest.warns(FutureWarning, match=re.escape(WARN_PLOT.format(kind="scatter"))):
        table.plot(kind="scatter")


def test_a_result_holding_a_results_mapping_gives_its_metrics(epochs):
    class Audit:  # what an audit result holds: canonical name -> result
        def __init__(self, results):
            self.results = results

    results = epochs["epoch 2"]
    audit = Audit({"directional-a2t": results["a2t"], "mals": results["mals"]})
    table = biasamp.compare({"run": audit, "again": Audit({"A->T": results["a2t"]})})
    assert table[["model", "metric"]].values.tolist() == [
        ["run", "directional-a2t"], ["run", "mals"], ["again", "directional-a2t"],
    ]  # fmt: skip
    assert table["value"].tolist() == [results["a2t"].value, results["mals"].value] * 1 + [
        results["a2t"].value
    ]

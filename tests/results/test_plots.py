"""``plot()`` on every result type: each draws, accepts ``ax=``, and, on a new figure,
keeps every piece of text inside the canvas whatever the label lengths.

The canvas test draws the figure (Agg), then checks that the window extent of every
visible, non-empty text artist lies within the figure's bounding box, with group, task,
label and method names hundreds of characters long; it also saves with default
``savefig`` arguments.
"""

from __future__ import annotations

import io
import warnings

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from matplotlib.text import Text  # noqa: E402

import biasamp  # noqa: E402
from biasamp.results._plotting import _delta_label, plot_bias_comparison, plot_text  # noqa: E402

LONG = "a-very-long-label-name-that-goes-on-and-on-" * 5
RNG = np.random.default_rng(0)
N = 300
GROUPS = np.array([f"man {LONG}", f"woman {LONG}"])
TASK_NAMES = [f"task {i} {LONG}" for i in range(5)]
G_TRAIN = RNG.choice(GROUPS, N, p=[0.6, 0.4])
T_TRAIN = pd.DataFrame((RNG.random((N, 5)) < 0.35).astype(int), columns=TASK_NAMES)
G_PRED = RNG.choice(GROUPS, N, p=[0.7, 0.3])
T_PRED = pd.DataFrame((RNG.random((N, 5)) < 0.35).astype(int), columns=TASK_NAMES)
SINGLE_TASKS = np.array(TASK_NAMES[:3])[RNG.integers(0, 3, N)]


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def undrawn_tick_labels(fig) -> set[int]:
    """Tick labels matplotlib keeps for ticks outside the view limits (never drawn)."""
    out: set[int] = set()
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            low, high = sorted(axis.get_view_interval())
            slack = 1e-9 * max(abs(high - low), 1.0)
            for locs, ticks in (
                (axis.get_majorticklocs(), axis.get_major_ticks),
                (axis.get_minorticklocs(), axis.get_minor_ticks),
            ):
                for loc, tick in zip(locs, ticks(len(locs)), strict=True):
                    if not low - slack <= loc <= high + slack:
                        out.update({id(tick.label1), id(tick.label2)})
    return out


def assert_text_on_canvas(fig) -> None:
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    box = fig.bbox
    hidden = undrawn_tick_labels(fig)
    checked = 0
    for text in fig.findobj(Text):
        if not text.get_visible() or not text.get_text().strip() or id(text) in hidden:
            continue
        extent = text.get_window_extent(renderer)
        assert extent.x0 >= box.x0 - 1 and extent.x1 <= box.x1 + 1, text.get_text()
        assert extent.y0 >= box.y0 - 1 and extent.y1 <= box.y1 + 1, text.get_text()
        checked += 1
    assert checked > 0
    fig.savefig(io.BytesIO(), format="png")  # default arguments


def figure_of(axes):
    first = axes[0] if isinstance(axes, (list, tuple)) else axes
    return first.figure


def mals_result(**kw):
    return biasamp.mals(
        groups_train=G_TRAIN, tasks_train=T_TRAIN, groups_pred=G_PRED, tasks_pred=T_PRED, **kw
    )


def rba_result():
    rng = np.random.default_rng(1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", biasamp.RBAConvergenceWarning)
        return biasamp.rba(
            rng.normal(size=(N, 2, 3)) + np.array([0.0, 0.4])[None, :, None],
            structure="single",
            groups_train=G_TRAIN,
            tasks_train=SINGLE_TASKS,
            groups=G_PRED,
            tasks=SINGLE_TASKS,
            group_names=sorted(GROUPS),
            task_names=sorted(TASK_NAMES[:3]),
            max_iter=20,
        )


def comparison_table():
    runs = {
        f"baseline {LONG}": [{"groups_pred": G_PRED, "tasks_pred": T_PRED}] * 2,
        f"oversampling {LONG}": {"groups_pred": G_TRAIN, "tasks_pred": T_TRAIN},
    }
    return biasamp.compare_mitigations(
        runs,
        groups_train=G_TRAIN,
        tasks_train=T_TRAIN,
        groups=G_TRAIN,
        tasks=T_TRAIN,
        metrics=["group accuracy", "BiasAmp_MALS", "Viol.", "BiasAmp A->T", "BiasAmp T->A"],
    )


CASES = {
    "pairwise pairs": lambda: mals_result(n_boot=30, random_state=0).plot(),
    "pairwise heatmap": lambda: mals_result().plot("heatmap"),
    "pairwise bias": lambda: mals_result().plot("bias"),
    "directional pairs": lambda: biasamp.directional(
        groups=G_TRAIN, tasks=T_TRAIN, tasks_pred=T_PRED, direction="A->T"
    ).plot(),
    "multi size": lambda: biasamp.multi_mals(
        groups=G_TRAIN,
        tasks=T_TRAIN,
        groups_train=G_TRAIN,
        tasks_train=T_TRAIN,
        groups_pred=G_PRED,
        tasks_pred=T_PRED,
        n_boot=20,
        random_state=0,
    ).plot(),
    "multi combinations": lambda: biasamp.multi_mals(
        groups=G_TRAIN,
        tasks=T_TRAIN,
        groups_train=G_TRAIN,
        tasks_train=T_TRAIN,
        groups_pred=G_PRED,
        tasks_pred=T_PRED,
    ).plot("combinations"),
    "dpa": lambda: biasamp.dpa(
        groups=G_TRAIN, tasks=T_TRAIN, tasks_pred=T_PRED, direction="A->T", n_iter=4, random_state=0
    ).plot(),
    "runs": lambda: biasamp.across_runs(
        [mals_result(n_boot=5, random_state=s) for s in range(4)]
    ).plot(),
    "runs pairs": lambda: biasamp.across_runs(
        [mals_result(n_boot=5, random_state=s) for s in range(4)]
    ).plot("pairs"),
    "calibration": lambda: biasamp.calibrate_thresholds(
        pd.DataFrame(RNG.random((N, 5)), columns=TASK_NAMES), labels_val=T_TRAIN
    ).plot(),
    "sweep": lambda: biasamp.threshold_sweep(
        biasamp.mals,
        thresholds=np.linspace(0.1, 0.9, 9),
        tasks_scores=pd.DataFrame(RNG.random((N, 5)), columns=TASK_NAMES),
        groups_pred=G_PRED,
        groups_train=G_TRAIN,
        tasks_train=T_TRAIN,
    ).plot(),
    "rba table": lambda: rba_result().plot(),
    "rba history": lambda: rba_result().plot("history"),
    "rba bias": lambda: rba_result().plot("bias"),
    "oversampling": lambda: biasamp.oversample(G_TRAIN, tasks=T_TRAIN, random_state=0).plot(),
    "comparison": lambda: comparison_table().plot(),
}


@pytest.mark.parametrize("case", list(CASES))
def test_text_stays_on_the_canvas_with_long_labels(case):
    axes = CASES[case]()
    assert_text_on_canvas(figure_of(axes))


def test_every_result_type_has_a_plot():
    from biasamp.results._persist import registered_results

    for kind, cls in registered_results().items():
        if kind == "mitigation_comparison":  # a DataFrame: plot is a property
            assert callable(comparison_table().plot)
            continue
        if kind == "model_comparison":  # a DataFrame too: tests/comparison/test_compare.py
            assert callable(biasamp.compare({"m": mals_result()}).plot)
            continue
        assert callable(getattr(cls, "plot", None)), kind


def test_plots_accept_an_ax():
    fig, ax = plt.subplots()
    assert mals_result().plot(ax=ax) is ax
    assert rba_result().plot("bias", ax=ax) is ax
    fig, ax = plt.subplots()
    panels = rba_result().plot(ax=ax)  # table panels inset in the given Axes
    assert len(panels) == 4 and all(p.figure is fig for p in panels)
    fig, axes = plt.subplots(1, 2)
    assert rba_result().plot("history", ax=list(axes)) == list(axes)
    fig, ax = plt.subplots()
    assert comparison_table().plot("BiasAmp_MALS", ax=ax) is ax
    with pytest.raises(ValueError, match="not a metric column"):
        comparison_table().plot("accuracy")
    with pytest.raises(ValueError, match="sequence of 2 Axes"):
        rba_result().plot("history", ax=[ax])


def test_comparison_keeps_the_pandas_plot_methods():
    table = comparison_table()
    ax = table.plot.barh(y="BiasAmp_MALS")
    assert len(ax.patches) == len(table)


def test_axis_labels_name_the_quantity():
    mals_ax = mals_result().plot()
    assert mals_ax.get_xlabel() == "bias-score difference (predicted − training)"
    directional = biasamp.directional(
        groups=G_TRAIN, tasks=T_TRAIN, tasks_pred=T_PRED, direction="A->T"
    )
    assert directional.plot().get_xlabel().startswith("Δ (predicted − true")
    assert _delta_label(mals_result(), "contribution") == "contribution"


def test_bars_and_intervals_are_the_numbers():
    result = mals_result(n_boot=30, random_state=0)
    ax = result.plot(k=3)
    top = result.top(3)
    widths = sorted(round(p.get_width(), 12) for p in ax.patches)
    assert widths == sorted(round(v, 12) for v in top["delta"])
    runs = biasamp.across_runs([0.1, 0.2, 0.3])
    ax = runs.plot()
    assert sorted(ax.collections[0].get_offsets()[:, 1].tolist()) == [0.1, 0.2, 0.3]


def test_missing_matplotlib_gives_a_clear_error(monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_matplotlib(name, *args, **kwargs):
        if name.startswith("matplotlib"):
            raise ImportError("no matplotlib")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    with pytest.raises(ImportError, match="pip install"):
        biasamp.across_runs([0.1, 0.2]).plot()


def _tick_texts(ax) -> list[str]:
    return [t.get_text() for t in ax.get_yticklabels()]


def test_shortened_labels_stay_distinct_and_bidi_is_escaped():
    names = [f"a rather long object name {i} that ends differently {i}" for i in range(4)]
    groups = np.array(["man", "woman\u202e"])[np.arange(200) % 2]
    tasks = np.array(names)[np.arange(200) % 4]
    pred = np.array(names)[(np.arange(200) // 3) % 4]
    result = biasamp.mals(
        groups_train=groups, tasks_train=tasks, groups_pred=groups, tasks_pred=pred
    )
    ax = result.plot("pairs", k=8)
    labels = _tick_texts(ax)
    assert len(set(labels)) == len(labels) == 8
    assert all("\u202e" not in s for s in labels)
    assert any("woman\\u202e" in s for s in labels)  # drawn as the six characters \u202e
    heat = result.plot("heatmap")
    ticks = [t.get_text() for t in heat.get_xticklabels()]
    assert len(set(ticks)) == 4


def test_bias_scatter_names_its_largest_points_and_has_a_colour_legend():
    from matplotlib.text import Annotation

    frame = pd.DataFrame(
        {
            "group": ["w"] * 8 + ["m"] * 8,
            "task": [f"t{i}" for i in range(8)] * 2,
            "b_train": [0.5, 0.6, 0.4, 0.7, 0.3, 0.5, 0.5, 0.5] * 2,
            "b_pred": [0.9, 0.6, 0.41, 0.2, 0.31, 0.52, 0.5, 0.35] * 2,
        }
    )
    ax = plot_bias_comparison(frame, n_labels=3)
    named = [c.get_text() for c in ax.get_children() if isinstance(c, Annotation)]
    # |b_pred - b_train| of group w: t3 0.5, t0 0.4, t7 0.15 are the three largest
    assert named == ["t3", "t0", "t7"]
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert {"within margin", "outside margin"} <= set(legend)


@pytest.mark.parametrize(
    "label", ["$x^2$", "a\\b", "\\$x$", "cost $5 \\alpha", "\\", "$", "tab\tx"]
)
def test_labels_are_drawn_as_written(label):
    fig, ax = plt.subplots()
    text = ax.set_title(plot_text(label))
    shown, is_math = text._preprocess_math(text.get_text())
    assert not is_math and shown == label.replace("\t", "\\t")


def _directional_with_both_signs():
    """A->T with pairs whose delta and contribution differ in sign (training sign y = -1)."""
    rng = np.random.default_rng(4)
    n = 600
    groups = rng.choice(["m", "w"], n)
    tasks = pd.DataFrame((rng.random((n, 4)) < np.where(groups == "m", 0.6, 0.3)[:, None]),
                         columns=list("abcd")).astype(int)  # fmt: skip
    pred = tasks.copy()
    flip = rng.random((n, 4)) < 0.25
    pred[:] = np.where(flip, 1 - tasks.to_numpy(), tasks.to_numpy())
    return biasamp.directional(direction="A->T", groups=groups, tasks=tasks, tasks_pred=pred)


def test_bar_colours_follow_the_sign_of_the_contribution():
    from matplotlib.colors import to_hex

    from biasamp.results._plotting import LOWERS_COLOR, RAISES_COLOR

    result = _directional_with_both_signs()
    top = result.top(8)
    delta, contribution = top["delta"].to_numpy(), top["contribution"].to_numpy()
    # the case the colours must get right: a positive delta that lowers the value
    assert ((delta > 0) & (contribution < 0)).any() and ((delta < 0) & (contribution < 0)).any()
    ax = result.plot(k=8)
    bars = [p for p in ax.patches if str(p.get_gid()).startswith("top-pair-")]
    assert [p.get_gid() for p in bars] == [f"top-pair-{i}" for i in range(8)]
    for bar, d, c in zip(bars, delta, contribution, strict=True):
        assert bar.get_width() == pytest.approx(d)
        assert to_hex(bar.get_facecolor()) == (RAISES_COLOR if c > 0 else LOWERS_COLOR)
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend == ["contribution > 0 (raises the value)", "contribution < 0 (lowers the value)"]


def test_scatter_labels_never_overlap_and_name_the_farthest_first():
    from matplotlib.text import Annotation

    rng = np.random.default_rng(9)
    k = 60  # a crowd of points far from the diagonal, close to each other
    b_train = 0.3 + 0.02 * rng.random(k)
    frame = pd.DataFrame(
        {
            "group": ["w"] * k + ["m"] * k,
            "task": [f"object number {i}" for i in range(k)] * 2,
            "b_train": np.concatenate([b_train, 1 - b_train]),
            "b_pred": np.concatenate([b_train + 0.3 + 0.02 * rng.random(k), 0.4 - b_train]),
        }
    )
    fig, ax = plt.subplots()
    plot_bias_comparison(frame, n_labels=10, ax=ax)
    named = [c for c in ax.get_children() if isinstance(c, Annotation)]
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    boxes = [a.get_window_extent(renderer) for a in named]
    assert 1 <= len(named) < 10  # the crowd leaves room for a few
    assert not any(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1 :])
    legend = ax.get_legend().get_window_extent(renderer)
    assert not any(box.overlaps(legend) for box in boxes)
    w = frame[frame["group"] == "w"]
    farthest = w["task"].to_numpy()[np.argmax(np.abs(w["b_pred"] - w["b_train"]).to_numpy())]
    assert named[0].get_text() == farthest


def test_comparison_scatter_names_models_without_overlap():
    """Twenty checkpoints of almost the same accuracy and value: the scatter names the
    farthest from 0 that fit, and no two names overlap (the page's table has them all)."""
    from matplotlib.text import Annotation

    from biasamp.results._plotting_comparison import MAX_NAMED, plot_model_comparison

    rng = np.random.default_rng(2)
    results = {}
    performance = {}
    for i in range(20):
        pred = T_PRED.copy()
        pred.iloc[: 5 * i, 0] = 1 - pred.iloc[: 5 * i, 0]
        results[f"checkpoint {i:02d}"] = biasamp.directional(
            direction="A->T", groups=G_TRAIN, tasks=T_TRAIN, tasks_pred=pred
        )
        performance[f"checkpoint {i:02d}"] = {"accuracy": 0.8 + 0.002 * rng.random()}
    table = biasamp.compare(results, performance=performance)
    fig, ax = plt.subplots()
    plot_model_comparison(table, kind="scatter", x="accuracy", ax=ax)
    named = [c for c in ax.get_children() if isinstance(c, Annotation)]
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    boxes = [a.get_window_extent(renderer) for a in named]
    assert 1 <= len(named) <= MAX_NAMED < len(results)
    assert not any(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1 :])
    values = table.set_index("model")["value"]
    farthest = values.abs().idxmax()
    assert named[0].get_text() == farthest

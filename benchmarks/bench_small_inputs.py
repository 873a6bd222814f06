"""The fixed cost of one call at the size of real audits: the bundled COCO labels.

Run: ``python benchmarks/bench_small_inputs.py [--repeat 200]``. Prints a markdown
table of per-call times (the median of ``--repeat`` calls, after a warm-up), all
measured in one process so that the ratios can be read on a shared machine.

Workload: COCO 2014 gender and objects, bundled with biasamp: the test split
(5,473 images x 79 objects) is the evaluation split, the val split the training
split; the predictions are the labels with 10% of the entries flipped
(``random_state=0``), so every metric has a non-trivial value.

Compared, for each call:

* **biasamp** with numpy inputs (int8 0/1 task matrices, ``<U`` group names), with
  the same tasks as int64 arrays (what ``DataFrame.to_numpy()`` of the bundled
  frames gives: eight times the bytes to read), and with pandas inputs (a ``str``
  Series of group names and the DataFrame of int64 0/1 columns, as
  ``load_coco_gender`` and ``pandas.read_csv`` give them: 79 separate blocks);
* **expert numpy**: what an expert writes without validation: one-hot float32
  matrices and float32 matmuls for the counts (exact below 2^24), then the
  metric's formula on the count arrays. Its values are asserted equal to
  biasamp's;
* **peer**: the ``DBA`` class of the ``bias-amplification`` package (kerner-lab,
  dense torch tensors), for A->T without a training split, when installed
  (``pip install bias-amplification==0.2.1``; it needs torch). Its value is printed
  beside biasamp's, not asserted equal: the peer's ``computeTgivenA`` divides each
  (group, task) count by the group's total task count, sum_t C(a, t), where the
  paper's P(T_t = 1 | A_a = 1) divides by the group's row count C(a). On
  multi-label tasks the two differ, so only the time is comparable.

The other calls (no baseline, their time only): ``bias_scores``,
``multi_attribute(max_size=2)`` with ``combinations="subsets"`` and ``"observed"``
(Multi_MALS and Multi-> both ways), ``multi_mals`` and ``multi_directional`` A->T
alone (subsets), ``dpa`` T->A with the exact attacker (``n_iter=1``), and a
``torchmetrics`` ``DirectionalBiasAmplification`` update with a batch of 64 rows
followed by ``compute()``, with the training split given at construction.

The calls of one row are timed in turn, call by call, one call of each per round in a
new random order each round, so that a change in the machine's load reaches every
column of the row alike; each ratio is the median of the per-round ratios. The clock is
the calling thread's CPU time by default (``--clock cpu``): on a machine shared with
other jobs a call preempted by them would otherwise count their time (``--clock wall``
for wall time). Read the ratios, not the times.

First, the container table: ``directional`` A->T without a training split with the
groups in every container a user holds (numpy ``<U`` and object arrays, pandas as
loaded, object and Categorical, integer codes, polars String and Categorical, Arrow
string and dictionary arrays), each against the expert and the peer in the same
rounds, with the Python calls one call makes (``cProfile``) and, given
``--reference-path`` (a folder with the reference code's ``directional_biasamp.py``,
princetonvisualai/directional-bias-amp), the reference code's time and value (asserted
equal). ``--peer-path`` points at a copy of the peer's ``bias_amplification`` package
when it is not installed; without either the peer's column reads "-".
BLAS runs on one thread in every column (``threadpoolctl``), as biasamp's own
count products do: these products take microseconds, and on a machine with more
runnable processes than cores a second BLAS thread that must be woken costs far
more than it saves (the expert's products took 100x longer in alternation).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

import numpy as np

import biasamp
from biasamp.datasets import load_coco_gender

#: The clock of every timing: the calling thread's CPU time (``--clock cpu``, the
#: default: a call's own work, which the other processes of a busy machine do not
#: inflate by preempting it) or wall time (``--clock wall``).
CLOCK = [time.thread_time]


def median_times(fns: list[Callable[[], Any] | None], repeat: int) -> list[tuple[float, Any]]:
    """The median wall time of ``repeat`` calls of each of ``fns`` (after one warm-up) and
    its output; ``(nan, None)`` for ``None``. See :func:`round_times`."""
    times, outs = round_times(fns, repeat)
    return [
        (float(np.median(times[:, i])), outs[i]) if fn is not None else (np.nan, None)
        for i, fn in enumerate(fns)
    ]


def round_times(
    fns: list[Callable[[], Any] | None], repeat: int
) -> tuple[np.ndarray, dict[int, Any]]:
    """``(repeat, len(fns))`` wall times (NaN for ``None``) and each function's output. The
    functions are called in turn, one call each per round, in a new random order each
    round: the machine's load reaches them alike, and on a busy machine the scheduler's
    time slice, which ends at about the same point of every round, hits none of them
    more often than the others."""
    present = [(i, fn) for i, fn in enumerate(fns) if fn is not None]
    outs = {i: fn() for i, fn in present}
    times = np.full((repeat, len(fns)), np.nan)
    order = np.random.default_rng(0)
    for r in range(repeat):
        for j in order.permutation(len(present)):
            i, fn = present[j]
            start = CLOCK[0]()
            fn()
            times[r, i] = CLOCK[0]() - start
    return times, outs


def _round_ratio(times: np.ndarray, a: int, b: int, digits: int) -> str:
    """The median over rounds of column ``a``'s time over column ``b``'s."""
    ratio = times[:, a] / times[:, b]
    return "-" if np.isnan(ratio).all() else f"{np.nanmedian(ratio):.{digits}f}x"


def load(seed: int = 0) -> dict[str, Any]:
    train, test = load_coco_gender("val"), load_coco_gender("test")
    objects = [c for c in test.columns if c not in ("image_id", "gender")]
    rng = np.random.default_rng(seed)
    tasks = test[objects].to_numpy(np.int8)
    flip = rng.random(tasks.shape) < 0.1
    tasks_pred = np.where(flip, 1 - tasks, tasks).astype(np.int8)
    groups = test["gender"].to_numpy(str)
    groups_pred = np.where(
        rng.random(groups.size) < 0.1, np.where(groups == "man", "woman", "man"), groups
    )
    wide = {  # the same 0/1 tasks as the int64 arrays DataFrame.to_numpy() gives
        "tasks": test[objects].to_numpy(),
        "tasks_pred": tasks_pred.astype(np.int64),
        "tasks_train": train[objects].to_numpy(),
    }
    return {
        "objects": objects,
        "int64": wide,
        "groups": groups,
        "groups_pred": groups_pred,
        "tasks": tasks,
        "tasks_pred": tasks_pred,
        "groups_train": train["gender"].to_numpy(str),
        "tasks_train": train[objects].to_numpy(np.int8),
        "pandas": {
            "groups": test["gender"],
            "groups_pred": test["gender"]
            .set_axis(test.index)
            .where(groups_pred == groups, np.where(groups == "man", "woman", "man")),
            "tasks": test[objects],
            "tasks_pred": test[objects]
            .set_axis(test.index)
            .copy()
            .pipe(lambda f: f.where(~flip, 1 - f)),
            "groups_train": train["gender"],
            "tasks_train": train[objects],
        },
    }


# ------------------------------------------------------------------------ expert numpy
def one_hot(labels: np.ndarray, classes: np.ndarray) -> np.ndarray:
    return (labels[:, None] == classes[None, :]).astype(np.float32)


def sign_term(gt: np.ndarray, tt: np.ndarray) -> np.ndarray:
    """y_at = sign(P(a,t) - P(a)P(t)), compared exactly on counts (ties give 0)."""
    joint = (gt.T @ tt).astype(np.float64) * gt.shape[0]
    return np.sign(joint - np.outer(gt.sum(0), tt.sum(0)).astype(np.float64))


def expert_a_to_t(d: dict[str, Any], *, train: bool) -> float:
    classes = np.array(["man", "woman"])
    g = one_hot(d["groups"], classes)
    t, tp = d["tasks"].astype(np.float32), d["tasks_pred"].astype(np.float32)
    if train:
        gt, tt = one_hot(d["groups_train"], classes), d["tasks_train"].astype(np.float32)
    else:
        gt, tt = g, t
    y = sign_term(gt, tt)
    n_g = g.sum(0)[:, None]
    delta = (g.T @ tp) / n_g - (g.T @ t) / n_g
    return float((y * delta).mean())


def expert_t_to_a(d: dict[str, Any]) -> float:
    classes = np.array(["man", "woman"])
    g, gp = one_hot(d["groups"], classes), one_hot(d["groups_pred"], classes)
    t = d["tasks"].astype(np.float32)
    gt, tt = one_hot(d["groups_train"], classes), d["tasks_train"].astype(np.float32)
    y = sign_term(gt, tt)
    n_t = t.sum(0)[None, :]
    keep = n_t[0] > 0
    delta = ((gp.T @ t) - (g.T @ t))[:, keep] / n_t[:, keep]
    return float((y[:, keep] * delta).mean())


def expert_mals(d: dict[str, Any]) -> float:
    classes = np.array(["man", "woman"])
    gt, tt = one_hot(d["groups_train"], classes), d["tasks_train"].astype(np.float32)
    g, tp = one_hot(d["groups"], classes), d["tasks_pred"].astype(np.float32)
    b_train = (gt.T @ tt) / tt.sum(0)
    b_pred = (g.T @ tp) / tp.sum(0)
    biased = b_train > 1 / classes.size
    return float((b_pred - b_train)[biased].sum() / tt.shape[1])


def peer_dba(d: dict[str, Any]) -> Callable[[], float] | None:
    try:
        import torch
        from bias_amplification.metrics import DBA  # type: ignore[import-not-found]
    except ImportError:  # neither installed nor on --peer-path
        return None
    a = torch.tensor(one_hot(d["groups"], np.array(["man", "woman"])))
    t, tp = (
        torch.tensor(d["tasks"], dtype=torch.float32),
        torch.tensor(d["tasks_pred"], dtype=torch.float32),
    )
    torch.set_num_threads(1)  # one thread, as BLAS here: OpenMP threads spin between calls
    metric = DBA()
    return lambda: float(metric.computeBiasAmp(a, t, tp)[0])


def group_containers(d: dict[str, Any]) -> dict[str, Any]:
    """The evaluation groups in every container a user holds (the same labels)."""
    test = load_coco_gender("test")
    out: dict[str, Any] = {
        "numpy `<U`": d["groups"],
        "numpy object (`Series.to_numpy()`)": test["gender"].to_numpy(),
        f"pandas as loaded (`{test['gender'].dtype}`)": test["gender"],
        "pandas object": test["gender"].astype(object),
        "pandas Categorical": test["gender"].astype("category"),
        "integer codes (numpy int64)": (d["groups"] == "woman").astype(np.int64),
    }
    try:
        import polars as pl

        out["polars String"] = pl.Series(d["groups"])
        out["polars Categorical"] = pl.Series(d["groups"], dtype=pl.Categorical)
    except ImportError:
        pass
    try:
        import pyarrow as pa

        out["Arrow `string` array"] = pa.array(d["groups"])
        out["Arrow dictionary array"] = pa.array(d["groups"]).dictionary_encode()
    except ImportError:
        pass
    return out


def python_calls(fn: Callable[[], Any]) -> int:
    """Python function calls (and C calls cProfile sees) of one call of ``fn``."""
    import cProfile
    import pstats

    fn()
    profile = cProfile.Profile()
    profile.enable()
    fn()
    profile.disable()
    return int(pstats.Stats(profile).total_calls)  # type: ignore[attr-defined]


def reference_a_to_t(d: dict[str, Any]) -> Callable[[], float] | None:
    """The reference code's ``biasamp_attribute_to_task`` (princetonvisualai/directional-
    bias-amp, ``directional_biasamp.py``, from a copy on ``--reference-path``): a loop
    over (attribute, task) pairs with ``np.where`` and Python sets."""
    try:
        from directional_biasamp import (  # type: ignore[import-not-found]
            biasamp_attribute_to_task,
        )
    except ImportError:
        return None
    a = one_hot(d["groups"], np.array(["man", "woman"]))
    return lambda: float(biasamp_attribute_to_task(d["tasks"], a, d["tasks_pred"]))


def containers_table(d: dict[str, Any], repeat: int) -> None:
    """``directional`` A->T without a training split, the groups in each container, timed
    in turn with the expert and the peer: one round calls the expert, the peer and every
    container once, in a random order; each container's ratios are the medians of its
    per-round ratios (the load of a round reaches all of them alike)."""
    containers = group_containers(d)

    def ours(groups: Any) -> Callable[[], Any]:
        return lambda: biasamp.directional(
            direction="A->T", groups=groups, tasks=d["tasks"], tasks_pred=d["tasks_pred"]
        )

    expert = lambda: expert_a_to_t(d, train=False)  # noqa: E731
    peer = peer_dba(d)
    calls = {name: ours(groups) for name, groups in containers.items()}
    value = float(calls["numpy `<U`"]().value)
    for name, call in calls.items():  # every container gives the same value
        assert float(call().value) == value, name
    assert np.isclose(value, expert(), rtol=1e-5, atol=1e-7)
    fns: dict[str, Callable[[], Any]] = {"expert": expert, **calls}
    if peer is not None:
        fns["peer"] = peer
    for fn in fns.values():  # warm-up
        fn()
    times = {name: np.empty(repeat) for name in fns}
    names = list(fns)
    order = np.random.default_rng(0)
    for r in range(repeat):
        # a new order each round: on a busy machine the scheduler's time slice ends at
        # about the same point of each round, which would always hit the same call
        for i in order.permutation(len(names)):
            start = CLOCK[0]()
            fns[names[i]]()
            times[names[i]][r] = CLOCK[0]() - start
    reference = reference_a_to_t(d)
    print(
        f"\ndirectional A->T, no training split, COCO test {d['tasks'].shape[0]:,} x "
        f"{d['tasks'].shape[1]} (int8 task matrices), the groups in each container; "
        f"median of {repeat} rounds, ms ({_clock_name()})\n"
    )
    print("| groups container | biasamp | Python calls | biasamp / expert | biasamp / peer `DBA` |")
    print("|---|---:|---:|---:|---:|")
    for name in calls:
        vs_expert = np.median(times[name] / times["expert"])
        vs_peer = f"{np.median(times[name] / times['peer']):.2f}x" if peer is not None else "-"
        print(
            f"| {name} | {_ms(float(np.median(times[name])))} | {python_calls(calls[name])} "
            f"| {vs_expert:.2f}x | {vs_peer} |"
        )
    peer_ms = _ms(float(np.median(times["peer"]))) if peer is not None else "not run"
    print(
        f"\nexpert numpy {_ms(float(np.median(times['expert'])))} ms "
        f"({python_calls(expert)} Python calls); peer `DBA` on prebuilt float32 tensors "
        f"{peer_ms} ms"
    )
    if reference is not None:
        ref_times = []
        for _ in range(5):
            start = CLOCK[0]()
            ref_value = reference()
            ref_times.append(CLOCK[0]() - start)
        assert np.isclose(ref_value, value, rtol=1e-9, atol=1e-12), (ref_value, value)
        print(
            f"reference code (princetonvisualai `biasamp_attribute_to_task`, per-pair loop): "
            f"{_ms(float(np.median(ref_times)))} ms, value {ref_value:.9f} (biasamp {value:.9f})"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=200)
    parser.add_argument(
        "--containers-only", action="store_true", help="only the table of group containers"
    )
    parser.add_argument("--clock", choices=("cpu", "wall"), default="cpu")
    parser.add_argument(
        "--peer-path",
        default=None,
        help="a folder holding a copy of the peer's bias_amplification package",
    )
    parser.add_argument(
        "--reference-path",
        default=None,
        help="a folder holding the reference code's directional_biasamp.py",
    )
    args = parser.parse_args()
    import sys

    CLOCK[0] = time.thread_time if args.clock == "cpu" else time.perf_counter
    for path in (args.peer_path, args.reference_path):
        if path is not None:
            sys.path.append(path)  # the benchmark imports them; the repository holds neither
    from threadpoolctl import threadpool_limits  # installed with scikit-learn

    threadpool_limits(limits=1, user_api="blas")
    d = load()
    containers_table(d, args.repeat)
    if args.containers_only:
        return
    p = d["pandas"]
    numpy_args = {k: d[k] for k in ("groups", "tasks", "tasks_pred", "groups_train", "tasks_train")}
    wide_args = {**numpy_args, **d["int64"]}
    rows = []
    ratios: dict[str, tuple[str, str, str, str]] = {}
    peer_values: list[tuple[str, float, float]] = []

    def row(
        name: str,
        ours: Callable[[Any], Any],
        expert: Callable[[], float] | None,
        peer: Callable[[], float] | None,
        *,
        other_inputs: bool,
    ) -> None:
        """``ours(inputs)`` with the numpy inputs and, when ``other_inputs``, the int64
        arrays and the pandas objects, all timed in turn with the expert and the peer."""
        times, outs = round_times(
            [
                lambda: ours(numpy_args),
                (lambda: ours(wide_args)) if other_inputs else None,
                (lambda: ours(p)) if other_inputs else None,
                expert,
                peer,
            ],
            args.repeat,
        )
        t_ours, t_wide, t_pd, t_exp, t_peer = (float(np.median(times[:, i])) for i in range(5))
        value, v_exp, v_peer = outs[0], outs.get(3), outs.get(4)
        ratios[name] = (
            _round_ratio(times, 0, 3, 2),
            _round_ratio(times, 0, 4, 2),
            _round_ratio(times, 2, 0, 2),
            _round_ratio(times, 2, 1, 2),
        )
        if v_exp is not None:
            assert np.isclose(float(value), v_exp, rtol=1e-5, atol=1e-7), (
                name,
                float(value),
                v_exp,
            )
        if v_peer is not None:
            peer_values.append((name, float(value), v_peer))
        rows.append((name, t_ours, t_wide, t_pd, t_exp, t_peer))

    row(
        "directional A->T, training split",
        lambda x: biasamp.directional(
            direction="A->T",
            groups=x["groups"],
            tasks=x["tasks"],
            tasks_pred=x["tasks_pred"],
            groups_train=x["groups_train"],
            tasks_train=x["tasks_train"],
        ),
        lambda: expert_a_to_t(d, train=True),
        None,
        other_inputs=True,
    )
    row(
        "directional T->A, training split",
        lambda x: biasamp.directional(
            direction="T->A",
            groups=d["groups"],
            tasks=x["tasks"],
            groups_pred=d["groups_pred"],
            groups_train=d["groups_train"],
            tasks_train=x["tasks_train"],
        ),
        lambda: expert_t_to_a(d),
        None,
        other_inputs=False,
    )
    row(
        "directional A->T, no training split",
        lambda x: biasamp.directional(
            direction="A->T", groups=x["groups"], tasks=x["tasks"], tasks_pred=x["tasks_pred"]
        ),
        lambda: expert_a_to_t(d, train=False),
        peer_dba(d),
        other_inputs=False,
    )
    row(
        "mals",
        lambda x: biasamp.mals(
            groups_train=x["groups_train"],
            tasks_train=x["tasks_train"],
            groups_pred=x["groups"],
            tasks_pred=x["tasks_pred"],
        ),
        lambda: expert_mals(d),
        None,
        other_inputs=True,
    )
    print(
        f"COCO test {d['tasks'].shape[0]:,} x {d['tasks'].shape[1]} (train {d['tasks_train'].shape[0]:,}), "
        f"median of {args.repeat} calls, ms ({_clock_name()})\n"
    )
    print(
        "| call | biasamp, numpy | numpy int64 | pandas | expert numpy | peer DBA "
        "| biasamp / expert | biasamp / peer | pandas / numpy | pandas / numpy int64 |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, t_ours, t_wide, t_pd, t_exp, t_peer in rows:
        cells = [_ms(t) for t in (t_ours, t_wide, t_pd, t_exp, t_peer)]
        cells += list(ratios[name])  # medians of the per-round ratios
        print(f"| {name} | " + " | ".join(cells) + " |")
    other_calls(d, p, args.repeat)
    for name, ours, peer in peer_values:
        print(f"\n{name}: biasamp {ours:.6f}, peer DBA {peer:.6f} (P(T|A) normalised over tasks)")


def _clock_name() -> str:
    return "thread CPU time" if CLOCK[0] is time.thread_time else "wall time"


def _ms(seconds: float) -> str:
    return "-" if np.isnan(seconds) else f"{1e3 * seconds:.2f}"


def other_calls(d: dict[str, Any], p: dict[str, Any], repeat: int) -> None:
    """The calls without a baseline: their median times, numpy (and pandas) inputs."""
    import warnings

    def roles(x: dict[str, Any], *names: str) -> dict[str, Any]:
        return {name: x[name] for name in names}

    everything = ("groups_train", "tasks_train", "groups", "tasks", "groups_pred", "tasks_pred")

    def multi(x: dict[str, Any], **options: Any) -> Any:
        return biasamp.multi_attribute(**roles(x, *everything), max_size=2, **options)

    subsets = {"combinations": "subsets", "max_size": 2}
    calls: list[tuple[str, Callable[[], Any], Callable[[], Any] | None]] = [
        (
            "bias_scores",
            lambda: biasamp.bias_scores(groups=d["groups"], tasks=d["tasks"]),
            lambda: biasamp.bias_scores(groups=p["groups"], tasks=p["tasks"]),
        ),
        (
            'multi_attribute(max_size=2, combinations="subsets")',
            lambda: multi(d, combinations="subsets"),
            lambda: multi(p, combinations="subsets"),
        ),
        (
            'multi_attribute(max_size=2, combinations="observed")',
            lambda: multi(d, combinations="observed"),
            None,
        ),
        (
            'multi_mals(max_size=2, combinations="subsets")',
            lambda: biasamp.multi_mals(
                **roles(d, "groups_train", "tasks_train", "tasks", "groups_pred", "tasks_pred"),
                **subsets,
            ),
            None,
        ),
        (
            'multi_directional A->T (max_size=2, combinations="subsets")',
            lambda: biasamp.multi_directional(
                direction="A->T",
                **roles(d, "groups_train", "tasks_train", "groups", "tasks", "tasks_pred"),
                **subsets,
            ),
            None,
        ),
        (
            "dpa T->A, exact attacker, n_iter=1",
            lambda: biasamp.dpa(
                direction="T->A",
                groups=d["groups"],
                tasks=d["tasks"],
                groups_pred=d["groups_pred"],
                attacker="exact",
                n_iter=1,
                random_state=0,
            ),
            None,
        ),
    ]
    torch_call = torchmetrics_call(d)
    if torch_call is not None:
        calls.append(("torchmetrics A->T, update(64 rows) + compute()", torch_call, None))
    print("\nOther calls (no baseline), median, ms\n")
    print("| call | biasamp, numpy | biasamp, pandas | pandas / numpy |")
    print("|---|---:|---:|---:|")
    for name, ours, ours_pd in calls:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            heavy = name.startswith("multi")  # tens of ms a call: fewer repeats
            n = max(20, repeat // 2) if heavy else repeat
            times, _ = round_times([ours, ours_pd], n)
        t_ours, t_pd = (float(np.median(times[:, i])) for i in range(2))
        print(f"| {name} | {_ms(t_ours)} | {_ms(t_pd)} | {_round_ratio(times, 1, 0, 2)} |")


def torchmetrics_call(d: dict[str, Any]) -> Callable[[], Any] | None:
    """``update`` with the first 64 evaluation rows, then ``compute``, on a fresh metric
    (training split given at construction, counted once outside the timing)."""
    try:
        import torch

        from biasamp.torchmetrics import DirectionalBiasAmplification
    except ImportError:
        return None
    classes = np.array(["man", "woman"])
    k = len(d["objects"])
    metric = DirectionalBiasAmplification(
        direction="A->T",
        num_groups=2,
        num_tasks=k,
        groups_train=torch.tensor(np.searchsorted(classes, d["groups_train"])),
        tasks_train=torch.tensor(d["tasks_train"]),
    )
    groups = torch.tensor(np.searchsorted(classes, d["groups"][:64]))
    tasks = torch.tensor(d["tasks"][:64])
    tasks_pred = torch.tensor(d["tasks_pred"][:64])

    def call() -> Any:
        metric.reset()
        metric.update(groups=groups, tasks=tasks, tasks_pred=tasks_pred)
        return metric.compute()

    return call


if __name__ == "__main__":
    main()

"""Bias amplification of a captioning model: captions -> predicted labels -> co-occurrence metrics.

A captioning model predicts a group (the gendered word of its caption) and tasks
(the objects its caption mentions). Reading them with :func:`caption_labels`
turns the model into the ``groups_pred`` / ``tasks_pred`` that every
co-occurrence metric takes; the image's own labels are the ground truth. This is
how Wang & Russakovsky (ICML 2021, captioning section) measure T->A and A->T on
the captions of Hendricks, Burns et al. (ECCV 2018).

Rows without a group
--------------------
A caption that names no group, or two, has no predicted group. Such rows are
left out of the metrics that read the predicted group (T->A and MALS), as the
reference parser does; ``n_no_group`` and ``n_conflict`` on the result say how
many. A->T reads only the true group and the predicted tasks, so by default it
keeps every row; ``exclude_no_group="all"`` leaves those rows out of A->T too,
which is what the reference code does (it skips the image before counting
anything).

Training side
-------------
The signs of BiasAmp-> and the training bias of MALS come from
``groups_train`` / ``tasks_train`` when given, else from the image labels of
*every* row (``groups``, ``tasks``), so that the reference does not change with
the rows a model's captions leave out.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from biasamp.counts._swaps import check_n_perm
from biasamp.inputs._alignment import align_pandas_indexes
from biasamp.inputs._keys import key_names
from biasamp.inputs._label_matrix import LabelWarning
from biasamp.inputs._readers import read_labels
from biasamp.metrics import directional, mals
from biasamp.registry import metric_card, metric_name, normalize_direction
from biasamp.results import PairwiseResult
from biasamp.results._base import _json_safe
from biasamp.results._persist import SavableResult, register_result
from biasamp.results._significance import chance_text
from biasamp.text._caption_labels import STATUS_CONFLICT, STATUS_NONE, caption_labels

__all__ = ["CaptionBiasResult", "caption_bias_amplification", "caption_bias_table"]

#: The metrics computed from captions, by their canonical names in :mod:`biasamp.registry`;
#: every spelling the registry accepts names them too (``"T->A"``, ``"A->T"``, ``"MALS"``).
METRICS = ("directional-t2a", "directional-a2t", "mals")
#: Predictability metrics that also read human captions (``captions_human``); not in the default.
#: The metrics that compare the model's captions with human captions of the same images.
TEXT_METRICS = ("dbac-a2t", "dbac-t2a", "lic")
ALL_METRICS = METRICS + TEXT_METRICS
EXCLUDE_CHOICES = ("group-side", "all")

ERR_METRICS = "metrics: expected a non-empty subset of {choices}, got {got!r}."
ERR_METRIC_KEY = "{got!r}: the result holds the metrics {known}."
ERR_EXCLUDE = "exclude_no_group: expected one of {choices}, got {got!r}."
ERR_TASKS_FRAME = (
    "tasks: expected a DataFrame of 0/1 task columns (the column names say which "
    "words to read), got {got}."
)
ERR_TASK_WORDS = (
    "tasks: no words for the column(s) {missing} in task_words (known: {known}); name the "
    "columns as the lexicon's labels or pass task_words."
)
ERR_LENGTH = "{arg}: {got} rows, but captions has {n}."
ERR_GROUP_LABELS = (
    "groups: the label(s) {unknown} are not groups of group_words ({known}); the captions "
    "can only name those."
)
ERR_NO_GROUP_ROWS = (
    "captions: no caption names exactly one group, so {metrics} cannot be computed "
    "(check group_words)."
)
ERR_MODELS = "captions: expected a dict {{model: captions}} or a DataFrame, got {got}."


ERR_NO_HUMAN = (
    "captions_human: {metrics} compare the model's captions with human captions of the same "
    "images; pass captions_human (one caption or a list of captions per row)."
)


def _metric_list(metrics: Any) -> tuple[str, ...]:
    """The canonical names of ``metrics`` (any spelling the registry accepts)."""
    chosen = (metrics,) if isinstance(metrics, str) else tuple(metrics)
    if not chosen:
        raise ValueError(ERR_METRICS.format(choices=ALL_METRICS, got=metrics))
    return tuple(
        dict.fromkeys(metric_name(m, among=ALL_METRICS, argument="metrics") for m in chosen)
    )


@register_result(
    "caption_bias",
    shapes=lambda r: {"n": r.n, "n_one_group": r.n_one_group, "metrics": list(r.results)},
)
@dataclass(repr=False)
class CaptionBiasResult(SavableResult):
    """The result of :func:`caption_bias_amplification`.

    Attributes
    ----------
    results : dict of str -> PairwiseResult or DBACResult
        One result per metric, keyed by its canonical name (``"directional-t2a"``,
        ``"directional-a2t"``, ``"mals"``, and ``"dbac-a2t"``, ``"dbac-t2a"`` when
        asked for, each a :class:`~biasamp.text.DBACResult`), each with its
        interval and ``plot()``; ``result["directional-t2a"]`` reads one, and so does
        any other spelling the registry accepts (``result["T->A"]``, ``result["MALS"]``).
    n : int
        Rows (images).
    n_one_group, n_no_group, n_conflict : int
        Rows whose captions name exactly one group, none, or two.
    n_excluded : int
        ``n_no_group + n_conflict``: rows left out of T->A and MALS (and of A->T
        with ``exclude_no_group="all"``).
    group_accuracy : float
        Share of the rows with one group whose group is the image's (NaN if none).
    exclude_no_group : str
    params : dict
        Settings used.
    """

    results: dict[str, Any]
    n: int
    n_one_group: int
    n_no_group: int
    n_conflict: int
    group_accuracy: float
    exclude_no_group: str
    params: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # results saved before the canonical names were keyed "T->A", "A->T", "MALS"
        self.results = {_canonical_key(k): v for k, v in self.results.items()}

    def __getitem__(self, metric: str) -> Any:
        key = _canonical_key(metric)
        if key not in self.results:
            raise KeyError(ERR_METRIC_KEY.format(got=metric, known=list(self.results)))
        return self.results[key]

    @property
    def metric_names(self) -> list[str]:
        """The canonical names of the metrics held, in order."""
        return list(self.results)

    @property
    def n_excluded(self) -> int:
        """Rows without a predicted group (none or a conflict)."""
        return self.n_no_group + self.n_conflict

    def table(self) -> pd.DataFrame:
        """One row per metric: ``metric`` (the canonical name), ``title``, ``value``,
        ``ci_low``, ``ci_high``, ``n``, and ``p_value`` when the swap test ran
        (``n_perm``)."""
        rows = []
        tested = any(getattr(res, "p_value", None) is not None for res in self.results.values())
        for key, res in self.results.items():
            low, high = res.ci if res.ci is not None else (np.nan, np.nan)
            rows.append(
                {"metric": key, "title": res.title, "value": res.value, "ci_low": low,
                 "ci_high": high, "n": res.n}
            )  # fmt: skip
            if tested:
                p = getattr(res, "p_value", None)
                rows[-1]["p_value"] = np.nan if p is None else p
        columns = ["metric", "title", "value", "ci_low", "ci_high", "n"]
        return pd.DataFrame(rows, columns=columns + (["p_value"] if tested else []))

    def summary(self) -> str:
        """A short human-readable summary."""
        lines = [
            f"Caption bias amplification: {self.n} rows, {self.n_one_group} with one group "
            f"(accuracy {self.group_accuracy:.4f}), {self.n_no_group} with none, "
            f"{self.n_conflict} with two",
        ]
        for key, res in self.results.items():
            line = f"  {key:<15} {res.value:+.4f}"
            if res.ci is not None:
                line += f"  [{res.ci[0]:+.4f}, {res.ci[1]:+.4f}]"
            line += f"  (n={res.n:g})"
            if getattr(res, "p_value", None) is not None:
                line += f"  {chance_text(res.p_value)}"
            lines.append(line)
        return "\n".join(lines)

    def __repr__(self) -> str:
        return self.summary()

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dictionary (each metric without its per-pair table)."""
        return _json_safe(
            {
                "metric": "caption_bias",
                "n": self.n,
                "n_one_group": self.n_one_group,
                "n_no_group": self.n_no_group,
                "n_conflict": self.n_conflict,
                "n_excluded": self.n_excluded,
                "group_accuracy": self.group_accuracy,
                "exclude_no_group": self.exclude_no_group,
                "results": {
                    k: r.to_dict(pairs=False) if isinstance(r, PairwiseResult) else r.to_dict()
                    for k, r in self.results.items()
                },
                "params": self.params,
            }
        )

    def plot(self, *, ax: Any = None) -> Any:
        """The metrics as bars with their bootstrap intervals (matplotlib); returns the Axes."""
        from biasamp.results._plotting import new_axes

        ax = new_axes(ax, figsize=(5.0, 3.2))
        frame = self.table()
        y = np.arange(len(frame))[::-1]
        values = frame["value"].to_numpy(dtype=float)
        ax.barh(y, values, color=np.where(values > 0, "#b2182b", "#2166ac"), alpha=0.85)
        if frame["ci_low"].notna().any():
            err = np.vstack([values - frame["ci_low"], frame["ci_high"] - values])
            ax.errorbar(values, y, xerr=np.nan_to_num(np.clip(err, 0, None)), fmt="none",
                        ecolor="black", capsize=3)  # fmt: skip
        ax.axvline(0, color="black", linewidth=0.8)
        ax.set_yticks(y, frame["metric"])
        ax.set_xlabel("bias amplification")
        ax.set_title(
            f"{self.n_one_group} of {self.n} captions name one group "
            f"(accuracy {self.group_accuracy:.3f})",
            fontsize=9,
        )
        return ax


def _canonical_key(metric: object) -> str:
    """A metric's canonical name when the registry knows the spelling, else the key as is."""
    try:
        return metric_card(metric).name
    except ValueError:
        return str(metric)


def _as_tasks(tasks: Any, n: int, arg: str) -> pd.DataFrame:
    if not isinstance(tasks, pd.DataFrame):
        raise TypeError(ERR_TASKS_FRAME.format(got=type(tasks).__name__))
    if len(tasks) != n:
        raise ValueError(ERR_LENGTH.format(arg=arg, got=len(tasks), n=n))
    key_names(tasks.columns, arg=arg)
    return tasks.reset_index(drop=True)


def _as_labels(values: Any, n: int, arg: str) -> np.ndarray:
    """One label per image, read by the boundary's labels reader (missing labels and labels
    that print alike refused, naming the row), as an object array of the labels."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", LabelWarning)  # one group: the metrics say so
        labels = read_labels(values, arg=arg)
    if len(labels) != n:
        raise ValueError(ERR_LENGTH.format(arg=arg, got=len(labels), n=n))
    return np.asarray(labels.names, dtype=object)[labels.codes]


def caption_bias_amplification(
    *,
    captions: Any,
    groups: Any,
    tasks: pd.DataFrame,
    groups_train: Any = None,
    tasks_train: pd.DataFrame | None = None,
    metrics: str | Sequence[str] = METRICS,
    group_words: Mapping[Any, Any] | None = None,
    task_words: Mapping[Any, Any] | Sequence[str] | None = None,
    mask: bool = False,
    exclude_no_group: str = "group-side",
    margin: float = 0.05,
    n_boot: int | None = None,
    ci: float = 0.95,
    random_state: Any = None,
    captions_human: Any = None,
    dbac_params: Mapping[str, Any] | None = None,
    lic_params: Mapping[str, Any] | None = None,
    n_perm: int = 0,
) -> CaptionBiasResult:
    """Bias amplification of a captioning model, measured on its captions.

    Reads each caption's group and objects with :func:`caption_labels` and
    computes the co-occurrence metrics against the image's own labels:
    directional T->A (does what is in the image drive the gendered word?),
    A->T (does the person's group drive which objects the caption mentions?)
    and BiasAmp_MALS.

    Parameters
    ----------
    captions : sequence of str (or of lists of str), shape (n,)
        The model's caption of each image (see :func:`caption_labels`).
    groups : array-like of shape (n,)
        The image's true group, spelt as the keys of ``group_words``
        (``"man"`` / ``"woman"`` by default).
    tasks : DataFrame of shape (n, n_tasks)
        The image's true tasks, 0/1; each column name must be a label of
        ``task_words`` (the default lexicon covers the 80 COCO categories,
        named as in :func:`biasamp.datasets.load_coco_gender`).
    groups_train, tasks_train : optional
        The training split's labels (signs of BiasAmp->, training bias of
        MALS); default: ``groups`` and ``tasks`` of every row.
    metrics : str or sequence of {"directional-t2a", "directional-a2t", "mals", "dbac-a2t", "dbac-t2a", "lic"}
        Default the three co-occurrence metrics; DBAC and LIC need ``captions_human``.
        The canonical names; every spelling :mod:`biasamp.registry` accepts works
        too (``"T->A"``, ``"A->T"``, ``"MALS"``, ``"BiasAmp T->A"``, ``"DBAC T->A"``).
    group_words, task_words : optional
        Lexicons (:func:`caption_labels`).
    mask : bool, default False
        Remove the group words before the objects are read.
    exclude_no_group : {"group-side", "all"}, default "group-side"
        Rows whose captions name no group (or two) are always left out of T->A
        and MALS; ``"all"`` leaves them out of A->T too, as the reference code.
    margin : float, default 0.05
        MALS margin.
    n_boot : int, optional
        Bootstrap replicates for the intervals (each metric's ``ci``).
    ci : float, default 0.95
    random_state : None, int or numpy Generator
        Seed of the bootstrap (and of DBAC's splits and attackers).
    captions_human : sequence of str or of lists of str, shape (n,), optional
        Human captions of the same images, for the DBAC metrics and LIC.
    dbac_params : dict, optional
        Further keyword arguments of :func:`biasamp.dbac` (``n_iter``,
        ``attacker``, ``test_size``, ``align``, ``mask_words``); its
        ``task_words`` are this function's.
    lic_params : dict, optional
        Further keyword arguments of :func:`biasamp.lic` (``n_iter``, ``attacker``,
        ``test_size``, ``balance``, ``normalized``, ``mask_words``); its
        ``random_state`` is this function's.
    n_perm : int, default 0
        The paired swap test against chance for every metric (0: no test): each
        image's labels and the labels read from its caption swap with probability
        1/2 (T->A, A->T, MALS); for DBAC the image's human and model captions
        swap. Each metric's result then has ``p_value`` and ``null``.

    Returns
    -------
    CaptionBiasResult
        ``results`` (one :class:`PairwiseResult` per metric), ``n_no_group``,
        ``n_conflict``, ``n_excluded``, ``group_accuracy``, ``table()``,
        ``plot()``, ``save()``.

    Examples
    --------
    >>> import pandas as pd
    >>> from biasamp.text import caption_bias_amplification
    >>> captions = ["a man riding skis", "a woman with a dog", "a man with a dog",
    ...             "a person on skis", "a woman on skis", "a man with skis"]
    >>> groups = ["man", "woman", "woman", "man", "woman", "man"]
    >>> tasks = pd.DataFrame({"skis": [1, 0, 0, 1, 1, 1], "dog": [0, 1, 1, 0, 0, 0]})
    >>> result = caption_bias_amplification(captions=captions, groups=groups, tasks=tasks)
    >>> result.n_no_group, round(result.group_accuracy, 3)
    (1, 0.8)
    >>> round(result["directional-t2a"].value, 4), round(result["T->A"].value, 4)
    (-0.25, -0.25)
    """
    chosen = _metric_list(metrics)
    text_metrics = [m for m in chosen if m in TEXT_METRICS]
    if text_metrics and captions_human is None:
        raise ValueError(ERR_NO_HUMAN.format(metrics=text_metrics))
    if exclude_no_group not in EXCLUDE_CHOICES:
        raise ValueError(ERR_EXCLUDE.format(choices=EXCLUDE_CHOICES, got=exclude_no_group))
    aligned = align_pandas_indexes(
        captions=captions, groups=groups, tasks=tasks, captions_human=captions_human
    )
    captions, groups, tasks = aligned["captions"], aligned["groups"], aligned["tasks"]
    captions_human = aligned["captions_human"]
    trained = align_pandas_indexes(groups_train=groups_train, tasks_train=tasks_train)
    groups_train, tasks_train = trained["groups_train"], trained["tasks_train"]
    labels = caption_labels(captions, group_words=group_words, task_words=task_words, mask=mask)
    n = len(labels.groups)
    truth_groups = _as_labels(groups, n, "groups")
    truth_tasks = _as_tasks(tasks, n, "tasks")
    missing = [c for c in truth_tasks.columns if c not in labels.tasks.columns]
    if missing:
        raise ValueError(
            ERR_TASK_WORDS.format(missing=missing[:10], known=list(labels.tasks.columns)[:10])
        )
    known_groups = list(labels.group_hits.columns)
    unknown = sorted({str(g) for g in pd.unique(truth_groups)} - set(known_groups))
    if unknown:
        raise ValueError(ERR_GROUP_LABELS.format(unknown=unknown, known=known_groups))
    pred_tasks = labels.tasks[list(truth_tasks.columns)].reset_index(drop=True)
    pred_groups = labels.groups.astype(object).where(labels.groups.notna(), None).to_numpy()
    has = labels.has_group
    group_side = [m for m in chosen if m in ("directional-t2a", "mals")]
    if group_side and not has.any():
        raise ValueError(ERR_NO_GROUP_ROWS.format(metrics=group_side))
    if groups_train is None and tasks_train is None:
        groups_train, tasks_train = truth_groups, truth_tasks
    n_perm = check_n_perm(n_perm)
    common: dict[str, Any] = {
        "n_boot": n_boot,
        "ci": ci,
        "random_state": random_state,
        "n_perm": n_perm,
    }
    names = {"group_names": known_groups, "task_names": list(truth_tasks.columns)}
    results: dict[str, Any] = {}
    dbac_results: dict[str, Any] = {}
    if any(m.startswith("dbac-") for m in text_metrics) and n_perm:
        from biasamp.text._dbac import dbac

        for metric in text_metrics:
            if not metric.startswith("dbac-"):
                continue
            dbac_results[metric] = dbac(
                direction=normalize_direction(metric.removeprefix("dbac-")),
                captions_human=captions_human, captions_model=captions, groups=truth_groups,
                task_words=task_words, random_state=random_state, n_perm=n_perm,
                **dict(dbac_params or {}),
            )  # fmt: skip
    elif any(m.startswith("dbac-") for m in text_metrics):
        from biasamp.text._dbac import dbac_both

        dbac_results = dbac_both(
            captions_human=captions_human, captions_model=captions, groups=truth_groups,
            task_words=task_words, random_state=random_state, **dict(dbac_params or {}),
        )  # fmt: skip
    for metric in chosen:
        if metric == "lic":
            from biasamp.text._lic import lic

            results[metric] = lic(
                captions_human=captions_human, captions_model=captions, groups=truth_groups,
                random_state=random_state, n_perm=n_perm, **dict(lic_params or {}),
            )  # fmt: skip
            continue
        if metric in TEXT_METRICS:
            results[metric] = dbac_results[metric]
            continue
        a2t = metric == "directional-a2t"
        rows = has if (not a2t or exclude_no_group == "all") else np.ones(n, bool)
        if metric == "mals":
            # the image labels of the same rows: the swap test exchanges them with the
            # caption's (they do not change the value)
            truth = {"groups": truth_groups[rows], "tasks": truth_tasks[rows]} if n_perm else {}
            results[metric] = mals(
                groups_train=groups_train, tasks_train=tasks_train,
                groups_pred=pred_groups[rows], tasks_pred=pred_tasks[rows],
                margin=margin, **truth, **common,
            )  # fmt: skip
        else:
            pred = {"tasks_pred": pred_tasks[rows]} if a2t else {"groups_pred": pred_groups[rows]}
            results[metric] = directional(
                direction="A->T" if a2t else "T->A", groups=truth_groups[rows], tasks=truth_tasks[rows],
                groups_train=groups_train, tasks_train=tasks_train, **pred, **common,
            )  # fmt: skip
    counts = labels.counts()
    correct = pred_groups[has] == truth_groups[has]
    return CaptionBiasResult(
        results=results,
        n=n,
        n_one_group=int(has.sum()),
        n_no_group=counts[STATUS_NONE],
        n_conflict=counts[STATUS_CONFLICT],
        group_accuracy=float(correct.mean()) if has.any() else float("nan"),
        exclude_no_group=exclude_no_group,
        params={"mask": mask, "margin": margin, "n_boot": n_boot, "ci": ci, **names},
    )


def caption_bias_table(
    captions: Mapping[str, Any] | pd.DataFrame, **kwargs: Any
) -> tuple[pd.DataFrame, dict[str, CaptionBiasResult]]:
    """Several captioning models side by side: one row per model.

    Parameters
    ----------
    captions : dict {model: captions} or DataFrame (one caption column per model)
    **kwargs
        Passed to :func:`caption_bias_amplification` (``groups``, ``tasks``, ...).

    Returns
    -------
    table : DataFrame
        One row per model: ``model``, ``n``, ``one_group``, ``no_group``,
        ``conflict``, ``group_accuracy``, and per metric (by its canonical name,
        ``directional-t2a``) ``{metric}``, ``{metric} ci_low``, ``{metric} ci_high``.
    results : dict of str -> CaptionBiasResult

    Examples
    --------
    >>> import pandas as pd
    >>> from biasamp.text import caption_bias_table
    >>> captions = pd.DataFrame({"a": ["a man on skis", "a woman", "a man with a dog"],
    ...                          "b": ["a woman on skis", "a woman", "a person"]})
    >>> table, _ = caption_bias_table(captions, groups=["man", "woman", "man"],
    ...     tasks=pd.DataFrame({"skis": [1, 0, 0], "dog": [0, 0, 1]}), metrics="A->T")
    >>> table[["model", "no_group", "group_accuracy"]].to_numpy().tolist()
    [['a', 0, 1.0], ['b', 1, 0.5]]
    """
    if isinstance(captions, pd.DataFrame):
        names = key_names(captions.columns, arg="captions")
        models = {name: captions.iloc[:, i] for i, name in enumerate(names)}
    elif isinstance(captions, Mapping):
        models = dict(zip(key_names(captions, arg="captions"), captions.values(), strict=True))
    else:
        raise TypeError(ERR_MODELS.format(got=type(captions).__name__))
    results = {name: caption_bias_amplification(captions=c, **kwargs) for name, c in models.items()}
    rows = []
    for name, res in results.items():
        row: dict[str, Any] = {
            "model": name, "n": res.n, "one_group": res.n_one_group,
            "no_group": res.n_no_group, "conflict": res.n_conflict,
            "group_accuracy": res.group_accuracy,
        }  # fmt: skip
        for _, metric_row in res.table().iterrows():
            key = metric_row["metric"]
            row[key] = metric_row["value"]
            row[f"{key} ci_low"] = metric_row["ci_low"]
            row[f"{key} ci_high"] = metric_row["ci_high"]
            if "p_value" in metric_row.index:  # the swap test ran (n_perm=)
                row[f"{key} p_value"] = metric_row["p_value"]
        rows.append(row)
    return pd.DataFrame(rows), results

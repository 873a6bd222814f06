"""What the shipped Hugging Face ``evaluate`` modules compute, without ``evaluate``.

Each module (``modules/<name>/<name>.py``) is a thin ``evaluate.Metric`` that hands
its columns to one function here, so the numbers are biasamp's and can be tested
without ``evaluate`` installed.

Inputs follow the hub module ``angelina-wang/directional_bias_amplification``:
``predictions`` and ``references`` are (n, |T|) 0/1 task indicators, ``attributes``
(n, |A|) 0/1 group indicators; ``disagg_bias_amplification`` is the (|A|, |T|)
matrix of ``y_at * delta_at`` (NaN for a pair whose group has no row).

``mode="hub"`` reproduces the hub module's definition: A->T only, the sign
``y_at`` from the evaluation references with every row counted (``train_rows="all"``).
Where its values can differ from the hub module's, and why:

* exact ties: biasamp compares integer counts, so ``P(a, t) = P(a) P(t)`` gives
  ``y_at = 0``; the hub module's float ``np.sign`` of a difference of rounded
  quotients can give +1 or -1 there;
* nothing else: on the same arrays the values agree to rounding
  (``tests/hf_evaluate``).

``mode="biasamp"`` (the default) is :func:`biasamp.directional`'s definition: the
sign from the training split when ``train_references`` / ``train_attributes`` are
given (Wang & Russakovsky, section 3), else from the evaluation references; the
rows counted are those with a group or a task (the reference code's
``"labelled"`` rule, ``docs/metrics/directional.md``); both directions (T->A takes
the predicted *attributes* as ``predictions``); an interval with ``n_boot``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from biasamp._deprecation import REMOVED_IN, RenamedKeys
from biasamp.metrics._directional import directional
from biasamp.metrics._mals import mals
from biasamp.metrics._multi_attribute import multi_directional

__all__ = ["directional_outputs", "mals_outputs", "multi_attribute_outputs"]

ERR_MODE = "mode: expected 'biasamp' or 'hub', got {got!r}."
ERR_HUB_DIRECTION = "mode='hub': the hub module computes A->T only, got direction {got!r}."
ERR_TRAIN_PAIR = "train_references, train_attributes: give both or neither."
ERR_INDICATOR_SHAPE = (
    "{arg}: expected an (n, k) matrix of 0/1 indicators (one list of numbers per row), got {got}."
)
ERR_INDICATOR_TYPE = "{arg}: expected 0/1 numbers, got values of dtype {dtype} ({examples})."
ERR_NOT_INDICATORS = (
    "{arg}: expected 0/1 indicators, found {count} other value(s) ({examples}). Probabilities "
    "are not rounded or cast: pass soft=True to read {arg} as probabilities in [0, 1] "
    "(expected counts, as biasamp.directional(soft=True)), or binarise them first (for "
    "example {arg} >= 0.5)."
)
ERR_NOT_PROBABILITIES = (
    "{arg}: soft=True reads probabilities in [0, 1], found {count} value(s) outside ({examples})."
)
ERR_SOFT_HUB = (
    "soft: mode='hub' reads 0/1 predictions only (as the hub module); use mode='biasamp'."
)


def _examples(values: np.ndarray) -> str:
    return ", ".join(repr(v) for v in np.unique(values)[:5].tolist())


def _array(values: Any, arg: str, *, soft: bool = False) -> np.ndarray:
    """``values`` as an (n, k) matrix of 0/1 indicators (int8), or of probabilities (float64)
    with ``soft``; nothing is cast or rounded in silence."""
    try:
        arr = np.asarray(values)
    except (ValueError, TypeError):  # ragged lists
        raise ValueError(ERR_INDICATOR_SHAPE.format(arg=arg, got="ragged rows")) from None
    if arr.ndim != 2:
        raise ValueError(ERR_INDICATOR_SHAPE.format(arg=arg, got=f"shape {arr.shape}"))
    if arr.dtype.kind not in "biuf":
        raise TypeError(
            ERR_INDICATOR_TYPE.format(arg=arg, dtype=arr.dtype, examples=_examples(arr.ravel()))
        )
    if soft:
        bad = ~((arr >= 0) & (arr <= 1))
        if bad.any():
            raise ValueError(
                ERR_NOT_PROBABILITIES.format(
                    arg=arg, count=int(bad.sum()), examples=_examples(arr[bad])
                )
            )
        return arr.astype(np.float64)
    bad = ~((arr == 0) | (arr == 1))
    if bad.any():
        raise ValueError(
            ERR_NOT_INDICATORS.format(arg=arg, count=int(bad.sum()), examples=_examples(arr[bad]))
        )
    return arr.astype(np.int64)


def _matrix(result: Any, n_groups: int, n_tasks: int) -> list[list[float | None]]:
    """The (|A|, |T|) matrix of ``y * delta`` from ``by_pair`` (NaN where empty)."""
    frame = result.by_pair
    out = np.full((n_groups, n_tasks), np.nan)
    out[frame["group"].to_numpy(dtype=np.int64), frame["task"].to_numpy(dtype=np.int64)] = frame[
        "y"
    ].to_numpy(dtype=np.float64) * frame["delta"].to_numpy(dtype=np.float64)
    return (out + 0.0).tolist()  # + 0.0: no -0.0 where delta is 0 and y is -1


#: The key of the value in the outputs of earlier releases (``mode="hub"`` keeps it, as
#: the hub module returns it).
OLD_VALUE_KEY = "bias_amplification"


def _outputs(result: Any, more: dict[str, Any]) -> dict[str, Any]:
    """A module's outputs: the value under the metric's canonical name (``"mals"``,
    ``"directional-a2t"``), ``metric`` naming it, then ``more``. The key of earlier
    releases, ``"bias_amplification"``, still reads the value, with a ``FutureWarning``."""
    return RenamedKeys(
        {result.metric: float(result.value), "metric": result.metric, **more},
        renamed={OLD_VALUE_KEY: result.metric},
        where="the evaluate modules",
        removed=REMOVED_IN,
    )


def _interval(result: Any) -> dict[str, Any]:
    if result.ci is None:
        return {}
    return {"ci_low": float(result.ci[0]), "ci_high": float(result.ci[1])}


def _train(train_references: Any, train_attributes: Any) -> dict[str, Any]:
    if (train_references is None) != (train_attributes is None):
        raise ValueError(ERR_TRAIN_PAIR)
    if train_references is None:
        return {}
    return {
        "tasks_train": _array(train_references, "train_references"),
        "groups_train": _array(train_attributes, "train_attributes"),
    }


def _directional_run(
    metric: Any,
    direction: str,
    predictions: Any,
    refs: np.ndarray,
    attrs: np.ndarray,
    train: dict[str, Any],
    soft: bool = False,
    **options: Any,
) -> Any:
    """``metric`` (directional or multi_directional) with ``predictions`` in the role the
    direction reads: predicted tasks for A->T, predicted attributes for T->A."""
    role = "tasks_pred" if direction == "A->T" else "groups_pred"
    if soft:
        options["soft"] = True
    return metric(
        direction=direction,
        groups=attrs,
        tasks=refs,
        **{role: _array(predictions, "predictions", soft=soft)},
        **train,
        **options,
    )


def directional_outputs(
    predictions: Any,
    references: Any,
    attributes: Any,
    *,
    direction: str = "A->T",
    mode: str = "biasamp",
    train_references: Any = None,
    train_attributes: Any = None,
    soft: bool = False,
    n_boot: int | None = None,
    random_state: Any = None,
) -> dict[str, Any]:
    """Directional bias amplification as the ``evaluate`` module returns it.

    Parameters
    ----------
    predictions : array-like of shape (n, |T|), or (n, |A|) for ``"T->A"``
        Predicted task indicators (A->T) or predicted attribute indicators (T->A).
    references : array-like of shape (n, |T|)
    attributes : array-like of shape (n, |A|)
    direction : {"A->T", "T->A"}, default "A->T"
    mode : {"biasamp", "hub"}, default "biasamp"
        See the module docs.
    train_references, train_attributes : array-like, optional
        The training split's task and attribute indicators (mode "biasamp").
    soft : bool, default False
        Read ``predictions`` as probabilities in [0, 1] (expected counts, as
        :func:`biasamp.directional` with ``soft=True``; mode "biasamp"). Without
        it every value must be 0 or 1: probabilities are refused, never cast.
    n_boot, random_state
        A bootstrap interval (mode "biasamp"), as :func:`biasamp.directional`.

    Returns
    -------
    dict
        Mode "biasamp": the value under the metric's canonical name
        (``"directional-a2t"``, ``"directional-t2a"``), ``metric`` naming it,
        ``disagg_bias_amplification`` ((|A|, |T|) nested lists), ``direction`` and,
        with ``n_boot``, ``ci_low`` / ``ci_high``. Mode "hub": ``bias_amplification``
        and ``disagg_bias_amplification``, as the hub module returns them.

    Examples
    --------
    >>> out = directional_outputs([[1, 0], [1, 0], [0, 1]], [[1, 0], [0, 1], [0, 1]],
    ...                           [[1, 0], [1, 0], [0, 1]], mode="hub")
    >>> round(out["bias_amplification"], 4), out["disagg_bias_amplification"]
    (0.25, [[0.5, 0.5], [0.0, 0.0]])
    """
    if mode not in ("biasamp", "hub"):
        raise ValueError(ERR_MODE.format(got=mode))
    refs, attrs = _array(references, "references"), _array(attributes, "attributes")
    if mode == "hub":
        if direction != "A->T":
            raise ValueError(ERR_HUB_DIRECTION.format(got=direction))
        if soft:
            raise ValueError(ERR_SOFT_HUB)
        result = directional(
            direction="A->T",
            groups=attrs,
            tasks=refs,
            tasks_pred=_array(predictions, "predictions"),
            train_rows="all",
        )
        return {
            "bias_amplification": float(result.value),
            "disagg_bias_amplification": _matrix(result, attrs.shape[1], refs.shape[1]),
        }
    result = _directional_run(
        directional,
        direction,
        predictions,
        refs,
        attrs,
        _train(train_references, train_attributes),
        soft=soft,
        n_boot=n_boot,
        random_state=random_state,
    )
    return _outputs(
        result,
        {
            "disagg_bias_amplification": _matrix(result, attrs.shape[1], refs.shape[1]),
            "direction": direction,
            **_interval(result),
        },
    )


def mals_outputs(
    predictions: Any,
    references: Any,
    attributes: Any,
    attribute_predictions: Any,
    *,
    margin: float = 0.05,
    train_references: Any = None,
    train_attributes: Any = None,
    soft: bool = False,
    n_boot: int | None = None,
    random_state: Any = None,
) -> dict[str, Any]:
    """BiasAmp_MALS (Zhao et al. 2017), as the ``evaluate`` module returns it.

    Without a training split, ``references`` / ``attributes`` are the side whose
    bias is amplified (the training labels), of the same rows as the model's
    ``predictions`` / ``attribute_predictions``, as ``evaluate`` columns must be.
    With ``train_references`` / ``train_attributes`` (a training split of any
    length, as the directional module takes), the training bias comes from them
    and ``references`` / ``attributes`` are the evaluation rows' ground truth.

    Every value must be 0 or 1; with ``soft=True`` ``predictions`` and
    ``attribute_predictions`` are probabilities in [0, 1] (as :func:`biasamp.mals`
    with ``soft=True``). Probabilities are refused without it, never cast.

    Returns
    -------
    dict
        The value under ``"mals"`` (the canonical name), ``metric``,
        ``violations`` (pairs outside the margin) and, with ``n_boot``, ``ci_low`` /
        ``ci_high``. The key ``"bias_amplification"`` of earlier releases reads the
        value with a ``FutureWarning`` until 0.5.0.

    Examples
    --------
    >>> out = mals_outputs([[1, 0], [1, 0], [1, 0]], [[1, 0], [1, 0], [0, 1]],
    ...                    [[1, 0], [0, 1], [1, 0]], [[1, 0], [1, 0], [0, 1]])
    >>> out["metric"], round(out["mals"], 4)
    ('mals', 0.0)
    """
    train = _train(train_references, train_attributes)
    labels: dict[str, Any] = {}
    if train:
        labels = {
            "groups": _array(attributes, "attributes"),
            "tasks": _array(references, "references"),
        }
    else:
        train = {
            "groups_train": _array(attributes, "attributes"),
            "tasks_train": _array(references, "references"),
        }
    result = mals(
        **train,
        **labels,
        groups_pred=_array(attribute_predictions, "attribute_predictions", soft=soft),
        tasks_pred=_array(predictions, "predictions", soft=soft),
        margin=margin,
        soft=soft,
        n_boot=n_boot,
        random_state=random_state,
    )
    return _outputs(
        result,
        {
            "violations": int(result.violations),
            **_interval(result),
        },
    )


def multi_attribute_outputs(
    predictions: Any,
    references: Any,
    attributes: Any,
    *,
    direction: str = "A->T",
    train_references: Any = None,
    train_attributes: Any = None,
    n_boot: int | None = None,
    random_state: Any = None,
) -> dict[str, Any]:
    """Multi-attribute directional amplification (Zhao et al. 2023), ``Multi_A->T`` or
    ``Multi_T->A``, over every combination of the attribute columns; the training
    split defaults to the references and attributes given. Every value must be 0
    or 1 (probabilities are refused, never cast).

    Returns
    -------
    dict
        The value under the canonical name (``"multi-a2t"``, ``"multi-t2a"``),
        ``metric``, ``variance`` (over the biased pairs), ``direction`` and, with
        ``n_boot``, ``ci_low`` / ``ci_high``.
    """
    refs, attrs = _array(references, "references"), _array(attributes, "attributes")
    train: dict[str, Any] = _train(train_references, train_attributes) or {
        "tasks_train": refs,
        "groups_train": attrs,
    }
    result = _directional_run(
        multi_directional,
        direction,
        predictions,
        refs,
        attrs,
        train,
        n_boot=n_boot,
        random_state=random_state,
    )
    return _outputs(
        result,
        {
            "variance": float(result.variance),
            "direction": direction,
            **_interval(result),
        },
    )

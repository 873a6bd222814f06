"""Bias transfer: how a model's bias per concept follows its data's (Girrbach et al., 2025).

Girrbach et al. ("Person-Centric Annotations of LAION-400M", arXiv 2510.03721)
measure, per word, the data bias ``(n_f - n_m) / (n_f + n_m)`` over the words with
at least 100 occurrences and regress a model's bias on it: the slope, Pearson's r
and R^2 (a linear fit explains 60-70% of CLIP's and Stable Diffusion's gender
bias). :func:`bias_transfer` computes the same line from two concept x group count
tables, the bias of one group against the rest on each side.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from biasamp.generated._results import BiasTransferResult
from biasamp.inputs._readers import check_knob, read_count_table

__all__ = ["bias_transfer"]

ERR_GROUP = "group: {group!r} is not a column of {arg} (columns: {columns})."
ERR_TOO_FEW = (
    "bias_transfer: {n} concept(s) left to fit a line (at least 3 are needed; left out: "
    "{excluded})."
)
ERR_CONSTANT = (
    "bias_transfer: the {side} bias is the same ({value:+.4f}) for every concept kept, so "
    "the line and r are undefined."
)

REASON_FEW = "fewer than min_count reference rows"
REASON_NO_OUTPUTS = "no outputs"
REASON_NOT_IN_REFERENCE = "not in reference"


def _group_bias(values: np.ndarray, column: int) -> tuple[np.ndarray, np.ndarray]:
    """``(n_group - n_rest) / (n_group + n_rest)`` per row, and the row totals."""
    total = values.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        bias = (2.0 * values[:, column] - total) / total
    return bias, total


def bias_transfer(
    reference: Any = None, outputs: Any = None, group: Any = None, *, min_count: float = 100
) -> BiasTransferResult:
    """The least-squares line of the outputs' bias on the reference's bias, over concepts.

    Per concept, the bias toward ``group`` is ``(n_group - n_rest) / (n_group +
    n_rest)`` on each side (Girrbach et al.'s ``(n_f - n_m) / (n_f + n_m)`` for two
    groups, with ``group`` the women). The line ``output_bias = intercept + slope *
    reference_bias`` is fitted over the concepts with at least ``min_count``
    reference rows and some outputs. A slope above 1 reads as amplifying transfer:
    the outputs exaggerate the reference's differences between concepts.

    Parameters
    ----------
    reference : pandas.DataFrame or mapping
        Concept x group counts of the reference (training captions per word).
    outputs : pandas.DataFrame or mapping
        Concept x group counts of the outputs (generated images per prompt).
    group : object
        The group whose bias is measured; a column of both tables (names compared
        as they print).
    min_count : float, default 100
        Concepts whose reference total is below this are left out (Girrbach et al.
        keep words with at least 100 occurrences).

    Returns
    -------
    BiasTransferResult
        ``slope`` (also ``value``), ``intercept``, ``r``, ``r2``, ``n_concepts``,
        ``by_concept`` with the fitted values and residuals, ``excluded``.

    Raises
    ------
    ValueError, TypeError
        Tables with negative or missing values, ``group`` missing from a table,
        fewer than 3 concepts left, a bias that is the same for every concept.

    Examples
    --------
    >>> import pandas as pd
    >>> from biasamp import bias_transfer
    >>> reference = pd.DataFrame({"f": [150, 100, 50], "m": [50, 100, 150]},
    ...                          index=["nurse", "teacher", "pilot"])
    >>> outputs = pd.DataFrame({"f": [18, 10, 1], "m": [2, 10, 19]},
    ...                        index=["nurse", "teacher", "pilot"])
    >>> result = bias_transfer(reference=reference, outputs=outputs, group="f")
    >>> round(result.slope, 4), round(result.r, 4)    # biases +-0.5, 0 -> +0.8, 0, -0.9
    (1.7, 0.9994)
    """
    min_count = check_knob("min_count", min_count, low=0, integer=False)
    ref = read_count_table(reference, arg="reference")
    out = read_count_table(outputs, arg="outputs")
    key = str(group)
    for arg, table in (("reference", ref), ("outputs", out)):
        if key not in table.column_keys:
            raise ValueError(
                ERR_GROUP.format(group=group, arg=arg, columns=list(table.column_keys))
            )
    ref_bias, ref_total = _group_bias(ref.values, ref.column_keys.index(key))
    out_bias_all, out_total_all = _group_bias(out.values, out.column_keys.index(key))
    out_row = {k: i for i, k in enumerate(out.row_keys)}
    position = np.array([out_row.get(k, -1) for k in ref.row_keys], dtype=np.intp)
    has_out = position >= 0
    out_total = np.where(has_out, out_total_all[np.maximum(position, 0)], 0.0)
    out_bias = np.where(has_out, out_bias_all[np.maximum(position, 0)], np.nan)
    reasons = np.full(len(ref.rows), "", dtype=object)
    reasons[out_total <= 0] = REASON_NO_OUTPUTS
    reasons[ref_total < min_count] = REASON_FEW
    reasons[ref_total <= 0] = REASON_FEW
    kept = reasons == ""
    ref_keys = set(ref.row_keys)
    only_out = [i for i, k in enumerate(out.row_keys) if k not in ref_keys]
    excluded = pd.Series(
        [str(r) for r in reasons[~kept]] + [REASON_NOT_IN_REFERENCE] * len(only_out),
        index=pd.Index(
            [ref.rows[i] for i in np.flatnonzero(~kept)] + [out.rows[i] for i in only_out],
            name="concept",
        ),
        name="reason",
        dtype="str",
    )
    x, y = ref_bias[kept], out_bias[kept]
    if len(x) < 3:
        raise ValueError(ERR_TOO_FEW.format(n=len(x), excluded=dict(list(excluded.items())[:10])))
    for side, values in (("reference", x), ("output", y)):
        if np.ptp(values) == 0:
            raise ValueError(ERR_CONSTANT.format(side=side, value=float(values[0])))
    xc, yc = x - x.mean(), y - y.mean()
    sxx, syy, sxy = float(xc @ xc), float(yc @ yc), float(xc @ yc)
    slope = sxy / sxx
    intercept = float(y.mean() - slope * x.mean())
    r = sxy / np.sqrt(sxx * syy)
    fitted = intercept + slope * x
    frame = pd.DataFrame(
        {
            "reference_bias": x,
            "output_bias": y,
            "fitted": fitted,
            "residual": y - fitted,
            "n_reference": ref_total[kept],
            "n_outputs": out_total[kept],
        },
        index=pd.Index([ref.rows[i] for i in np.flatnonzero(kept)], name="concept"),
    )
    return BiasTransferResult(
        metric="bias_transfer",
        value=float(slope),
        slope=float(slope),
        intercept=intercept,
        r=float(r),
        r2=float(r * r),
        n_concepts=int(kept.sum()),
        group=key,
        by_concept=frame,
        excluded=excluded,
        n=int(round(float(out_total[kept].sum()))),
        min_count=float(min_count),
        params={"group": key, "min_count": float(min_count)},
    )

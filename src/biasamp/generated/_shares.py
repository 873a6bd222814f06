"""The classifier-error correction of group shares (Teo, Abdollahzadeh & Cheung, NeurIPS 2023).

The group of a generated output is usually assigned by a classifier, and the
classifier's errors move the measured shares. With ``C`` the confusion matrix of
the classifier on a labelled validation set (rows: true group, columns: assigned
group), row-normalised so that ``C[i, j] = P(assigned j | true i)``, the expected
observed shares are ``p_hat = C^T p``. :func:`corrected_shares` solves that system
for ``p`` and clips and renormalises the solution onto the simplex. For two groups
with per-class accuracies ``a0 = C[0, 0]`` and ``a1 = C[1, 1]`` it is CLEAM's
point estimate, ``p0 = (p_hat0 + a1 - 1) / (a0 + a1 - 1)``.

CLEAM itself also models the sampling of the accuracies and reports an interval
from that model; here the uncertainty of the correction enters the bootstrap of
:func:`biasamp.output_amplification` instead (the validation counts of each true
group are resampled with the outputs).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from biasamp.inputs._containers import to_native_numpy
from biasamp.inputs._readers import read_count_table

__all__ = [
    "ERR_CONFUSION_SHAPE",
    "ERR_CONFUSION_SINGULAR",
    "corrected_shares",
    "correct_batch",
    "confusion_rates",
]

ERR_SHARES_SHAPE = (
    "shares: expected K shares or counts (1-D) or concepts x K (2-D), got shape {shape}."
)
ERR_SHARES_ZERO = "shares: row {row} sums to 0 (no output to correct)."
ERR_CONFUSION_SHAPE = (
    "{arg}: expected a K x K table (rows: true group, columns: assigned group) with K = {k}, "
    "got shape {shape}."
)
ERR_CONFUSION_ZERO = "{arg}: the true group {row!r} has no validation rows (its row sums to 0)."
ERR_CONFUSION_LABELS = (
    "{arg}: its {side} {got} are not the groups {expected} (names compared as they print)."
)
ERR_CONFUSION_SINGULAR = (
    "{arg}: the classifier cannot tell the groups apart (the row-normalised confusion matrix "
    "is singular, condition number {cond:.3g}); no correction exists."
)

#: Largest condition number of a row-normalised confusion matrix that is solved.
MAX_CONDITION = 1e10


def confusion_rates(
    confusion: Any, group_keys: list[str] | None, *, arg: str
) -> tuple[np.ndarray, np.ndarray]:
    """The row-normalised confusion matrix in the order of ``group_keys`` and the table as
    given (counts or rates), in the same order.

    The table is read by the boundary's ``count_table`` reader
    (:func:`~biasamp.inputs._readers.read_count_table`: missing, negative, infinite and
    non-numeric cells, repeated groups and groups that print alike are refused there).
    A table that names its rows (a DataFrame, a mapping, a frame with a group column) is
    aligned by its rows (true groups) and columns (assigned groups), compared as they
    print; a bare K x K array is read in the groups' order.
    """
    table = read_count_table(confusion, arg=arg, arrays=True)
    values = table.values
    names: list[Any] = list(table.row_keys)
    if table.labelled and group_keys is not None:
        for side, got in (("index", table.row_keys), ("columns", table.column_keys)):
            if sorted(got) != sorted(group_keys):
                raise ValueError(
                    ERR_CONFUSION_LABELS.format(
                        arg=arg, side=side, got=list(got), expected=group_keys
                    )
                )
        row_of = {key: i for i, key in enumerate(table.row_keys)}
        column_of = {key: j for j, key in enumerate(table.column_keys)}
        values = values[np.ix_([row_of[g] for g in group_keys], [column_of[g] for g in group_keys])]
        names = list(group_keys)
    elif group_keys is not None:
        names = list(group_keys)
    k = len(group_keys) if group_keys is not None else values.shape[0]
    if values.shape != (k, k) or k < 2:
        raise ValueError(ERR_CONFUSION_SHAPE.format(arg=arg, k=k, shape=values.shape))
    sums = values.sum(axis=1)
    if (sums <= 0).any():
        raise ValueError(ERR_CONFUSION_ZERO.format(arg=arg, row=names[int(np.argmin(sums))]))
    rates = values / sums[:, None]
    cond = float(np.linalg.cond(rates))
    if not np.isfinite(cond) or cond > MAX_CONDITION:
        raise ValueError(ERR_CONFUSION_SINGULAR.format(arg=arg, cond=cond))
    return rates, values


def _onto_simplex(p: np.ndarray) -> np.ndarray:
    """Clip at 0 and renormalise along the last axis."""
    clipped = np.clip(p, 0.0, None)
    return clipped / clipped.sum(axis=-1, keepdims=True)


def correct_batch(observed: np.ndarray, rates: np.ndarray) -> np.ndarray:
    """Solve ``observed = rates^T p`` for every row of ``observed`` (shape (..., K)).

    ``rates`` is one K x K matrix or a stack (B, K, K) matched to ``observed``'s
    leading axis (B, ..., K); a stack is inverted with the pseudo-inverse, so a
    bootstrap replicate whose resampled matrix is singular gives a least-squares
    answer instead of an error.
    """
    if rates.ndim == 2:
        inverse = np.linalg.inv(rates)
        return _onto_simplex(observed @ inverse)
    inverse = np.linalg.pinv(rates)  # (B, K, K)
    extra = observed.ndim - 2
    inverse = inverse.reshape(inverse.shape[:1] + (1,) * extra + inverse.shape[1:])
    return _onto_simplex(np.einsum("...k,...kj->...j", observed, inverse))


def corrected_shares(shares: Any, confusion: Any) -> Any:
    """Group shares corrected for the errors of the classifier that assigned the groups.

    Solves ``p_hat = C^T p`` for the true shares ``p``, with ``C`` the confusion
    matrix row-normalised (``C[i, j]``: the probability that an output of true group
    ``i`` is assigned group ``j``), then clips negative shares to 0 and renormalises.
    For two groups with per-class accuracies ``a0``, ``a1`` this is CLEAM's closed
    form (Teo, Abdollahzadeh & Cheung, NeurIPS 2023),
    ``p0 = (p_hat0 + a1 - 1) / (a0 + a1 - 1)``.

    Parameters
    ----------
    shares : array-like of shape (K,) or (n_concepts, K), Series or DataFrame
        Observed shares or counts of the K assigned groups (one row per concept for
        a 2-D input); each row is normalised to sum to 1 first. A Series (index:
        groups) or a DataFrame (columns: groups) is aligned with a DataFrame
        ``confusion`` by the group names.
    confusion : array-like of shape (K, K) or DataFrame
        The classifier's confusion table on a labelled validation set, counts or
        rates: rows the true group, columns the assigned group. Its rows are
        normalised. A DataFrame's index and columns name the groups.

    Returns
    -------
    numpy.ndarray, pandas.Series or pandas.DataFrame
        The corrected shares, same shape and kind as ``shares``; each row sums to 1.

    Raises
    ------
    ValueError, TypeError
        Shares or counts that are negative, missing or sum to 0; a confusion table
        that is not K x K, holds negative values, has a true group with no rows, or
        is singular (the classifier cannot tell two groups apart); group names that
        do not match.

    Examples
    --------
    >>> import numpy as np
    >>> from biasamp import corrected_shares
    >>> confusion = np.array([[90, 10], [20, 80]])       # a0 = 0.9, a1 = 0.8
    >>> corrected_shares([0.62, 0.38], confusion).round(4).tolist()
    [0.6, 0.4]
    >>> round((0.62 + 0.8 - 1) / (0.9 + 0.8 - 1), 4)      # CLEAM's closed form
    0.6
    """
    one_d = False
    if isinstance(shares, pd.Series):
        kind, table_input = "series", shares.to_frame().T  # one row, a column per group
    elif isinstance(shares, pd.DataFrame):
        kind, table_input = "frame", shares
    else:
        kind = "array"
        native = np.asarray(to_native_numpy(shares, arg="shares").values)
        if native.ndim not in (1, 2):
            raise ValueError(ERR_SHARES_SHAPE.format(shape=native.shape))
        one_d = native.ndim == 1
        table_input = native.reshape(1, -1) if one_d else native
    table = read_count_table(table_input, arg="shares", arrays=True)
    rows = table.values
    if rows.shape[1] < 2:
        raise ValueError(ERR_SHARES_SHAPE.format(shape=rows.shape))
    sums = rows.sum(axis=1)
    if (sums <= 0).any():
        raise ValueError(ERR_SHARES_ZERO.format(row=int(np.argmin(sums))))
    keys = list(table.column_keys) if kind != "array" else None
    rates, _ = confusion_rates(confusion, keys, arg="confusion")
    if rates.shape[0] != rows.shape[1]:
        raise ValueError(
            ERR_CONFUSION_SHAPE.format(arg="confusion", k=rows.shape[1], shape=rates.shape)
        )
    corrected = correct_batch(rows / sums[:, None], rates)
    if kind == "series":
        return pd.Series(corrected[0], index=shares.index, name=shares.name)
    if kind == "frame":
        return pd.DataFrame(corrected, index=shares.index, columns=shares.columns)
    return corrected[0] if one_d else corrected

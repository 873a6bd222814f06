"""Amplification in generated outputs against a reference (Seshadri, Singh & Elazar, 2023).

A generative model has no per-output ground truth: its outputs for a concept (the
images generated for the prompt "a photo of an engineer") are compared with a
reference for the same concept, such as the training captions that mention it, a
subset of them matched to the prompts, or labour statistics. Seshadri et al.
compare the percentage of women per occupation in Stable Diffusion's images with
LAION's ("engineer": 25% in training captions, 10% generated). Here the
comparison is signed by the reference's majority group, as BiasAmp_MALS signs it
(Zhao et al., 2017): per concept ``c``, with ``g*`` the group its reference
favours, ``delta_c = o_c(g*) - r_c(g*)``, and the value is the mean of
``delta_c`` over concepts, positive when the outputs push each concept further
toward the group its reference already favours.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from biasamp._memory import check_allocation
from biasamp.counts._poisson import checked_generator
from biasamp.generated._results import OutputAmplificationResult
from biasamp.generated._shares import confusion_rates, correct_batch
from biasamp.generated._tables import (
    BLOCK_CELLS,
    boot_count,
    checked_labels,
    crosstab_codes,
)
from biasamp.inputs._keys import key_names
from biasamp.inputs._label_matrix import check_same_length
from biasamp.inputs._readers import read_count_table
from biasamp.results._intervals import check_ci, interval_from_replicates

__all__ = ["output_amplification"]

ERR_REFERENCE_GIVEN = (
    "reference, reference_concepts, reference_groups: give the reference either as a table "
    "(reference=) or as rows (reference_concepts= and reference_groups=), not both and "
    "not neither."
)
ERR_REFERENCE_ROWS = (
    "reference_concepts and reference_groups: give both (one row each), or neither."
)
ERR_GROUP_NOT_IN_REFERENCE = (
    "groups: the group(s) {missing} of the outputs are not columns of the reference "
    "({columns}); add them to group_names to give them a reference share of 0."
)
ERR_GROUP_NAMES = "group_names: the reference's group(s) {missing} are not listed."
ERR_GROUP_NAMES_TYPE = "group_names: expected a list of distinct group names, got {got!r}."
ERR_CONCEPT_NOT_IN_REFERENCE = (
    "concepts: {count} concept(s) of the outputs have no row in the reference: {missing}."
)
ERR_NO_CONCEPT = (
    "output_amplification: no concept is left to measure (left out: {excluded}); a concept "
    "needs outputs and a reference with one strict majority group."
)

REASON_TIE = "no strict majority"
REASON_EMPTY = "empty reference"
REASON_NO_OUTPUTS = "no outputs"


def _group_order(
    output_keys: tuple[str, ...], reference_keys: tuple[str, ...], group_names: Any
) -> list[str]:
    if group_names is None:
        order = list(reference_keys)
    else:
        if isinstance(group_names, (str, bytes)) or not hasattr(group_names, "__iter__"):
            raise TypeError(ERR_GROUP_NAMES_TYPE.format(got=group_names))
        order = key_names(list(group_names), arg="group_names")
        missing = [g for g in reference_keys if g not in order]
        if missing:
            raise ValueError(ERR_GROUP_NAMES.format(missing=missing))
    absent = [g for g in output_keys if g not in order]
    if absent:
        raise ValueError(
            ERR_GROUP_NOT_IN_REFERENCE.format(missing=absent, columns=list(reference_keys))
        )
    return order


def _reference(
    reference: Any, reference_concepts: Any, reference_groups: Any
) -> tuple[np.ndarray, tuple[Any, ...], tuple[str, ...], tuple[Any, ...], tuple[str, ...], bool]:
    """(values, concepts, concept keys, groups, group keys, given as rows)."""
    rows_given = reference_concepts is not None or reference_groups is not None
    if (reference is None) == (not rows_given):
        raise ValueError(ERR_REFERENCE_GIVEN)
    if not rows_given:
        table = read_count_table(reference, arg="reference")
        return table.values, table.rows, table.row_keys, table.columns, table.column_keys, False
    if reference_concepts is None or reference_groups is None:
        raise ValueError(ERR_REFERENCE_ROWS)
    concepts = checked_labels(reference_concepts, arg="reference_concepts")
    groups = checked_labels(reference_groups, arg="reference_groups")
    check_same_length(reference_concepts=concepts.codes, reference_groups=groups.codes)
    counts = crosstab_codes(concepts.codes, groups.codes, len(concepts.names), len(groups.names))
    return (
        counts.astype(np.float64),
        concepts.names,
        concepts.keys,
        groups.names,
        groups.keys,
        True,
    )


def output_amplification(
    concepts: Any = None,
    groups: Any = None,
    reference: Any = None,
    *,
    reference_concepts: Any = None,
    reference_groups: Any = None,
    group_names: Any = None,
    attribute_confusion: Any = None,
    n_boot: int | None = None,
    ci: float = 0.95,
    random_state: Any = None,
) -> OutputAmplificationResult:
    """How much generated outputs push each concept toward the group its reference favours.

    Per concept ``c`` (a prompt's occupation), with ``r_c`` the reference's group
    shares and ``o_c`` the outputs' group shares, ``g*`` is the group with the
    largest reference share and ``delta_c = o_c(g*) - r_c(g*)``. The value is the
    mean of ``delta_c`` over the concepts. It follows Seshadri, Singh & Elazar
    (2023), who compare Stable Diffusion's share of women per occupation with
    LAION's, signed by the reference's majority group as BiasAmp_MALS signs a
    task's training-majority group (Zhao et al., 2017).

    Parameters
    ----------
    concepts : array-like of shape (n_outputs,)
        The concept each output was generated for (the prompt's occupation).
    groups : array-like of shape (n_outputs,)
        The group assigned to each output (by a classifier or by hand).
    reference : pandas.DataFrame or mapping, optional
        Concept x group counts or shares (index: concepts, one column per group),
        such as training-caption counts, a matched subset of them, or labour
        statistics. Rows are normalised to shares.
    reference_concepts, reference_groups : array-like of shape (n_reference,), optional
        The same reference as rows (one training caption each); give these or
        ``reference``.
    group_names : sequence, optional
        The groups, in the order of the result; must list every reference column.
        A group listed here that the reference lacks gets a reference share of 0.
    attribute_confusion : pandas.DataFrame or array-like of shape (K, K), optional
        The group classifier's confusion table on a labelled validation set (rows:
        true group, columns: assigned group; counts, or rates). The output shares
        of every concept are corrected with :func:`biasamp.corrected_shares`
        before the metric. With counts, the bootstrap resamples each true group's
        validation row too, so the interval includes the correction's uncertainty;
        rates are taken as known.
    n_boot : int, optional
        Bootstrap replicates for the interval: outputs resampled within each
        concept (and reference rows within each concept when given as rows).
        The majority group and the concepts kept are those of the point estimate.
    ci : float, default 0.95
        Confidence level of the interval.
    random_state : int, Generator or None
        Seed of the bootstrap.

    Returns
    -------
    OutputAmplificationResult
        ``value``, ``by_concept`` (majority group, both shares, ``delta``, both
        counts), ``excluded`` (concepts left out and why), the interval.

    Raises
    ------
    ValueError, TypeError
        Missing or mixed labels, a concept of the outputs with no reference row, an
        output group that is not a reference column, a reference with negative or
        missing values, no concept left to measure.

    Notes
    -----
    Concepts whose reference has no strict majority (two groups tie for the
    largest share) or whose reference row is empty are left out and named in
    ``excluded``; so are reference concepts without outputs.

    Examples
    --------
    >>> import pandas as pd
    >>> from biasamp import output_amplification
    >>> reference = pd.DataFrame({"man": [75, 40], "woman": [25, 60]},
    ...                          index=["engineer", "nurse"])
    >>> concepts = ["engineer"] * 10 + ["nurse"] * 10
    >>> groups = ["man"] * 9 + ["woman"] + ["man"] * 2 + ["woman"] * 8
    >>> result = output_amplification(concepts=concepts, groups=groups, reference=reference)
    >>> round(result.value, 4)                   # ((0.9 - 0.75) + (0.8 - 0.6)) / 2
    0.175
    >>> result.by_concept["majority_group"].tolist()
    ['man', 'woman']
    >>> result.by_concept[["reference_share", "output_share"]].round(2).to_numpy().tolist()
    [[0.75, 0.9], [0.6, 0.8]]
    """
    n_boot = boot_count(n_boot)
    level = check_ci(ci)
    out_concepts = checked_labels(concepts, arg="concepts")
    out_groups = checked_labels(groups, arg="groups")
    check_same_length(concepts=out_concepts.codes, groups=out_groups.codes)
    ref_values, ref_rows, ref_row_keys, ref_columns, ref_column_keys, as_rows = _reference(
        reference, reference_concepts, reference_groups
    )
    order = _group_order(out_groups.keys, ref_column_keys, group_names)
    k = len(order)
    column_of = {key: i for i, key in enumerate(order)}
    ref_full = np.zeros((ref_values.shape[0], k))
    ref_full[:, [column_of[key] for key in ref_column_keys]] = ref_values
    group_label = {key: name for key, name in zip(ref_column_keys, ref_columns, strict=True)}
    if group_names is not None:
        for key, name in zip(order, list(group_names), strict=True):
            group_label.setdefault(key, name)
    labels = [group_label[key] for key in order]

    # outputs: concept x group counts, rows in the reference's concept order
    row_of = {key: i for i, key in enumerate(ref_row_keys)}
    missing = [key for key in out_concepts.keys if key not in row_of]
    if missing:
        raise ValueError(
            ERR_CONCEPT_NOT_IN_REFERENCE.format(count=len(missing), missing=missing[:10])
        )
    concept_rows = np.array([row_of[key] for key in out_concepts.keys], dtype=np.intp)
    group_cols = np.array([column_of[key] for key in out_groups.keys], dtype=np.intp)
    out_counts = crosstab_codes(
        concept_rows[out_concepts.codes], group_cols[out_groups.codes], len(ref_row_keys), k
    )
    n_out = out_counts.sum(axis=1)
    n_ref = ref_full.sum(axis=1)

    # which concepts are measured
    safe_ref = np.where(n_ref[:, None] > 0, ref_full / np.maximum(n_ref, 1e-300)[:, None], 0.0)
    top = safe_ref.max(axis=1)
    n_top = (np.isclose(safe_ref, top[:, None], rtol=0, atol=1e-12)).sum(axis=1)
    reasons = np.full(len(ref_row_keys), "", dtype=object)
    reasons[n_out == 0] = REASON_NO_OUTPUTS
    reasons[(n_ref > 0) & (n_top > 1)] = REASON_TIE
    reasons[n_ref <= 0] = REASON_EMPTY
    kept = reasons == ""
    excluded = pd.Series(
        reasons[~kept].astype(str),
        index=pd.Index([ref_rows[i] for i in np.flatnonzero(~kept)], name="concept"),
        name="reason",
        dtype="str",
    )
    if not kept.any():
        shown = dict(list(excluded.items())[:10])
        raise ValueError(ERR_NO_CONCEPT.format(excluded=shown))
    idx = np.flatnonzero(kept)
    ref_k, nref_k = ref_full[idx], n_ref[idx]
    out_k, nout_k = out_counts[idx], n_out[idx]
    majority = safe_ref[idx].argmax(axis=1)
    ref_share = safe_ref[idx]
    out_share = out_k / nout_k[:, None]

    rates = counts_rates = None
    if attribute_confusion is not None:
        rates, given = confusion_rates(attribute_confusion, order, arg="attribute_confusion")
        if np.all(given == np.round(given)):  # counts: each true group's row is resampled
            counts_rates = (np.round(given.sum(axis=1)).astype(np.int64), rates)
        out_share = correct_batch(out_share, rates)

    take = np.arange(len(idx))
    delta = out_share[take, majority] - ref_share[take, majority]
    value = float(delta.mean())

    frame = pd.DataFrame(
        {
            "majority_group": [labels[j] for j in majority],
            "reference_share": ref_share[take, majority],
            "output_share": out_share[take, majority],
            "delta": delta,
            "n_reference": nref_k.astype(np.float64),
            "n_outputs": nout_k.astype(np.int64),
        }
    )
    frame.index = pd.Index([ref_rows[i] for i in idx], name="concept")

    interval: tuple[float, float] | None = None
    se = replicates = None
    if n_boot:
        n_concepts = len(idx)
        check_allocation(
            float(n_boot) * n_concepts * 8.0 * 3 + BLOCK_CELLS * 8.0 * 6,
            what=f"n_boot={n_boot} bootstrap replicates of {n_concepts} concepts x {k} groups",
            advice="use fewer replicates (n_boot)",
        )
        rng = checked_generator(random_state)
        per_concept = np.empty((n_boot, n_concepts))
        block = max(1, min(n_boot, BLOCK_CELLS // max(1, n_concepts * k)))
        for start in range(0, n_boot, block):
            b = min(block, n_boot - start)
            o = (
                rng.multinomial(nout_k, out_k / nout_k[:, None], size=(b, n_concepts))
                / nout_k[:, None]
            )
            if as_rows:
                nr = nref_k.astype(np.int64)
                r = (
                    rng.multinomial(nr, ref_k / nref_k[:, None], size=(b, n_concepts))
                    / nref_k[:, None]
                )
            else:
                r = np.broadcast_to(ref_share, (b, n_concepts, k))
            if counts_rates is not None:
                sizes, probabilities = counts_rates
                drawn = rng.multinomial(sizes, probabilities, size=(b, k)).astype(np.float64)
                o = correct_batch(o, drawn / drawn.sum(axis=2, keepdims=True))
            elif rates is not None:
                o = correct_batch(o, rates)
            per_concept[start : start + b] = o[:, take, majority] - r[:, take, majority]
        replicates = per_concept.mean(axis=1)
        low, high, se_value = interval_from_replicates(replicates, ci=level)
        interval, se = (float(low), float(high)), float(se_value)
        c_low, c_high, _ = interval_from_replicates(per_concept, ci=level)
        frame["delta_ci_low"] = np.asarray(c_low, dtype=np.float64)
        frame["delta_ci_high"] = np.asarray(c_high, dtype=np.float64)
    params: dict[str, Any] = {
        "reference": "rows" if as_rows else "table",
        "n_boot": int(n_boot),
        "corrected": attribute_confusion is not None,
        "confusion": None if rates is None else ("counts" if counts_rates else "rates"),
    }
    if isinstance(random_state, (int, np.integer)) and not isinstance(random_state, bool):
        params["random_state"] = int(random_state)
    return OutputAmplificationResult(
        metric="output_amplification",
        value=value,
        by_concept=frame,
        excluded=excluded,
        groups=labels,
        n=int(nout_k.sum()),
        n_concepts=len(idx),
        corrected=attribute_confusion is not None,
        ci=interval,
        ci_level=level if n_boot else None,
        se=se,
        replicates=replicates,
        params=params,
    )

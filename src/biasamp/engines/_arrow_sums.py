"""The group-sums table of Arrow record batches, counted in numpy.

:mod:`biasamp.engines._group_sums` describes the group-sums table: one row per
distinct key (the group columns and any task label column), with the row
count, the weighted sum of every task indicator column and, per column, the
number of invalid values. SQL engines compute it with one ``GROUP BY``; that
statement has two aggregates per indicator column, which is slow to plan and
run with thousands of columns (and Spark runs it row by row past 100 columns).
:func:`batch_group_sums` computes the same table from an Arrow batch in numpy:
the keys are dictionary-encoded into one code per row; the true values of a
boolean column (no missing values, unweighted) per key are the set bits of its
Arrow bitmap AND the key's bitmap (``numpy.bitwise_count``, nothing unpacked);
the sums of the other indicator columns of a block come from one matrix product
of the keys' one-hot (weighted) matrix with the block of columns. :func:`merge_group_sums` adds the
tables of several batches by key. Engines that hand out Arrow batches (Spark's
``mapInArrow``, DuckDB's record-batch reader) count with it; the result goes to
:func:`biasamp.counts_from_group_sums` like the SQL one.

Unweighted boolean and integer columns are summed in float32, exact for 0/1
values in batches below 2**24 rows (the callers' batches are far smaller);
weights, probabilities and float columns in float64.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from biasamp.engines._derived_roles import score_decisions
from biasamp.engines._group_sums import _is_key, _key_aliases, group_sums_columns
from biasamp.inputs._column_roles import ColumnRoles, RoleColumns

__all__ = [
    "BLOCK_BYTES",
    "batch_group_sums",
    "group_sums_frame",
    "group_sums_record_batch",
    "invalid_scores",
    "merge_group_sums",
]

#: Bytes of one block of indicator columns converted for the matrix product.
BLOCK_BYTES = 64 * 2**20
#: Above this many distinct keys in a batch the one-hot matrix is sparse.
_DENSE_KEYS = 64


def _plain(column: Any) -> Any:
    """One contiguous Arrow array (a chunked column's chunks joined)."""
    import pyarrow as pa

    if isinstance(column, pa.ChunkedArray):
        return column.combine_chunks() if column.num_chunks != 1 else column.chunk(0)
    return column


def _key_codes(arrays: Sequence[Any], n: int) -> tuple[np.ndarray, np.ndarray]:
    """The key of every row as ``0 .. K-1`` and the first row of each key.

    Missing values are a key of their own (as in SQL's ``GROUP BY``)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    codes = np.zeros(n, dtype=np.int64)
    for array in arrays:
        if pa.types.is_dictionary(array.type):
            indices, size = array.indices, len(array.dictionary)
        else:
            try:
                encoded = pc.dictionary_encode(array)
                indices, size = encoded.indices, len(encoded.dictionary)
            except (pa.ArrowNotImplementedError, pa.ArrowInvalid):  # pragma: no cover
                values, uniques = pd.factorize(array.to_numpy(zero_copy_only=False))
                indices, size = pa.array(np.where(values < 0, None, values)), len(uniques)
        own = pc.fill_null(indices, size).to_numpy(zero_copy_only=False).astype(np.int64)
        codes = codes * (size + 1) + own
        if len(arrays) > 1:  # keep the codes small: renumber after every column
            codes = _renumbered(codes)
    inverse = _renumbered(codes)
    first = np.full(int(inverse.max()) + 1 if n else 0, n, dtype=np.int64)
    np.minimum.at(first, inverse, np.arange(n, dtype=np.int64))
    return inverse.astype(np.intp, copy=False), first


def _renumbered(codes: np.ndarray) -> np.ndarray:
    """``codes`` renumbered ``0 .. K-1`` in their order (K distinct values): by a table of
    the values present when they are small (no sort), else by ``numpy.unique``."""
    if codes.size == 0:
        return codes
    top = int(codes.max()) + 1
    if top <= max(4 * codes.size, 1 << 20):
        present = np.bincount(codes, minlength=top) > 0
        return (np.cumsum(present) - 1)[codes]
    return np.unique(codes, return_inverse=True)[1].reshape(-1)


def invalid_scores(values: np.ndarray) -> np.ndarray | None:
    """Rows of a score column that are not finite numbers (NaN, infinite); None if none.

    Scores may be any finite number (probabilities or logits, with a threshold to match).
    """
    bad = ~np.isfinite(values.astype(np.float64, copy=False))
    return bad if bad.any() else None


def _invalid(values: np.ndarray, *, soft: bool) -> np.ndarray | None:
    """Rows whose value is not 0/1 (or not in [0, 1] when ``soft``); None if all are valid."""
    if values.dtype == np.bool_:
        return None
    if soft:
        with np.errstate(invalid="ignore"):
            bad = ~((values >= 0) & (values <= 1))
    elif values.dtype.kind == "u":
        bad = values > 1
    elif values.dtype.kind == "i":
        bad = values.view(values.dtype.str.replace("i", "u")) > 1  # negatives wrap above 1
    else:
        bad = (values != 0) & (values != 1)  # NaN included
    return bad if bad.any() else None


def _numeric(array: Any) -> tuple[np.ndarray, np.ndarray | None]:
    """A column's values as numpy (missing ones 0) and the mask of missing ones (or None)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    missing = None
    if pa.types.is_null(array.type):
        return np.zeros(len(array)), np.ones(len(array), dtype=bool)
    if array.null_count:
        missing = array.is_null().to_numpy(zero_copy_only=False)
        array = pc.fill_null(
            array, pa.scalar(0, array.type) if not pa.types.is_boolean(array.type) else False
        )
    if not (
        pa.types.is_integer(array.type)
        or pa.types.is_floating(array.type)
        or pa.types.is_boolean(array.type)
    ):
        array = pc.cast(array, pa.float64())  # decimals
    return array.to_numpy(zero_copy_only=False), missing


def _is_whole(batch: Any, column: str) -> bool:
    """Whether a column holds booleans or integers (exact in float32 up to 2**24)."""
    import pyarrow as pa

    kind = batch.schema.field(column).type
    return bool(pa.types.is_boolean(kind) or pa.types.is_integer(kind))


def _one_blas_thread() -> Any:
    """Run the matrix product on one BLAS thread: it is a thin (K, rows) x (rows, columns)
    product, which OpenBLAS's thread pool slows down many times on a busy machine (the
    engines run batches in parallel themselves)."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - scikit-learn depends on it
        return contextlib.nullcontext()
    return threadpool_limits(1, user_api="blas")


def _one_hot(inverse: np.ndarray, n_keys: int, weight: np.ndarray | None, dtype: Any) -> Any:
    """The (K, rows) matrix with row i's weight (or 1) in column i of its key's row."""
    data = np.ones(len(inverse), dtype=dtype) if weight is None else weight.astype(dtype)
    if n_keys <= _DENSE_KEYS:
        out = np.zeros((n_keys, len(inverse)), dtype=dtype)
        out[inverse, np.arange(len(inverse))] = data
        return out
    from scipy import sparse

    return sparse.csr_matrix(
        (data, (inverse, np.arange(len(inverse)))), shape=(n_keys, len(inverse))
    )


def batch_group_sums(
    batch: Any, roles: ColumnRoles, *, soft: bool = False, extra_keys: Sequence[str] = ()
) -> dict[str, Any]:
    """The group-sums table of one Arrow batch (validated: see ``group_sums_sql(validate=True)``).

    Parameters
    ----------
    batch : pyarrow.RecordBatch or pyarrow.Table
        Rows with the columns ``roles`` names.
    roles : ColumnRoles
        Which columns hold which role.
    soft : bool, default False
        Predicted task indicators may be probabilities in [0, 1].
    extra_keys : sequence of str, optional
        More key columns, kept under their own names (for example the source file).

    Returns
    -------
    dict
        Column alias -> values, one entry per distinct key: the ``k_*`` keys (and
        ``extra_keys``) as Arrow arrays (their input type), ``n`` and ``s_*`` as float64 arrays,
        ``n_rows``, ``bad_*`` (and ``bad_weight``) as int64 arrays.

    Examples
    --------
    >>> import pyarrow as pa
    >>> from biasamp import ColumnRoles
    >>> from biasamp.engines._arrow_sums import batch_group_sums
    >>> batch = pa.record_batch({"g": ["m", "w", "m"], "ski": [1, 0, 1]})
    >>> sums = batch_group_sums(batch, ColumnRoles.resolve(groups="g", tasks=["ski"]))
    >>> sums["k_groups"].to_pylist(), sums["s_tasks_0"].tolist(), sums["n_rows"].tolist()
    (['m', 'w'], [2.0, 0.0], [2, 1])
    """
    n = batch.num_rows
    present = roles.present()
    key_arrays: dict[str, Any] = {}
    score_checks: dict[str, np.ndarray | None] = {}  # group score keys: their invalid rows
    for rc in present.values():
        if not _is_key(rc):
            continue
        aliases = _key_aliases(rc)
        if rc.thresholds is not None:  # keys are the predictions the scores make
            decided, bad_rows = score_keys(
                [_plain(batch.column(c)) for c in rc.columns], rc, n_rows=n
            )
            for j, alias in enumerate(aliases):
                key_arrays[alias] = _arrow_array(decided[:, j].astype(np.int8))
                score_checks[f"bad_{rc.role}_{j}"] = bad_rows[j]
            continue
        for column, alias in zip(rc.columns, aliases, strict=True):
            key_arrays[alias] = _plain(batch.column(column))
    key_arrays.update({name: _plain(batch.column(name)) for name in extra_keys})
    inverse, first = _key_codes(list(key_arrays.values()), n)
    n_keys = len(first)
    out: dict[str, Any] = {alias: array.take(first) for alias, array in key_arrays.items()}
    for alias, invalid in score_checks.items():
        out[alias] = (
            np.zeros(n_keys, dtype=np.int64)
            if invalid is None
            else np.bincount(inverse[invalid], minlength=n_keys).astype(np.int64)
        )
    weight = None
    if roles.sample_weight is not None:
        weight, missing = _numeric(_plain(batch.column(roles.sample_weight)))
        weight = weight.astype(np.float64)
        with np.errstate(invalid="ignore"):
            bad = ~((weight >= 0) & (weight <= 1e308))
        if missing is not None:
            bad |= missing
        out["n"] = np.bincount(inverse, weights=weight, minlength=n_keys)
        out["bad_weight"] = np.bincount(inverse[bad], minlength=n_keys).astype(np.int64)
    else:
        out["n"] = np.bincount(inverse, minlength=n_keys).astype(np.float64)
    out["n_rows"] = np.bincount(inverse, minlength=n_keys).astype(np.int64)
    for role, rc in present.items():
        if _is_key(rc):
            continue
        is_soft = soft and role.endswith("_pred")
        columns = rc.indicator_columns
        if (
            weight is None
            and rc.thresholds is None
            and n_keys <= _DENSE_KEYS
            and hasattr(np, "bitwise_count")
        ):
            bitmaps = [c for c in columns if _is_bitmap(batch, c)]
            if bitmaps:
                position = {c: j for j, c in enumerate(columns)}
                sums = _bitmap_sums([_plain(batch.column(c)) for c in bitmaps], inverse, n_keys)
                for column, counts in zip(bitmaps, sums, strict=True):
                    out[f"s_{role}_{position[column]}"] = counts.astype(np.float64)
                    out[f"bad_{role}_{position[column]}"] = np.zeros(n_keys, dtype=np.int64)
                taken = set(bitmaps)
                columns = tuple(c for c in columns if c not in taken)
        position = {c: j for j, c in enumerate(rc.indicator_columns)}
        if columns:
            _sum_columns(
                batch,
                role,
                columns,
                position,
                inverse,
                n_keys,
                weight,
                is_soft,
                out,
                thresholds=rc.thresholds,
            )
    return out


def _arrow_array(values: np.ndarray) -> Any:
    import pyarrow as pa

    return pa.array(values)


def score_keys(
    arrays: Sequence[Any], rc: RoleColumns, *, n_rows: int
) -> tuple[np.ndarray, list[np.ndarray | None]]:
    """The (rows, labels) 0/1 predictions of a score role's Arrow columns, and each
    column's invalid rows (missing, NaN or infinite; None if none)."""
    scores = np.empty((n_rows, len(arrays)), dtype=np.float64)
    invalid: list[np.ndarray | None] = []
    for j, array in enumerate(arrays):
        values, missing = _numeric(array)
        scores[:, j] = values
        bad = invalid_scores(scores[:, j])
        if missing is not None:
            bad = missing if bad is None else bad | missing
        invalid.append(bad)
    scores[~np.isfinite(scores)] = 0.0  # invalid rows are refused; keep the decision defined
    return score_decisions(scores, rc), invalid


def _thresholded(array: Any, threshold: float) -> tuple[np.ndarray, np.ndarray | None]:
    """``score > threshold`` of a score column, and its invalid rows (missing, NaN or
    infinite; None if there are none)."""
    values, missing = _numeric(array)
    values = values.astype(np.float64, copy=False)
    invalid = invalid_scores(values)
    if missing is not None:
        invalid = missing if invalid is None else invalid | missing
    return values > threshold, invalid


def _is_bitmap(batch: Any, column: str) -> bool:
    """A boolean column without missing values whose bits start on a byte."""
    import pyarrow as pa

    array = _plain(batch.column(column))
    return bool(pa.types.is_boolean(array.type) and array.null_count == 0 and array.offset % 8 == 0)


def _bitmap_sums(arrays: Sequence[Any], inverse: np.ndarray, n_keys: int) -> np.ndarray:
    """The true values of each boolean column per key, (columns, K), by counting the bits of
    the column's bitmap AND each key's bitmap (no value is unpacked)."""
    n = len(inverse)
    n_bytes = (n + 7) // 8
    keys = np.packbits(inverse[None, :] == np.arange(n_keys)[:, None], axis=1, bitorder="little")
    out = np.empty((len(arrays), n_keys), dtype=np.int64)
    step = max(1, BLOCK_BYTES // max(1, n_keys * n_bytes))
    for start in range(0, len(arrays), step):
        block = arrays[start : start + step]
        bits = np.empty((len(block), n_bytes), dtype=np.uint8)
        for i, array in enumerate(block):
            bits[i] = np.frombuffer(
                array.buffers()[1], dtype=np.uint8, count=n_bytes, offset=array.offset // 8
            )
        # bits past the last row are zero in every key's bitmap, so they never count
        out[start : start + len(block)] = np.bitwise_count(bits[:, None, :] & keys[None]).sum(
            axis=2, dtype=np.int64
        )
    return out


def _sum_columns(
    batch: Any,
    role: str,
    columns: Sequence[str],
    position: dict[str, int],
    inverse: np.ndarray,
    n_keys: int,
    weight: np.ndarray | None,
    is_soft: bool,
    out: dict[str, Any],
    *,
    thresholds: Sequence[float] | None = None,
) -> None:
    """Sums and invalid counts of ``columns`` per key by one matrix product per block,
    into ``out`` (``s_<role>_<j>``, ``bad_<role>_<j>``, j from ``position``); score
    columns (``thresholds`` by j) are summed as ``score > threshold``."""
    n = len(inverse)
    # 0/1 from bool or integer columns: float32 sums are exact; anything else float64
    whole = weight is None and (
        thresholds is not None or (not is_soft and all(_is_whole(batch, c) for c in columns))
    )
    dtype = np.float32 if whole else np.float64
    hot = _one_hot(inverse, n_keys, weight, dtype)
    width = max(1, BLOCK_BYTES // max(1, n * np.dtype(dtype).itemsize))
    for start in range(0, len(columns), width):
        block = columns[start : start + width]
        matrix = np.empty((n, len(block)), dtype=dtype, order="F")
        for k, column in enumerate(block):
            j = position[column]
            if thresholds is not None:
                values, invalid = _thresholded(_plain(batch.column(column)), thresholds[j])
            else:
                values, missing = _numeric(_plain(batch.column(column)))
                invalid = _invalid(values, soft=is_soft)
                if missing is not None:
                    invalid = missing if invalid is None else invalid | missing
            out[f"bad_{role}_{j}"] = (
                np.zeros(n_keys, dtype=np.int64)
                if invalid is None
                else np.bincount(inverse[invalid], minlength=n_keys).astype(np.int64)
            )
            matrix[:, k] = values
        with _one_blas_thread():
            sums = np.asarray(hot @ matrix, dtype=np.float64)
        for k, column in enumerate(block):
            out[f"s_{role}_{position[column]}"] = sums[:, k]


def merge_group_sums(parts: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    """Add :func:`batch_group_sums` results row by row of equal key (None if ``parts`` is empty).

    The keys stay Arrow arrays of their input type; missing keys are a key of their own.
    """
    import pyarrow as pa

    parts = [p for p in parts if len(p["n_rows"])]
    if not parts:
        return None
    keys = [alias for alias, values in parts[0].items() if not isinstance(values, np.ndarray)]
    stacked = {alias: pa.concat_arrays([_plain(p[alias]) for p in parts]) for alias in keys}
    inverse, first = _key_codes(list(stacked.values()), sum(len(p["n_rows"]) for p in parts))
    out: dict[str, Any] = {alias: array.take(first) for alias, array in stacked.items()}
    for alias in parts[0]:
        if alias in out:
            continue
        values = np.concatenate([np.asarray(p[alias]) for p in parts])
        total = np.zeros(len(first), dtype=values.dtype)
        np.add.at(total, inverse, values)
        out[alias] = total
    return out


def group_sums_record_batch(sums: dict[str, Any], types: dict[str, Any] | None = None) -> Any:
    """A :func:`batch_group_sums` result as one Arrow record batch (keys cast to ``types``)."""
    import pyarrow as pa

    arrays = {}
    for alias, values in sums.items():
        array = (
            _plain(values) if isinstance(values, (pa.Array, pa.ChunkedArray)) else pa.array(values)
        )
        if types is not None and alias in types and array.type != types[alias]:
            array = array.cast(types[alias])
        arrays[alias] = array
    return pa.record_batch(arrays)


def group_sums_frame(sums: dict[str, Any] | None, roles: ColumnRoles) -> pd.DataFrame:
    """A pandas frame of a :func:`batch_group_sums` result (an empty one with the columns
    of ``roles`` for None)."""
    if sums is None:
        columns = group_sums_columns(roles)
        return pd.DataFrame(columns=[*columns["keys"], "n", "n_rows", *columns["sums"]])
    return pd.DataFrame(
        {
            alias: (values.to_pandas() if hasattr(values, "to_pandas") else values)
            for alias, values in sums.items()
        }
    )

"""Count tables from Spark DataFrames: one aggregation on the cluster, a few rows collected.

:func:`counts_from_spark` runs the group-sums SQL (:func:`biasamp.group_sums_sql`,
Spark dialect) over the DataFrame: one ``GROUP BY`` whose result has one row per
distinct group key, with the per-column counts of invalid values computed on
the cluster too. Only that small result reaches the driver, where
:func:`biasamp.counts_from_group_sums` turns it into a :class:`CountTable`.
:func:`pattern_counts_from_spark` counts the rows of every distinct (group,
task set) the same way, for the multi-attribute metrics.

Bootstrap (``n_boot``): every row gets the Poisson(1) weights the in-memory
bootstrap gives the row with the same number (``PoissonReplicates``, stream
0: the weights of row ``i`` depend only on ``random_state`` and ``i``). The
row number is read from the ``row_id`` column the user names, so the Spark
replicate table equals the in-memory one on the rows in ``row_id`` order.
The weights are drawn inside Spark by ``mapInPandas``: each partition counts
its rows into a replicate table with the in-memory code and sends back one
binary row (``numpy.save`` bytes, read with ``allow_pickle=False``).

Spark is imported only inside these functions (``pip install 'biasamp[spark]'``).
"""

from __future__ import annotations

import io
import urllib.parse
import uuid
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd

from biasamp.counts._count_table import JOINT_KEYS, CountTable
from biasamp.counts._poisson import PoissonReplicates, check_n_boot, seed_entropy
from biasamp.engines._arrow_sums import (
    batch_group_sums,
    group_sums_frame,
    group_sums_record_batch,
    merge_group_sums,
)
from biasamp.engines._group_sums import (
    ERR_BAD_VALUES,
    ERR_BAD_WEIGHTS,
    _is_key,
    _key_aliases,
    counts_from_group_sums,
    renamed_roles,
)
from biasamp.inputs._column_roles import ColumnRoles
from biasamp.inputs._roles import GROUP_ROLES

__all__ = ["check_workers", "counts_from_spark", "pattern_counts_from_spark"]

ERR_SPARK_MISSING = (
    "counts_from_spark needs pyspark and Java 17: pip install 'biasamp[spark]' (see the README)."
)
ERR_SPARK_FRAME = "df: expected a pyspark.sql.DataFrame, got {type_name}."
ERR_SPARK_INDICATOR_TYPE = (
    "{role}: column {column!r} has Spark type {got}; indicator columns must be numeric or boolean."
)
ERR_SPARK_COLUMN = "{role}: column {column!r}: {message}"
ERR_ROW_ID_COLUMN = "row_id: column {column!r} is not in the DataFrame (it has {examples})."
ERR_ROW_ID_TYPE = "row_id: column {column!r} has Spark type {got}; row ids must be integers."
ERR_ROW_ID_VALUES = (
    "row_id: column {column!r} has {missing} missing, {negative} negative and {repeated} "
    "repeated value(s); row ids must be distinct non-negative integers."
)
ERR_SPARK_REPEATED = (
    "df: the column(s) {repeated} appear more than once; name every role column once."
)
ERR_SPARK_FILE_COLUMNS = "{path}: column(s) {missing} not found in the file."
ERR_SPARK_WORKERS = (
    "Spark's Python workers cannot import biasamp {version}: install it on the executors, "
    "or set PYSPARK_PYTHON before the session starts"
)
ERR_ROW_ID_WITHOUT_BOOT = "row_id: only used with n_boot (it numbers the rows for the bootstrap)."

_ROW = "__biasamp_row"


_WORKERS_CHECKED: set[str] = set()  # the Spark applications whose workers import biasamp


def _worker_version(_: Any) -> str:
    """Run on a Spark worker: the version of biasamp its Python imports, or ``""``.

    Pickled by value (it is replaced by a copy made in :func:`_probe`): a worker
    without biasamp must be able to run it."""
    import importlib

    try:  # by name: the worker imports the package, not this module's room
        package = importlib.import_module("biasamp")
    except Exception:  # ImportError, or a dependency of biasamp failing to import
        return ""
    return str(getattr(package, "__version__", ""))


def _probe() -> Any:
    """:func:`_worker_version` as a function of no module, so that cloudpickle sends its
    code rather than a reference to ``biasamp.engines._spark``."""
    import types

    code = _worker_version.__code__
    return types.FunctionType(code, {"__builtins__": __builtins__}, "_worker_version")


def check_workers(spark: Any) -> None:
    """Check, once per Spark application and before its first job of ours, in one tiny
    task, that the workers' Python imports biasamp at the driver's version; raise
    ``ImportError`` (:data:`ERR_SPARK_WORKERS`, one line) when it does not.

    Counting runs Python on the executors (``mapInArrow``, ``mapInPandas``): without
    this check a worker without biasamp fails with a worker traceback.
    """
    from biasamp._version import __version__

    context = spark.sparkContext
    key = str(context.applicationId)
    if key in _WORKERS_CHECKED:
        return
    message = ERR_SPARK_WORKERS.format(version=__version__)
    try:
        found = context.parallelize([0], 1).map(_probe()).collect()
    except Exception as exc:  # the worker's Python could not even start or unpickle
        raise ImportError(message) from exc
    if found != [__version__]:
        detail = f" (they have {found[0]})" if found and found[0] else ""
        raise ImportError(
            message.replace(f"biasamp {__version__}:", f"biasamp {__version__}{detail}:")
        )
    _WORKERS_CHECKED.add(key)


def _check_frame(df: Any) -> None:
    module = type(df).__module__
    if not (module.startswith("pyspark.sql") and hasattr(df, "sparkSession")):
        raise TypeError(ERR_SPARK_FRAME.format(type_name=type(df).__name__))


def _check_types(df: Any, roles: ColumnRoles) -> list[str]:
    """Check that indicator columns are numeric or boolean; return the boolean ones."""
    from pyspark.sql import types as T

    fields = {f.name: f.dataType for f in df.schema.fields}
    boolean = []
    for role, rc in roles.present().items():
        if rc.is_label:
            continue
        for column in rc.indicator_columns:
            kind = fields[column]
            if isinstance(kind, T.BooleanType):
                boolean.append(column)
            elif not isinstance(kind, (T.NumericType, T.NullType)):
                raise TypeError(
                    ERR_SPARK_INDICATOR_TYPE.format(
                        role=role, column=column, got=kind.simpleString()
                    )
                )
    return boolean


def _resolve(df: Any, **specs: Any) -> ColumnRoles:
    _check_frame(df)
    return ColumnRoles.resolve(list(df.columns), **specs)


def _positional(
    df: Any, roles: ColumnRoles, *extra: str
) -> tuple[Any, ColumnRoles, dict[str, str]]:
    """``df`` with every column renamed ``_c<i>`` by its position, the roles on those names,
    and the map from each role column (and ``extra`` column) to its new name.

    Spark resolves column names ignoring case (``spark.sql.caseSensitive`` is
    off by default) and parses dots and backticks in them; the roles were
    matched exactly against ``df.columns`` in Python, so from here on every
    column is named by its position (``DataFrame.toDF`` renames by position).
    """
    names = list(df.columns)
    wanted = [*roles.columns(), *extra]
    repeated = [c for c in dict.fromkeys(wanted) if names.count(c) > 1]
    if repeated:
        raise ValueError(ERR_SPARK_REPEATED.format(repeated=repeated))
    alias = {c: f"_c{names.index(c)}" for c in wanted}
    positional = df.toDF(*[f"_c{i}" for i in range(len(names))])
    return positional, renamed_roles(roles, alias), alias


def _run_sql(df: Any, make_sql: Any) -> pd.DataFrame:
    """Run ``make_sql(view_name)`` over ``df`` as a temporary view; collect the (small) result."""
    spark = df.sparkSession
    view = f"biasamp_{uuid.uuid4().hex}"
    df.createOrReplaceTempView(view)
    try:
        result = spark.sql(make_sql(view))
        rows = result.collect()
        columns = list(result.columns)
    finally:
        spark.catalog.dropTempView(view)
    return pd.DataFrame([list(r) for r in rows], columns=columns)


def _check_group_keys(frame: pd.DataFrame, roles: ColumnRoles) -> None:
    """Name the column of a group indicator with values other than 0/1 (they are keys)."""
    for role, rc in roles.present().items():
        if role not in GROUP_ROLES or rc.is_label:
            continue
        for j, column in enumerate(rc.indicator_columns):
            values = pd.to_numeric(frame[f"k_{role}_{j}"], errors="coerce").to_numpy(
                dtype=np.float64
            )
            bad = ~((values == 0) | (values == 1))
            if bad.any():
                raise ValueError(
                    ERR_BAD_VALUES.format(
                        where="",
                        role=role,
                        count=int(frame.loc[bad, "n_rows"].sum()),
                        column=column,
                        allowed="0 or 1",
                    )
                )


def _name_column(exc: Exception, roles: ColumnRoles) -> Exception:
    """The error with the role's label column named (label errors name only the role)."""
    message = str(exc)
    for role, rc in roles.present().items():
        if rc.is_label and message.startswith(f"{role}:"):
            text = ERR_SPARK_COLUMN.format(
                role=role, column=rc.label_column, message=message[len(role) + 1 :].strip()
            )
            return type(exc)(text)
    return exc


def counts_from_spark(
    df: Any,
    *,
    groups: Any = None,
    tasks: Any = None,
    groups_pred: Any = None,
    tasks_pred: Any = None,
    sample_weight: str | None = None,
    groups_prefix: str | None = None,
    tasks_prefix: str | None = None,
    groups_pred_prefix: str | None = None,
    tasks_pred_prefix: str | None = None,
    group_names: Sequence[Any] | None = None,
    task_names: Sequence[Any] | None = None,
    soft: bool = False,
    names_source: str | None = None,
    n_boot: int | None = None,
    random_state: Any = None,
    row_id: str | None = None,
) -> CountTable:
    """Count the labels of a Spark DataFrame into a :class:`CountTable`, on the cluster.

    Parameters
    ----------
    df : pyspark.sql.DataFrame
        One split's rows, with the role columns (any number of partitions).
    groups, tasks, groups_pred, tasks_pred : str, list of str or dict, optional
        Column roles: a label column name, indicator column names, or a dict of
        indicator column -> label name (see :class:`ColumnRoles`).
    sample_weight : str, optional
        A column of non-negative row weights.
    groups_prefix, tasks_prefix, groups_pred_prefix, tasks_pred_prefix : str, optional
        Select a role's indicator columns by prefix (stripped from the label names).
    group_names, task_names : sequence, optional
        Canonical label names, e.g. ``train.group_names`` for an evaluation split.
    soft : bool, default False
        Predicted indicator columns may hold probabilities in [0, 1].
    names_source : str, optional
        Where ``group_names`` / ``task_names`` came from, for error messages.
    n_boot : int, optional
        Count ``n_boot`` Poisson bootstrap replicates too, with the weights the
        in-memory bootstrap gives each row number: the table carries them as
        ``table.replicates`` (every count of shape ``(n_boot, ...)``), as a
        ``CountTable.empty(n_boot=...)`` table does, so the metrics'
        ``*_from_counts`` give an interval.
    random_state : None, int or Generator
        Seed of the replicates (as for the metrics' ``random_state``).
    row_id : str, optional
        With ``n_boot``: an integer column numbering the rows ``0 .. n-1``
        (distinct, non-negative; checked on the cluster). Row ``i`` gets the
        weights of in-memory row ``i``, so the replicates equal the in-memory
        ones for the rows in ``row_id`` order. Without it the rows are
        numbered by ``monotonically_increasing_id()``: reproducible only for
        the same partitioning of the same data, and not equal to an
        in-memory run.

    Returns
    -------
    CountTable
        Equal to :meth:`CountTable.from_arrays` on the collected columns
        (integer counts exactly; with ``n_boot``, ``.replicates`` is the table
        of the replicates).

    Raises
    ------
    ImportError
        The workers' Python cannot import biasamp at the driver's version
        (:data:`ERR_SPARK_WORKERS`, checked once per session in one tiny task
        before the first job).
    ValueError
        Naming the column: a label outside ``group_names`` / ``task_names``, a
        missing value, an indicator other than 0/1, a negative weight.
    TypeError
        ``df`` is not a Spark DataFrame, or an indicator column is not numeric.

    Examples
    --------
    Skipped as doctests (they need a Java runtime); ``docs/scale.md`` runs a full example.

    >>> import pandas as pd
    >>> from pyspark.sql import SparkSession                    # doctest: +SKIP
    >>> spark = SparkSession.builder.master("local[2]").getOrCreate()  # doctest: +SKIP
    >>> df = spark.createDataFrame(pd.DataFrame(
    ...     {"gender": ["m", "w", "w"], "ski": [1, 0, 1]}))      # doctest: +SKIP
    >>> counts_from_spark(df, groups="gender", tasks=["ski"]).joint[("groups", "tasks")]
    ... # doctest: +SKIP
    array([[1.],
           [1.]])
    """
    try:
        import pyspark  # noqa: F401
    except ImportError as exc:  # pragma: no cover - exercised without pyspark
        raise ImportError(ERR_SPARK_MISSING) from exc
    n_boot = None if n_boot is None else check_n_boot(n_boot)
    if row_id is not None and n_boot is None:
        raise ValueError(ERR_ROW_ID_WITHOUT_BOOT)
    roles = _resolve(
        df,
        groups=groups,
        tasks=tasks,
        groups_pred=groups_pred,
        tasks_pred=tasks_pred,
        sample_weight=sample_weight,
        groups_prefix=groups_prefix,
        tasks_prefix=tasks_prefix,
        groups_pred_prefix=groups_pred_prefix,
        tasks_pred_prefix=tasks_pred_prefix,
    )
    _check_types(df, roles)
    if row_id is not None and row_id not in df.columns:
        shown = ", ".join(repr(c) for c in list(df.columns)[:8])
        raise ValueError(ERR_ROW_ID_COLUMN.format(column=row_id, examples=shown))
    check_workers(df.sparkSession)
    files = _parquet_files(df)
    positional, safe, alias = _positional(df, roles, *([row_id] if row_id is not None else []))
    if files is not None:
        frame = _group_sums_of_files(df, files, roles, soft=soft)
    else:
        frame = _group_sums(positional, safe, roles, soft=soft)
    _check_group_keys(frame, roles)
    try:
        table = counts_from_group_sums(
            frame,
            roles,
            group_names=group_names,
            task_names=task_names,
            soft=soft,
            names_source=names_source,
        )
    except (ValueError, TypeError) as exc:
        raise _name_column(exc, roles) from exc
    if n_boot is None:
        return table
    replicates = PoissonReplicates(n_boot, random_state=seed_entropy(random_state), stream=0)
    if row_id is not None:
        _check_row_id(df, positional, row_id, alias[row_id])
    stacked = _replicate_table(
        positional,
        safe,
        table,
        replicates,
        soft=soft,
        row_id=None if row_id is None else alias[row_id],
    )
    # the point table carrying its replicates, as CountTable.empty(n_boot=...) tables do:
    # the metrics' *_from_counts give it an interval
    return replace(table, bootstrap=replicates, replicates=stacked, next_row=table.n_rows)


# ------------------------------------------------------------------ counting
def _rows_per_count(n_columns: int) -> int:
    """Rows of Arrow batches gathered before one count: about 32 MB of one-byte values."""
    return max(10_000, min(200_000, 2**25 // max(1, n_columns)))


def _sums_counter(roles: ColumnRoles, soft: bool, names: list[str]) -> Any:
    """The ``mapInArrow`` function: one partition's group-sums rows (one per key)."""
    rows = _rows_per_count(len(roles.columns()))

    def count(batches: Iterator[Any]) -> Iterator[Any]:
        import pyarrow as pa

        parts: list[dict[str, Any]] = []
        pending: list[Any] = []
        size = 0
        for batch in batches:
            if batch.num_rows:
                pending.append(batch)
                size += batch.num_rows
            if pending and (size >= rows):
                parts.append(batch_group_sums(pa.Table.from_batches(pending), roles, soft=soft))
                pending, size = [], 0
        if pending:
            parts.append(batch_group_sums(pa.Table.from_batches(pending), roles, soft=soft))
        merged = merge_group_sums(parts)
        if merged is not None:
            record = group_sums_record_batch(merged)
            yield record.select(names)

    return count


def _output_schema(fields: dict[str, Any], roles: ColumnRoles) -> tuple[list[Any], dict[str, str]]:
    """The Spark fields of the group-sums rows of ``roles`` (key types from ``fields``),
    and the map from each key alias to its source column."""
    from pyspark.sql import types as T

    keys = {
        alias: column
        for rc in roles.present().values()
        if _is_key(rc)
        for column, alias in zip(rc.columns, _key_aliases(rc), strict=True)
    }
    scored = {  # group score keys are score > threshold: 0 or 1, as int8
        alias
        for rc in roles.present().values()
        if _is_key(rc) and rc.is_scores
        for alias in _key_aliases(rc)
    }
    schema = [
        T.StructField(alias, T.ByteType() if alias in scored else fields[column])
        for alias, column in keys.items()
    ]
    schema += [T.StructField("n", T.DoubleType()), T.StructField("n_rows", T.LongType())]
    if roles.sample_weight is not None:
        schema.append(T.StructField("bad_weight", T.LongType()))
    for rc in roles.present().values():
        if not _is_key(rc):
            for j in range(len(rc.indicator_columns)):
                schema.append(T.StructField(f"s_{rc.role}_{j}", T.DoubleType()))
                schema.append(T.StructField(f"bad_{rc.role}_{j}", T.LongType()))
        elif rc.is_scores:  # group scores: keys are score > threshold, bad scores counted
            for j in range(len(rc.indicator_columns)):
                schema.append(T.StructField(f"bad_{rc.role}_{j}", T.LongType()))
    return schema, keys


def _collect_sums(result: Any, names: list[str], roles: ColumnRoles) -> pd.DataFrame:
    """Collect the group-sums rows of every partition and add them by key."""
    import pyarrow as pa

    with warnings.catch_warnings():  # pyspark warns about pandas 3 on every Python UDF
        warnings.simplefilter("ignore", FutureWarning)
        if hasattr(result, "toArrow"):  # Spark 4
            collected = result.toArrow()
        else:  # pragma: no cover - Spark 3
            collected = pa.Table.from_pandas(result.toPandas(), preserve_index=False)
    part = {name: collected.column(name) for name in names}
    return group_sums_frame(merge_group_sums([part]), roles)


def _parquet_files(df: Any) -> list[str] | None:
    """The local Parquet files that ``df`` is, when it is nothing but ``spark.read.parquet(...)``,
    maybe with a ``select`` of its columns (no filter, join, computed or renamed column,
    or partition columns); None otherwise.

    Such a frame is counted by reading its files with pyarrow inside Spark tasks:
    Spark's own scan of hundreds of columns runs without code generation, many
    times slower than the files can be read.
    """
    try:
        plan = df._jdf.queryExecution().analyzed()
        if plan.getClass().getSimpleName() == "Project":  # a selection of columns, no renames
            projected = plan.projectList()
            for i in range(projected.size()):
                if projected.apply(i).getClass().getSimpleName() != "AttributeReference":
                    return None
            plan = plan.child()
        if plan.getClass().getSimpleName() != "LogicalRelation":
            return None
        relation = plan.relation()
        if (
            relation.getClass().getSimpleName() != "HadoopFsRelation"
            or relation.fileFormat().getClass().getSimpleName() != "ParquetFileFormat"
            or relation.partitionSchema().length() > 0
        ):
            return None
        files = [str(f) for f in df.inputFiles()]
    except Exception:  # Spark Connect, another plan, another Spark version
        return None
    paths = []
    for uri in files:
        parsed = urllib.parse.urlparse(uri)
        if parsed.scheme not in ("", "file"):
            return None
        paths.append(urllib.parse.unquote(parsed.path))
    return paths or None


def _cast_keys(chunk: Any, key_types: dict[str, Any]) -> Any:
    """A batch with its key columns cast to the DataFrame's types (files may differ:
    Spark reads every file with one schema), so keys of all files merge."""
    import pyarrow as pa

    names = chunk.schema.names
    if all(chunk.schema.field(c).type == t for c, t in key_types.items()):
        return chunk
    arrays = [
        chunk.column(i).cast(key_types[name]) if name in key_types else chunk.column(i)
        for i, name in enumerate(names)
    ]
    return pa.record_batch(arrays, names=names)


def _file_counter(
    roles: ColumnRoles,
    soft: bool,
    names: list[str],
    types: dict[str, Any],
    key_types: dict[str, Any],
    files: list[str],
) -> Any:
    """The ``mapInArrow`` function over a frame of file numbers (``spark.range``): each task
    reads its files with pyarrow and sends back its group-sums rows."""
    rows = _rows_per_count(len(roles.columns()))
    columns = roles.columns()

    def count(batches: Iterator[Any]) -> Iterator[Any]:
        import pyarrow.parquet as pq

        merged: dict[str, Any] | None = None
        for batch in batches:
            for number in batch.column(0).to_pylist():
                path = files[number]
                with pq.ParquetFile(path) as handle:
                    present = set(handle.schema_arrow.names)
                    missing = [c for c in columns if c not in present]
                    if missing:
                        raise ValueError(ERR_SPARK_FILE_COLUMNS.format(path=path, missing=missing))
                    parts = [] if merged is None else [merged]
                    for chunk in handle.iter_batches(batch_size=rows, columns=columns):
                        if chunk.num_rows:
                            chunk = _cast_keys(chunk, key_types)
                            parts.append(batch_group_sums(chunk, roles, soft=soft))
                    merged = merge_group_sums(parts)
        if merged is not None:
            yield group_sums_record_batch(merged, types).select(names)

    return count


def _group_sums_of_files(
    df: Any, files: list[str], roles: ColumnRoles, *, soft: bool
) -> pd.DataFrame:
    """The group-sums table of Parquet files, counted by Spark tasks that read them with pyarrow."""
    from pyspark.sql import types as T
    from pyspark.sql.pandas.types import to_arrow_type

    spark = df.sparkSession
    fields = {f.name: f.dataType for f in df.schema.fields}
    schema, keys = _output_schema(fields, roles)
    large = str(spark.conf.get("spark.sql.execution.arrow.useLargeVarTypes", "false")) == "true"

    def arrow_type(kind: Any) -> Any:
        try:
            return to_arrow_type(kind, prefers_large_types=large)
        except TypeError:  # pragma: no cover - Spark 3
            return to_arrow_type(kind)

    output = {f.name: f.dataType for f in schema}
    types = {alias: arrow_type(output[alias]) for alias in keys}  # of the output rows
    names = [f.name for f in schema]
    slices = max(1, min(len(files), 4 * spark.sparkContext.defaultParallelism))
    # file numbers from spark.range: a source without Python rows (a parallelized Python
    # list would start a second Python worker per task to unpickle them)
    numbers = spark.range(len(files), numPartitions=slices)
    key_types = {column: arrow_type(fields[column]) for column in keys.values()}  # of the input
    counter = _file_counter(roles, soft, names, types, key_types, files)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        result = numbers.mapInArrow(counter, T.StructType(schema))
    return _collect_sums(result, names, roles)


def _group_sums(
    positional: Any, safe: ColumnRoles, roles: ColumnRoles, *, soft: bool
) -> pd.DataFrame:
    """The group-sums table of a positionally named frame, counted per partition in numpy
    over Arrow batches (``mapInArrow``) and added on the driver.

    Spark's own ``GROUP BY`` over hundreds of columns runs without code generation;
    here Spark only hands each partition's columns to Python as Arrow batches.
    """
    from pyspark.sql import types as T

    fields = {f.name: f.dataType for f in positional.schema.fields}
    schema, _ = _output_schema(fields, safe)
    names = [f.name for f in schema]
    counter = _sums_counter(safe, soft, names)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        result = positional.select(*safe.columns()).mapInArrow(counter, T.StructType(schema))
    return _collect_sums(result, names, roles)


# ------------------------------------------------------------------ bootstrap
def _layout(table: CountTable) -> list[tuple[str, Any, tuple[int, ...]]]:
    """The arrays of a table in a fixed order, with their shapes (without the batch axis)."""
    out: list[tuple[str, Any, tuple[int, ...]]] = [("n", None, ())]
    out += [("totals", role, np.shape(v)) for role, v in sorted(table.totals.items())]
    out += [("joint", key, np.shape(table.joint[key])) for key in JOINT_KEYS if key in table.joint]
    return out


def _flatten(table: CountTable, layout: list[tuple[str, Any, tuple[int, ...]]]) -> np.ndarray:
    parts = []
    for kind, key, _ in layout:
        value = table.n if kind == "n" else getattr(table, kind)[key]
        parts.append(np.asarray(value, dtype=np.float64).reshape(np.shape(value)[0], -1))
    return np.concatenate(parts, axis=1)


def _to_bytes(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=False)
    return buffer.getvalue()


def _from_bytes(blob: bytes) -> np.ndarray:
    return np.asarray(np.load(io.BytesIO(blob), allow_pickle=False))


def _batch_arrays(batch: pd.DataFrame, roles: ColumnRoles) -> dict[str, Any]:
    arrays: dict[str, Any] = {}
    for role, rc in roles.present().items():
        if rc.is_label:
            arrays[role] = batch[rc.label_column].to_numpy(dtype=object)
        else:
            arrays[role] = pd.DataFrame(
                batch[list(rc.indicator_columns)].to_numpy(),
                columns=pd.Index(list(rc.indicator_names), dtype=object),
            )
    if roles.sample_weight is not None:
        arrays["sample_weight"] = batch[roles.sample_weight].to_numpy(dtype=np.float64)
    return arrays


def _partition_counter(
    roles: ColumnRoles,
    names: dict[str, tuple[Any, ...]],
    layout: list[tuple[str, Any, tuple[int, ...]]],
    replicates: PoissonReplicates,
    soft: bool,
) -> Any:
    """The ``mapInPandas`` function: one partition's replicate counts as one binary row."""

    def count(batches: Iterator[pd.DataFrame]) -> Iterator[pd.DataFrame]:
        total: np.ndarray | None = None
        n_rows = 0
        for batch in batches:
            if not len(batch):
                continue
            weights = replicates.at(batch[_ROW].to_numpy(dtype=np.int64)).T  # (B, rows)
            table = CountTable.from_arrays(
                **_batch_arrays(batch, roles),
                group_names=names["group"],
                task_names=names["task"],
                soft=soft,
                replicate_weights=weights,
            )
            flat = _flatten(table, layout)
            total = flat if total is None else total + flat
            n_rows += len(batch)
        if total is not None:
            yield pd.DataFrame({"n_rows": [n_rows], "counts": [_to_bytes(total)]})

    return count


def _check_row_id(df: Any, positional: Any, row_id: str, alias: str) -> None:
    from pyspark.sql import types as T

    fields = {f.name: f.dataType for f in df.schema.fields}
    if not isinstance(fields[row_id], T.IntegralType):
        raise TypeError(ERR_ROW_ID_TYPE.format(column=row_id, got=fields[row_id].simpleString()))
    (checks,) = _run_sql(
        positional,
        lambda view: (
            f"SELECT COUNT(*) - COUNT({alias}) AS missing, COUNT_IF({alias} < 0) AS negative, "
            f"COUNT({alias}) - COUNT(DISTINCT {alias}) AS repeated FROM {view}"
        ),
    ).itertuples(index=False)
    missing, negative, repeated = (int(v) for v in checks)
    if missing or negative or repeated:
        raise ValueError(
            ERR_ROW_ID_VALUES.format(
                column=row_id, missing=missing, negative=negative, repeated=repeated
            )
        )


def _replicate_table(
    df: Any,
    roles: ColumnRoles,
    table: CountTable,
    replicates: PoissonReplicates,
    *,
    soft: bool,
    row_id: str | None,
) -> CountTable:
    """The replicate table of ``df`` (columns named by position, see :func:`_positional`;
    validated already by the point count ``table``)."""
    from pyspark.sql import functions as F

    if row_id is not None:
        numbered = df.select(*roles.columns(), row_id).withColumnRenamed(row_id, _ROW)
    else:
        numbered = df.select(*roles.columns()).withColumn(_ROW, F.monotonically_increasing_id())
    layout = _layout(table)
    names = {"group": table.group_names, "task": table.task_names}
    counter = _partition_counter(roles, names, layout, replicates, soft)
    with warnings.catch_warnings():  # pyspark warns about pandas 3 on every pandas UDF
        warnings.simplefilter("ignore", FutureWarning)
        rows = numbered.mapInPandas(counter, "n_rows long, counts binary").collect()
    n_boot = replicates.n_boot
    width = sum(int(np.prod(shape)) for _, _, shape in layout)
    total = np.zeros((n_boot, width))
    for row in rows:
        total += _from_bytes(row["counts"])
    arrays: dict[str, Any] = {"totals": {}, "joint": {}}
    start = 0
    n = np.zeros(n_boot)
    for kind, key, shape in layout:
        size = int(np.prod(shape))
        block = total[:, start : start + size].reshape((n_boot, *shape))
        start += size
        if kind == "n":
            n = block.reshape(n_boot)
        else:
            arrays[kind][key] = np.ascontiguousarray(block)
    return CountTable(
        group_names=table.group_names,
        task_names=table.task_names,
        n=n,
        totals=arrays["totals"],
        joint=arrays["joint"],
        n_rows=int(sum(int(r["n_rows"]) for r in rows)),
    )


# ------------------------------------------------------------------ patterns
def pattern_counts_from_spark(
    df: Any,
    *,
    groups: Any = None,
    tasks: Any = None,
    groups_pred: Any = None,
    tasks_pred: Any = None,
    sample_weight: str | None = None,
    groups_prefix: str | None = None,
    tasks_prefix: str | None = None,
    groups_pred_prefix: str | None = None,
    tasks_pred_prefix: str | None = None,
    group_names: Sequence[Any] | None = None,
    task_names: Sequence[Any] | None = None,
    names_source: str | None = None,
) -> Any:
    """The :class:`PatternCountTable` of a Spark DataFrame (the multi-attribute metrics' counts).

    Same column-role arguments as :func:`counts_from_spark` (task roles are 0/1
    indicator columns). One ``GROUP BY`` over every role column counts the
    rows (and weights) of each distinct (group, task set) pattern on the
    cluster; the few result rows are loaded as weighted rows, which gives the
    same pattern counts as counting every row. Invalid values (an indicator
    other than 0/1, a missing value, a negative weight) raise ``ValueError``
    naming the column.

    Returns
    -------
    PatternCountTable
        Equal to :meth:`PatternCountTable.from_arrays` on the collected columns.

    Examples
    --------
    Skipped as a doctest (it needs a Java runtime and the ``df`` of :func:`counts_from_spark`):

    >>> table = pattern_counts_from_spark(df, groups="gender", tasks=["ski", "cook"])
    ... # doctest: +SKIP
    """
    from biasamp.counts._pattern_counts import PatternCountTable

    try:
        import pyspark  # noqa: F401
    except ImportError as exc:  # pragma: no cover - exercised without pyspark
        raise ImportError(ERR_SPARK_MISSING) from exc
    roles = _resolve(
        df,
        groups=groups,
        tasks=tasks,
        groups_pred=groups_pred,
        tasks_pred=tasks_pred,
        sample_weight=sample_weight,
        groups_prefix=groups_prefix,
        tasks_prefix=tasks_prefix,
        groups_pred_prefix=groups_pred_prefix,
        tasks_pred_prefix=tasks_pred_prefix,
    )
    _check_types(df, roles)
    check_workers(df.sparkSession)
    positional, safe, alias = _positional(df, roles)
    keys = [c for rc in roles.present().values() for c in rc.columns]
    key_sql = ", ".join(alias[c] for c in keys)
    if roles.sample_weight is not None:
        w = f"CAST({alias[roles.sample_weight]} AS DOUBLE)"
        weight = (
            f"SUM({w}) AS __weight, COUNT(*) - COUNT({w}) + "
            f"COUNT_IF(NOT ({w} >= 0 AND {w} <= 1e308)) AS __bad_weight"
        )
    else:
        weight = "CAST(COUNT(*) AS DOUBLE) AS __weight, 0 AS __bad_weight"
    frame = _run_sql(
        positional,
        lambda view: (
            f"SELECT {key_sql}, {weight}, COUNT(*) AS __rows FROM {view} GROUP BY {key_sql}"
        ),
    )
    frame.columns = pd.Index([*keys, "__weight", "__bad_weight", "__rows"], dtype=object)
    bad_weights = int(frame["__bad_weight"].sum())
    if bad_weights:
        raise ValueError(ERR_BAD_WEIGHTS.format(where="", count=bad_weights))
    for role, rc in roles.present().items():
        if rc.is_label:
            continue
        for column in rc.indicator_columns:
            values = pd.to_numeric(frame[column], errors="coerce").to_numpy(dtype=np.float64)
            bad = ~((values == 0) | (values == 1))
            if bad.any():
                raise ValueError(
                    ERR_BAD_VALUES.format(
                        where="",
                        role=role,
                        count=int(frame.loc[bad, "__rows"].sum()),
                        column=column,
                        allowed="0 or 1",
                    )
                )
    source = names_source if (group_names is not None or task_names is not None) else None
    try:
        # the rows are weighted by their pattern's total
        arrays = _batch_arrays(frame, replace(roles, sample_weight=None))
        table = PatternCountTable.from_arrays(
            **arrays,
            sample_weight=frame["__weight"].to_numpy(dtype=np.float64),
            group_names=group_names,
            task_names=task_names,
            names_source=source,
        )
    except (ValueError, TypeError) as exc:
        raise _name_column(exc, roles) from exc
    table.n_rows = int(frame["__rows"].sum())
    return table

"""Data at scale in, count tables out: files (pyarrow, DuckDB), Dask, Spark, SQL engines.

Engines produce :class:`~biasamp.counts.CountTable` objects; the count table never
imports an engine. Importing this package registers the Dask counter with the
adapter layer (:func:`biasamp.inputs.register_counter`), so metrics and
``CountTable.from_arrays`` accept Dask collections.
"""

from biasamp.engines._dask import counts_from_dask
from biasamp.engines._files import (
    counts_from_files,
    counts_from_joined_files,
    pattern_counts_from_files,
)
from biasamp.engines._group_sums import counts_from_group_sums, group_sums_sql
from biasamp.engines._long_tables import counts_from_long_files
from biasamp.engines._spark import counts_from_spark, pattern_counts_from_spark
from biasamp.inputs._collections import register_counter

register_counter("dask", counts_from_dask)

__all__ = [
    "counts_from_dask",
    "counts_from_files",
    "counts_from_group_sums",
    "counts_from_joined_files",
    "counts_from_long_files",
    "counts_from_spark",
    "group_sums_sql",
    "pattern_counts_from_files",
    "pattern_counts_from_spark",
]

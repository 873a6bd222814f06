"""Data at scale in, count tables out: files (pyarrow, DuckDB), Dask, Spark, SQL engines.

Engines produce :class:`~biasamp.counts.CountTable` objects; the count table never
imports an engine. ``import biasamp`` registers the Dask counter with the adapter
layer (:func:`biasamp.inputs.register_counter`) without importing Dask or this
package, so metrics and ``CountTable.from_arrays`` accept Dask collections; the
engine is imported when the first collection comes in.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from biasamp._lazy import lazy_exports

if TYPE_CHECKING:
    from biasamp.engines._dask import counts_from_dask
    from biasamp.engines._files import (
        counts_from_files,
        counts_from_joined_files,
        pattern_counts_from_files,
    )
    from biasamp.engines._group_sums import counts_from_group_sums, group_sums_sql
    from biasamp.engines._long_tables import counts_from_long_files
    from biasamp.engines._spark import counts_from_spark, pattern_counts_from_spark

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

if not TYPE_CHECKING:
    __getattr__, __dir__ = lazy_exports(
        __name__,
        {
            "biasamp.engines._dask": ("counts_from_dask",),
            "biasamp.engines._files": (
                "counts_from_files",
                "counts_from_joined_files",
                "pattern_counts_from_files",
            ),
            "biasamp.engines._group_sums": ("counts_from_group_sums", "group_sums_sql"),
            "biasamp.engines._long_tables": ("counts_from_long_files",),
            "biasamp.engines._spark": ("counts_from_spark", "pattern_counts_from_spark"),
        },
    )

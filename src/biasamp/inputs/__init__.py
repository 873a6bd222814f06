"""The adapter layer: label arrays from any library in, one :class:`LabelMatrix` out.

Everything that enters biasamp (metric arguments, count-table chunks, file
columns, engine inputs) passes through here, so the rest of the package sees one
kind of array. Column roles (which file or SQL columns hold which role) live
here too, and so does the detection of distributed collections, whose counting
engine is registered by :mod:`biasamp.engines`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from biasamp._lazy import lazy_exports

if TYPE_CHECKING:
    from biasamp.inputs._collections import collection_kind, counter_for, register_counter
    from biasamp.inputs._column_roles import (
        ColumnRoles,
        IntersectedColumns,
        RoleColumns,
        ScoreColumns,
    )
    from biasamp.inputs._containers import to_native_numpy
    from biasamp.inputs._group_sizes import (
        DEFAULT_MIN_CELL,
        DEFAULT_MIN_GROUP_SIZE,
        FragilePairWarning,
        MissingGroupWarning,
        SmallGroupWarning,
    )
    from biasamp.inputs._intersect import Intersection, intersect, intersection_of
    from biasamp.inputs._label_matrix import (
        LabelMatrix,
        LabelWarning,
        as_label_matrix,
        as_sample_weight,
    )

__all__ = [
    "DEFAULT_MIN_CELL",
    "DEFAULT_MIN_GROUP_SIZE",
    "FragilePairWarning",
    "ColumnRoles",
    "IntersectedColumns",
    "Intersection",
    "LabelMatrix",
    "LabelWarning",
    "MissingGroupWarning",
    "RoleColumns",
    "ScoreColumns",
    "SmallGroupWarning",
    "as_label_matrix",
    "as_sample_weight",
    "collection_kind",
    "counter_for",
    "intersect",
    "intersection_of",
    "register_counter",
    "to_native_numpy",
]

if not TYPE_CHECKING:
    __getattr__, __dir__ = lazy_exports(
        __name__,
        {
            "biasamp.inputs._collections": ("collection_kind", "counter_for", "register_counter"),
            "biasamp.inputs._column_roles": (
                "ColumnRoles",
                "IntersectedColumns",
                "RoleColumns",
                "ScoreColumns",
            ),
            "biasamp.inputs._containers": ("to_native_numpy",),
            "biasamp.inputs._group_sizes": (
                "DEFAULT_MIN_CELL",
                "DEFAULT_MIN_GROUP_SIZE",
                "FragilePairWarning",
                "MissingGroupWarning",
                "SmallGroupWarning",
            ),
            "biasamp.inputs._intersect": ("Intersection", "intersect", "intersection_of"),
            "biasamp.inputs._label_matrix": (
                "LabelMatrix",
                "LabelWarning",
                "as_label_matrix",
                "as_sample_weight",
            ),
        },
    )

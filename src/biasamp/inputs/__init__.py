"""The adapter layer: label arrays from any library in, one :class:`LabelMatrix` out.

Everything that enters biasamp (metric arguments, count-table chunks, file
columns, engine inputs) passes through here, so the rest of the package sees one
kind of array. Column roles (which file or SQL columns hold which role) live
here too, and so does the detection of distributed collections, whose counting
engine is registered by :mod:`biasamp.engines`.
"""

from biasamp.inputs._collections import collection_kind, counter_for, register_counter
from biasamp.inputs._column_roles import (
    ColumnRoles,
    IntersectedColumns,
    RoleColumns,
    ScoreColumns,
)
from biasamp.inputs._containers import to_native_numpy
from biasamp.inputs._group_sizes import DEFAULT_MIN_GROUP_SIZE, SmallGroupWarning
from biasamp.inputs._intersect import Intersection, intersect, intersection_of
from biasamp.inputs._label_matrix import (
    LabelMatrix,
    LabelWarning,
    as_label_matrix,
    as_sample_weight,
)

__all__ = [
    "DEFAULT_MIN_GROUP_SIZE",
    "ColumnRoles",
    "IntersectedColumns",
    "Intersection",
    "LabelMatrix",
    "LabelWarning",
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

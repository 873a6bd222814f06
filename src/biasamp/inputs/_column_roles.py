"""Which columns of a table hold which label role.

Files, SQL tables and Dask frames hold the labels of a split as columns. A
:class:`ColumnRoles` says which: each role (``groups``, ``tasks``,
``groups_pred``, ``tasks_pred``) is either one *label column* (a string or
integer label per row, one-hot in the counts) or a list of *indicator columns*
(0/1 per row, one column per label; probabilities with ``soft=True`` for the
predicted roles). ``sample_weight`` names an optional weight column.

Indicator columns are named by their label; a ``prefix`` is stripped, so
``tasks_pred_prefix="pred_"`` maps column ``pred_ski`` to label ``ski``. The
predicted role's labels must be the ground-truth role's labels (in any order);
they are put in the ground-truth order.

Two role specs are read while counting, without a pass in memory first:

* :class:`ScoreColumns`: a predicted role's indicator columns hold scores (any
  finite numbers: probabilities or logits), binarised by ``score > threshold`` (strict, the rule of
  :func:`biasamp.calibrate_thresholds` and :func:`biasamp.threshold_sweep`) with
  one threshold or one per label;
* :class:`IntersectedColumns`: several label columns whose combination is the
  role's label, the labels :func:`biasamp.intersect` makes
  (``"White x Male"``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import KW_ONLY, dataclass, field
from typing import Any

from biasamp.inputs._intersect import DEFAULT_SEP, ERR_SEP
from biasamp.inputs._roles import GROUP_ROLES, TASK_ROLES

__all__ = ["ColumnRoles", "IntersectedColumns", "RoleColumns", "ROLES", "ScoreColumns"]

ROLES = ("groups", "tasks", "groups_pred", "tasks_pred")

ERR_ROLE_SPEC = (
    "{role}: expected a column name (label column), a list of indicator column names, "
    "or a dict of indicator column -> label name; got {type_name}."
)
ERR_WEIGHT_COLUMN = "sample_weight: expected a column name (str), got {type_name}."
ERR_ROLE_AND_PREFIX = "{role}: give either {role} or {role}_prefix, not both."
ERR_PREFIX_NONE = "{role}_prefix={prefix!r} matches no column of the input (columns: {examples})."
ERR_MISSING_COLUMNS = "{role}: column(s) not in the input: {missing} (it has {examples})."
ERR_NO_ROLES_GIVEN = (
    "Name at least one group role (groups or groups_pred) and one task role (tasks or tasks_pred)."
)
ERR_ROLE_NAMES_DIFFER = (
    "{role}: its labels differ from {other}'s; missing {missing}, unexpected {unexpected}. "
    "Label sets must line up across roles."
)
ERR_DUPLICATE_COLUMN = "Column {column!r} is given to more than one role ({roles})."
ERR_SCORES_ROLE = (
    "{role}: ScoreColumns are predictions to threshold; give them as groups_pred or tasks_pred."
)
ERR_THRESHOLD_VALUE = "{role}: the threshold of label {label!r} is {value!r}, not a finite number."
ERR_THRESHOLD_LABELS = (
    "{role}: the thresholds must name every label once; missing {missing}, unexpected {unexpected}."
)
ERR_SCORE_COLUMNS = "{role}: ScoreColumns needs columns or prefix (one of them), got {got}."
ERR_EXCLUSIVE = (
    "{role}: exclusive=True is one decision among group score columns: give it as groups_pred "
    "with two or more columns."
)
ERR_POSITIVE_LABEL = "{role}: positive={got!r} is not one of the labels {names}."
ERR_INTERSECTED_COLUMNS = (
    "{role}: IntersectedColumns needs at least two distinct label column names, got {got!r}."
)
ERR_INTERSECTED_PREFIX = "{role}_prefix selects indicator columns; IntersectedColumns needs {role}."


def _short(values: Sequence[Any], limit: int = 5) -> str:
    values = list(values)
    shown = ", ".join(repr(v) for v in values[:limit])
    return shown + (f", ... ({len(values)} in all)" if len(values) > limit else "")


@dataclass(frozen=True)
class ScoreColumns:
    """Prediction score columns, binarised while counting: ``score > threshold`` is 1.

    A role spec for ``groups_pred`` or ``tasks_pred`` (of :class:`ColumnRoles`,
    :func:`biasamp.counts_from_files` and the other file and SQL engines).
    Scores may be any finite number (probabilities, or logits with a threshold
    on their scale), as the in-memory path and :func:`biasamp.calibrate_thresholds`
    take them; a missing, NaN or infinite score, or one that is not a number, is
    refused naming the file, the column and the data row. (Soft predictions,
    ``soft=True``, are probabilities and stay in [0, 1].)

    Parameters
    ----------
    columns : list of str or dict, optional
        The score columns, one per label: names (the label names) or a dict of
        column -> label name, as for indicator columns.
    threshold : float or dict, default 0.5
        One finite threshold for every label, or a dict label name ->
        threshold naming every label (calibrated thresholds, for example from
        :func:`biasamp.calibrate_thresholds`).
    prefix : str, optional
        Select the columns by prefix instead (stripped from the label names).
    exclusive : bool, default False
        ``groups_pred`` only: the columns score one exclusive decision (every row
        in exactly one group). With two groups a row is in the ``positive`` group
        when its score is above its threshold, else in the other (the other score
        is not read); with more, in the group of the largest ``score - threshold``
        (the first on ties).
    positive : label, optional
        The positive group of a two-group exclusive decision (default: the second
        label in sorted order, as in scikit-learn).

    Examples
    --------
    >>> from biasamp import ColumnRoles, ScoreColumns
    >>> roles = ColumnRoles.resolve(
    ...     ["g", "ski", "cook", "p_ski", "p_cook"], groups="g", tasks=["ski", "cook"],
    ...     tasks_pred=ScoreColumns(prefix="p_", threshold={"ski": 0.3, "cook": 0.6}))
    >>> roles.tasks_pred.indicator_columns, roles.tasks_pred.thresholds
    (('p_ski', 'p_cook'), (0.3, 0.6))
    """

    columns: Sequence[str] | Mapping[str, Any] | None = None
    _: KW_ONLY
    threshold: float | Mapping[Any, float] = 0.5
    prefix: str | None = None
    exclusive: bool = False
    positive: Any = None


@dataclass(frozen=True)
class IntersectedColumns:
    """Several label columns whose combination is one label: their intersection.

    A role spec (usually ``groups``): a row's label is its values joined by
    ``sep``, the label :func:`biasamp.intersect` gives the row
    (``"White x Male"``); the labels are sorted and only the combinations that
    occur are labels, as ``CountTable.from_arrays`` reads an
    :func:`biasamp.intersect` column. A missing value is refused.

    Parameters
    ----------
    columns : list of str
        Two or more label columns, in the order of the label's parts.
    sep : str, default " x "
        Joins the values into the label.

    Examples
    --------
    >>> from biasamp import ColumnRoles, IntersectedColumns
    >>> roles = ColumnRoles.resolve(["race", "sex", "ski"], groups=IntersectedColumns(["race", "sex"]),
    ...                             tasks=["ski"])
    >>> roles.groups.intersected_columns, roles.groups.columns
    (('race', 'sex'), ('race', 'sex'))
    """

    columns: Sequence[str]
    _: KW_ONLY
    sep: str = DEFAULT_SEP


@dataclass(frozen=True)
class RoleColumns:
    """The columns of one role: a label column, indicator columns with their label names,
    score columns with their thresholds (``thresholds``, one per indicator column), or
    label columns whose combination is the label (``intersected_columns``)."""

    role: str
    label_column: str | None = None
    indicator_columns: tuple[str, ...] = ()
    indicator_names: tuple[Any, ...] = ()
    thresholds: tuple[float, ...] | None = None
    intersected_columns: tuple[str, ...] = ()
    sep: str = field(default=DEFAULT_SEP)
    #: score columns of one exclusive decision, and its positive label with two columns
    exclusive: bool = False
    positive: Any = None

    @property
    def is_label(self) -> bool:
        """One label per row: a label column or an intersection."""
        return self.label_column is not None or bool(self.intersected_columns)

    @property
    def is_scores(self) -> bool:
        """Score columns binarised at ``thresholds``."""
        return self.thresholds is not None

    @property
    def columns(self) -> tuple[str, ...]:
        if self.label_column is not None:
            return (self.label_column,)
        return self.intersected_columns or self.indicator_columns


def _thresholds(role: str, names: Sequence[Any], threshold: Any) -> tuple[float, ...]:
    """One checked threshold per label name."""
    if isinstance(threshold, Mapping):
        given = list(threshold)
        missing = [n for n in names if n not in threshold]
        unexpected = [n for n in given if n not in set(names)]
        if missing or unexpected:
            raise ValueError(
                ERR_THRESHOLD_LABELS.format(
                    role=role,
                    missing=_short(missing) or "none",
                    unexpected=_short(unexpected) or "none",
                )
            )
        values = [threshold[n] for n in names]
    else:
        values = [threshold] * len(names)
    out = []
    for name, value in zip(names, values, strict=True):
        number = (
            float(value)
            if isinstance(value, (int, float)) and not isinstance(value, bool)
            else math.nan
        )
        if not math.isfinite(number):
            raise ValueError(ERR_THRESHOLD_VALUE.format(role=role, label=name, value=value))
        out.append(number)
    return tuple(out)


def role_columns(role: str, spec: Any) -> RoleColumns:
    """The :class:`RoleColumns` of one role spec (a prefix already expanded)."""
    if isinstance(spec, RoleColumns):
        return spec
    if isinstance(spec, ScoreColumns):
        if role not in ("groups_pred", "tasks_pred"):
            raise ValueError(ERR_SCORES_ROLE.format(role=role))
        if spec.columns is None or spec.prefix is not None:
            raise ValueError(ERR_SCORE_COLUMNS.format(role=role, got=spec))
        plain = role_columns(role, spec.columns)
        if plain.is_label:
            raise TypeError(ERR_ROLE_SPEC.format(role=role, type_name="str in ScoreColumns"))
        thresholds = _thresholds(role, plain.indicator_names, spec.threshold)
        names = plain.indicator_names
        positive = None
        if spec.exclusive:
            if role != "groups_pred" or len(names) < 2:
                raise ValueError(ERR_EXCLUSIVE.format(role=role))
            if len(names) == 2:
                positive = spec.positive if spec.positive is not None else sorted(names)[1]
                if positive not in names:
                    raise ValueError(
                        ERR_POSITIVE_LABEL.format(role=role, got=spec.positive, names=list(names))
                    )
        return RoleColumns(
            role,
            indicator_columns=plain.indicator_columns,
            indicator_names=names,
            thresholds=thresholds,
            exclusive=spec.exclusive,
            positive=positive,
        )
    if isinstance(spec, IntersectedColumns):
        columns = (
            tuple(spec.columns)
            if isinstance(spec.columns, Sequence) and not isinstance(spec.columns, str)
            else ()
        )
        if (
            len(columns) < 2
            or len(set(columns)) != len(columns)
            or not all(isinstance(c, str) for c in columns)
        ):
            raise ValueError(ERR_INTERSECTED_COLUMNS.format(role=role, got=spec.columns))
        if not isinstance(spec.sep, str) or not spec.sep:
            raise ValueError(ERR_SEP.format(got=spec.sep))
        return RoleColumns(role, intersected_columns=columns, sep=spec.sep)
    if isinstance(spec, str):
        return RoleColumns(role, label_column=spec)
    if isinstance(spec, Mapping):
        return RoleColumns(
            role, indicator_columns=tuple(spec), indicator_names=tuple(spec.values())
        )
    if isinstance(spec, Sequence) and all(isinstance(c, str) for c in spec) and len(spec) > 0:
        return RoleColumns(role, indicator_columns=tuple(spec), indicator_names=tuple(spec))
    raise TypeError(ERR_ROLE_SPEC.format(role=role, type_name=type(spec).__name__))


def _expand_prefix(role: str, prefix: str, available: Sequence[str] | None) -> dict[str, str]:
    matched = [c for c in (available or []) if c.startswith(prefix)]
    if not matched:
        raise ValueError(
            ERR_PREFIX_NONE.format(role=role, prefix=prefix, examples=_short(available or []))
        )
    return {c: c[len(prefix) :] for c in matched}


def aligned_prediction(truth: RoleColumns, pred: RoleColumns) -> RoleColumns:
    """``pred`` with its indicator columns (and thresholds) in ``truth``'s label order.

    Both must be indicator roles with the same label names (in any order), else
    ``ValueError`` (:data:`ERR_ROLE_NAMES_DIFFER`).
    """
    a, b = truth.indicator_names, pred.indicator_names
    if set(a) != set(b) or len(a) != len(b):
        raise ValueError(
            ERR_ROLE_NAMES_DIFFER.format(
                role=pred.role,
                other=truth.role,
                missing=_short([x for x in a if x not in set(b)]) or "none",
                unexpected=_short([x for x in b if x not in set(a)]) or "none",
            )
        )
    position = {name: i for i, name in enumerate(b)}
    order = [position[name] for name in a]
    return RoleColumns(
        pred.role,
        indicator_columns=tuple(pred.indicator_columns[i] for i in order),
        indicator_names=a,
        thresholds=None if pred.thresholds is None else tuple(pred.thresholds[i] for i in order),
        exclusive=pred.exclusive,
        positive=pred.positive,
    )


@dataclass(frozen=True)
class ColumnRoles:
    """Column roles of a table of labels.

    Parameters
    ----------
    groups, tasks, groups_pred, tasks_pred : str, list of str, dict, ScoreColumns or IntersectedColumns, optional
        A label column (``"gender"``), indicator columns (``["ski", "cook"]``),
        indicator columns mapped to label names (``{"pred_ski": "ski"}``),
        prediction score columns with thresholds (:class:`ScoreColumns`), or
        label columns intersected into one label (:class:`IntersectedColumns`).
    sample_weight : str, optional
        A column of non-negative row weights.

    Use :meth:`resolve` to expand ``*_prefix`` selections against the input's
    columns and to put predicted indicator columns in the ground-truth order.

    Examples
    --------
    >>> from biasamp import ColumnRoles
    >>> roles = ColumnRoles.resolve(["gender", "t_ski", "t_cook", "p_cook", "p_ski"],
    ...                             groups="gender", tasks_prefix="t_", tasks_pred_prefix="p_")
    >>> roles.tasks_pred.indicator_columns, roles.tasks_pred.indicator_names
    (('p_ski', 'p_cook'), ('ski', 'cook'))
    """

    groups: RoleColumns | None = None
    tasks: RoleColumns | None = None
    groups_pred: RoleColumns | None = None
    tasks_pred: RoleColumns | None = None
    sample_weight: str | None = None

    def __post_init__(self) -> None:
        """Specs given as the docstring shows (``ColumnRoles(groups="gender", tasks=[...])``)
        are read as :meth:`resolve` reads them, so the fields are always
        :class:`RoleColumns`."""
        given = {role: getattr(self, role) for role in ROLES}
        if self.sample_weight is not None and not isinstance(self.sample_weight, str):
            raise TypeError(ERR_WEIGHT_COLUMN.format(type_name=type(self.sample_weight).__name__))
        if all(spec is None or isinstance(spec, RoleColumns) for spec in given.values()):
            return
        resolved = type(self).resolve(**given, sample_weight=self.sample_weight)
        for role in ROLES:
            object.__setattr__(self, role, getattr(resolved, role))

    @classmethod
    def resolve(
        cls,
        columns: Sequence[str] | None = None,
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
    ) -> ColumnRoles:
        """Build the roles, expanding prefixes against ``columns`` (the input's column names)."""
        specs = {
            "groups": (groups, groups_prefix),
            "tasks": (tasks, tasks_prefix),
            "groups_pred": (groups_pred, groups_pred_prefix),
            "tasks_pred": (tasks_pred, tasks_pred_prefix),
        }
        available = list(columns) if columns is not None else None
        resolved: dict[str, RoleColumns] = {}
        for role, (spec, prefix) in specs.items():
            if spec is not None and prefix is not None:
                raise ValueError(ERR_ROLE_AND_PREFIX.format(role=role))
            if isinstance(spec, IntersectedColumns) and prefix is not None:
                raise ValueError(ERR_INTERSECTED_PREFIX.format(role=role))
            if prefix is not None:
                spec = _expand_prefix(role, prefix, available)
            if isinstance(spec, ScoreColumns) and spec.prefix is not None and spec.columns is None:
                spec = ScoreColumns(
                    _expand_prefix(role, spec.prefix, available),
                    threshold=spec.threshold,
                    exclusive=spec.exclusive,
                    positive=spec.positive,
                )
            if spec is not None:
                resolved[role] = role_columns(role, spec)
        if not any(r in resolved for r in GROUP_ROLES) or not any(
            r in resolved for r in TASK_ROLES
        ):
            raise ValueError(ERR_NO_ROLES_GIVEN)
        for truth, pred in (("groups", "groups_pred"), ("tasks", "tasks_pred")):
            a, b = resolved.get(truth), resolved.get(pred)
            if a is None or b is None or a.is_label or b.is_label:
                continue
            resolved[pred] = aligned_prediction(a, b)
        roles = cls(**resolved, sample_weight=sample_weight)
        seen: dict[str, list[str]] = {}
        for rc in roles.present().values():
            for column in rc.columns:
                seen.setdefault(column, []).append(rc.role)
        if sample_weight is not None:
            seen.setdefault(sample_weight, []).append("sample_weight")
        for column, owners in seen.items():
            if len(owners) > 1:
                raise ValueError(
                    ERR_DUPLICATE_COLUMN.format(column=column, roles=", ".join(owners))
                )
        if available is not None:
            missing = [c for c in roles.columns() if c not in set(available)]
            if missing:
                raise ValueError(
                    ERR_MISSING_COLUMNS.format(
                        role=", ".join(sorted({r for c in missing for r in seen[c]})),
                        missing=_short(missing),
                        examples=_short(available),
                    )
                )
        return roles

    def present(self) -> dict[str, RoleColumns]:
        """The given roles, in the order groups, tasks, groups_pred, tasks_pred."""
        return {r: getattr(self, r) for r in ROLES if getattr(self, r) is not None}

    def columns(self) -> list[str]:
        """Every input column the roles read (weights last)."""
        out = [c for rc in self.present().values() for c in rc.columns]
        if self.sample_weight is not None:
            out.append(self.sample_weight)
        return out

    def fixed_names(self, kind: str) -> tuple[Any, ...] | None:
        """The label names that indicator columns fix for ``kind`` ("group" or "task"), if any."""
        for role in GROUP_ROLES if kind == "group" else TASK_ROLES:
            rc = getattr(self, role)
            if rc is not None:
                return None if rc.is_label else rc.indicator_names
        return None

    def label_roles(self, kind: str) -> list[RoleColumns]:
        """Roles of ``kind`` given as a label column (truth first)."""
        return [
            getattr(self, r)
            for r in (GROUP_ROLES if kind == "group" else TASK_ROLES)
            if getattr(self, r) is not None and getattr(self, r).is_label
        ]

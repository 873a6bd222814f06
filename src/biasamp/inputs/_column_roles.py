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
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from biasamp.inputs._roles import GROUP_ROLES, TASK_ROLES

__all__ = ["ColumnRoles", "RoleColumns", "ROLES"]

ROLES = ("groups", "tasks", "groups_pred", "tasks_pred")

ERR_ROLE_SPEC = (
    "{role}: expected a column name (label column), a list of indicator column names, "
    "or a dict of indicator column -> label name; got {type_name}."
)
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


def _short(values: Sequence[Any], limit: int = 5) -> str:
    values = list(values)
    shown = ", ".join(repr(v) for v in values[:limit])
    return shown + (f", ... ({len(values)} in all)" if len(values) > limit else "")


@dataclass(frozen=True)
class RoleColumns:
    """The columns of one role: a label column, or indicator columns with their label names."""

    role: str
    label_column: str | None = None
    indicator_columns: tuple[str, ...] = ()
    indicator_names: tuple[Any, ...] = ()

    @property
    def is_label(self) -> bool:
        return self.label_column is not None

    @property
    def columns(self) -> tuple[str, ...]:
        return (self.label_column,) if self.label_column is not None else self.indicator_columns


def _role_columns(role: str, spec: Any) -> RoleColumns:
    if isinstance(spec, str):
        return RoleColumns(role, label_column=spec)
    if isinstance(spec, Mapping):
        return RoleColumns(
            role, indicator_columns=tuple(spec), indicator_names=tuple(spec.values())
        )
    if isinstance(spec, Sequence) and all(isinstance(c, str) for c in spec) and len(spec) > 0:
        return RoleColumns(role, indicator_columns=tuple(spec), indicator_names=tuple(spec))
    raise TypeError(ERR_ROLE_SPEC.format(role=role, type_name=type(spec).__name__))


@dataclass(frozen=True)
class ColumnRoles:
    """Column roles of a table of labels.

    Parameters
    ----------
    groups, tasks, groups_pred, tasks_pred : str, list of str, or dict, optional
        A label column (``"gender"``), indicator columns (``["ski", "cook"]``),
        or indicator columns mapped to label names (``{"pred_ski": "ski"}``).
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
            if prefix is not None:
                matched = [c for c in (available or []) if c.startswith(prefix)]
                if not matched:
                    raise ValueError(
                        ERR_PREFIX_NONE.format(
                            role=role, prefix=prefix, examples=_short(available or [])
                        )
                    )
                spec = {c: c[len(prefix) :] for c in matched}
            if spec is not None:
                resolved[role] = _role_columns(role, spec)
        if not any(r in resolved for r in GROUP_ROLES) or not any(
            r in resolved for r in TASK_ROLES
        ):
            raise ValueError(ERR_NO_ROLES_GIVEN)
        for truth, pred in (("groups", "groups_pred"), ("tasks", "tasks_pred")):
            a, b = resolved.get(truth), resolved.get(pred)
            if a is None or b is None or a.is_label or b.is_label:
                continue
            if set(a.indicator_names) != set(b.indicator_names) or len(a.indicator_names) != len(
                b.indicator_names
            ):
                raise ValueError(
                    ERR_ROLE_NAMES_DIFFER.format(
                        role=pred,
                        other=truth,
                        missing=_short(
                            [x for x in a.indicator_names if x not in set(b.indicator_names)]
                        )
                        or "none",
                        unexpected=_short(
                            [x for x in b.indicator_names if x not in set(a.indicator_names)]
                        )
                        or "none",
                    )
                )
            position = {name: i for i, name in enumerate(b.indicator_names)}
            order = [position[name] for name in a.indicator_names]
            resolved[pred] = RoleColumns(
                pred,
                indicator_columns=tuple(b.indicator_columns[i] for i in order),
                indicator_names=a.indicator_names,
            )
        roles = cls(**resolved, sample_weight=sample_weight)
        seen: dict[str, list[str]] = {}
        for role_columns in roles.present().values():
            for column in role_columns.columns:
                seen.setdefault(column, []).append(role_columns.role)
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

"""The result of :func:`biasamp.rba`: calibrated predictions, the run's history,
and performance before and after."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from biasamp.results._base import PairwiseResult, _json_safe, frame_records
from biasamp.results._persist import SavableResult, register_result

__all__ = ["RBAResult", "performance"]


def _shapes(result: RBAResult) -> dict[str, Any]:
    return {
        "instances": int(len(result.groups_pred)),
        "groups": int(result.mals_after.by_pair["group"].nunique()),
        "tasks": int(result.mals_after.by_pair["task"].nunique()),
        "n_iter": result.n_iter,
    }


@register_result("rba", shapes=lambda r: _shapes(r))
@dataclass(repr=False)
class RBAResult(SavableResult):
    """Calibrated predictions of :func:`rba`, with the history of the iterations.

    Attributes
    ----------
    groups_pred, tasks_pred
        The calibrated predictions: groups as a 1-D array of group names; tasks
        as a 1-D array of task names (``"single"``, or ``"candidates"`` with one
        task per candidate) or a 0/1 DataFrame with task names as columns.
        Ready for :func:`biasamp.mals`, :func:`biasamp.directional`, ...
    groups_pred_before, tasks_pred_before
        The uncalibrated predictions (the first inference, all multipliers 0).
    history : DataFrame
        One row per inference: ``iteration``, ``violated_constraints`` (rows of
        ``A c > 0``), ``violated_tasks`` (tasks with a violated constraint),
        ``violations`` and ``mals`` (BiasAmp_MALS of that iteration's output, via
        :func:`biasamp.mals_from_counts`), ``multiplier_norm`` (L2 norm of the
        multipliers used for the inference), ``lagrangian`` (``L(lambda, y)`` of
        eq. 4 at the output; for ``penalty="lagrangian"`` this is the dual
        function, an upper bound on the constrained optimum), ``primal`` (the
        original score ``sum_i f(y^i)`` of the output).
    multipliers : DataFrame
        Final multipliers, one row per constrained task and group, columns
        ``lambda_lower`` and ``lambda_upper``.
    mals_before, mals_after : PairwiseResult
    performance_before, performance_after : dict or None
        Performance against the evaluation ground truth (``groups`` / ``tasks``),
        when it was given.
    converged : bool
        All constraints satisfied by the returned output.
    n_iter : int
        Number of inferences run.
    selected_iteration : int
        The iteration (1-based row of ``history``) whose output is returned:
        the best by ``select="best"``'s rule, or the last one.
    params : dict
        Settings, the step schedule and the wall time (``seconds``).
    """

    groups_pred: np.ndarray
    tasks_pred: np.ndarray | pd.DataFrame
    groups_pred_before: np.ndarray
    tasks_pred_before: np.ndarray | pd.DataFrame
    history: pd.DataFrame
    multipliers: pd.DataFrame
    mals_before: PairwiseResult
    mals_after: PairwiseResult
    performance_before: dict[str, float] | None
    performance_after: dict[str, float] | None
    converged: bool
    n_iter: int
    params: dict[str, Any] = field(default_factory=dict)
    selected_iteration: int = 0

    def table(self) -> pd.DataFrame:
        """The paper's table 2 rows: Viol., Amp. bias (MALS) and performance, before and after."""
        rows = {}
        for label, mals_res, perf in (
            ("before", self.mals_before, self.performance_before),
            ("after", self.mals_after, self.performance_after),
        ):
            row: dict[str, Any] = {
                "Viol.": int(mals_res.extras["violations"]),
                "Amp. bias (MALS)": float(mals_res.value),
            }
            if perf:
                row.update(perf)
            rows[label] = row
        return pd.DataFrame.from_dict(rows, orient="index")

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dictionary: settings, status, the table, history and multipliers
        (the predictions are left out; ``save()`` keeps them)."""
        table = self.table().reset_index(names="stage")
        return _json_safe(
            {
                "params": self.params,
                "converged": self.converged,
                "n_iter": self.n_iter,
                "selected_iteration": self.selected_iteration,
                "table": frame_records(table),
                "history": frame_records(self.history),
                "multipliers": frame_records(self.multipliers),
                "mals_before": self.mals_before.to_dict(pairs=False),
                "mals_after": self.mals_after.to_dict(pairs=False),
            }
        )

    def plot(self, kind: str = "table", *, ax: Any = None) -> Any:
        """Plot the result with matplotlib (optional dependency).

        Parameters
        ----------
        kind : {"table", "history", "bias"}, default "table"
            ``"table"``: the paper's table 2 before and after, one panel per
            column. ``"history"``: violated constraints and BiasAmp_MALS per
            iteration with the returned iteration marked. ``"bias"``: training
            against predicted bias per task before and after (figure 3).
        ax : matplotlib Axes or sequence of Axes, optional
            Where to draw: a new constrained-layout figure by default; one Axes
            (the panels are inset in it) or one Axes per panel.

        Returns
        -------
        matplotlib Axes, or a list of them for the multi-panel kinds
        """
        from biasamp.results._plotting_mitigation import plot_rba

        return plot_rba(self, kind=kind, ax=ax)

    def __str__(self) -> str:
        status = "converged" if self.converged else "constraints still violated"
        head = (
            f"RBA ({self.params.get('structure')}, penalty={self.params.get('penalty')}, "
            f"margin={self.params.get('margin')}, eta={self.params.get('eta')}, "
            f"schedule={self.params.get('schedule')}): {self.n_iter} iterations, "
            f"returned iteration {self.selected_iteration} ({self.params.get('select')}), "
            f"{status}"
        )
        return head + "\n" + self.table().to_string(float_format=lambda v: f"{v:.4f}")

    __repr__ = __str__


# ------------------------------------------------------------------ performance
def _macro_f1(truth: np.ndarray, pred: np.ndarray) -> float:
    """Macro-F1 over the tasks that occur in the truth or the predictions."""
    tp = (truth * pred).sum(axis=0)
    fp = ((1 - truth) * pred).sum(axis=0)
    fn = (truth * (1 - pred)).sum(axis=0)
    denom = 2 * tp + fp + fn
    used = denom > 0
    if not used.any():
        return 0.0
    return float((2 * tp[used] / denom[used]).mean())


def performance(
    structure_multi: bool,
    g: np.ndarray,
    tasks: np.ndarray,
    groups_true: np.ndarray | None,
    tasks_true: np.ndarray | None,
) -> dict[str, float] | None:
    if groups_true is None and tasks_true is None:
        return None
    out: dict[str, float] = {}
    if tasks_true is not None:
        if structure_multi:
            out["task macro-F1"] = _macro_f1(tasks_true, tasks)
        else:
            out["task accuracy"] = float((tasks_true[np.arange(len(g)), tasks] == 1).mean())
    if groups_true is not None:
        out["group accuracy"] = float((groups_true[np.arange(len(g)), g] == 1).mean())
    return out

"""The roles a label array plays: ground truth or prediction, of groups or of tasks."""

from __future__ import annotations

__all__ = ["GROUP_ROLES", "ROLES", "TASK_ROLES"]

GROUP_ROLES = ("groups", "groups_pred")
TASK_ROLES = ("tasks", "tasks_pred")
ROLES = GROUP_ROLES + TASK_ROLES

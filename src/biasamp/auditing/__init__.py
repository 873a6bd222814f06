"""The file audit: files and a layout in, every metric out (what ``biasamp measure`` runs).

A layout says which columns hold what (:class:`Layout`); the audit reads the
files through the engines' validating reader, counts them chunk by chunk when
the layout allows it (``_streaming.py``: ``plan_streaming``, ``load_streamed``)
or reads the rows the metric needs (``_inputs.py``: ``load_audit``), and
computes each metric of the registry (``_metric_specs.py``).
"""

from biasamp.auditing._result import AuditResult
from biasamp.auditing._run import audit

__all__ = ["AuditResult", "audit"]

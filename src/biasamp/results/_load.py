"""Loading results: :func:`load_result` for saved results and the CLI's ``--json`` files."""

from __future__ import annotations

import json
import os
from typing import Any

from biasamp.inputs._paths import checked_path
from biasamp.registry import find_card
from biasamp.results._cli_document import (
    CAPTIONS_SCHEMA,
    results_from_captions_document,
    results_from_cli_document,
)
from biasamp.results._json_schema import first_schema_error, load_schema
from biasamp.results._persist import (
    CLI_SCHEMA,
    SAVED_SCHEMA,
    InvalidDocument,
    check_version,
    registered_results,
    result_from_document,
)

__all__ = ["load_result"]

ERR_LOAD_JSON = "{file}: not a JSON file ({detail})."
ERR_LOAD_SCHEMA = (
    "{file}: not a saved biasamp result (schema {got!r}; expected {saved!r} from "
    "result.save(), {cli!r} from the command line's --json or {captions!r} from "
    "'biasamp captions --json')."
)
ERR_LOAD_METRIC = "metric: the file holds the metrics {known}, not {got!r}."
ERR_LOAD_CONSTANT = "{constant} is not standard JSON"
ERR_LOAD_NESTING = "nested too deeply to read"
#: The schema files of the two documents load_result reads.
SAVED_SCHEMA_FILE = "saved-result-v2.json"
#: Saved results of earlier releases (no envelope: ``metrics``, ``settings``).
SAVED_SCHEMA_V1_FILE = "saved-result-v1.json"
CLI_SCHEMA_FILE = "result-v1.json"
#: The command line's JSON of ``biasamp.audit`` / ``biasamp measure``: an ``AuditResult``
#: (version 3 today; version 2, with ``seed`` and the family under ``metric``, is read too).
CLI_SCHEMA_AUDIT_FILES = {2: "result-v2.json", 3: "result-v3.json"}
CLI_SCHEMA_VERSION = 3


def _audit_result(document: dict[str, Any], file: str, *, metric: str | None) -> Any:
    """The ``AuditResult`` of a version 2 or 3 document (the audit's type is looked up in
    the registry: it lives above this room), or the one result ``metric`` names."""
    schema_file = CLI_SCHEMA_AUDIT_FILES[document["schema_version"]]
    found = first_schema_error(document, load_schema(schema_file))
    if found is not None:
        raise InvalidDocument(file, *found)
    audit_type: Any = registered_results()["audit"]
    audit = audit_type.from_document(document, file=file)
    if metric is None:
        return audit
    try:
        return audit[metric]
    except KeyError:
        raise ValueError(ERR_LOAD_METRIC.format(known=sorted(audit), got=metric)) from None


def _refuse_constant(constant: str) -> Any:
    raise ValueError(ERR_LOAD_CONSTANT.format(constant=constant))


def _read_json(path: str | os.PathLike[str], file: str) -> Any:
    try:
        with open(path, "rb") as handle:
            data = handle.read()
        return json.loads(data.decode("utf-8"), parse_constant=_refuse_constant)
    except (ValueError, UnicodeDecodeError) as exc:  # JSONDecodeError is a ValueError
        raise ValueError(ERR_LOAD_JSON.format(file=file, detail=exc)) from None
    except RecursionError:
        raise ValueError(ERR_LOAD_JSON.format(file=file, detail=ERR_LOAD_NESTING)) from None


def load_result(path: str | os.PathLike[str], *, metric: str | None = None) -> Any:
    """Load a result saved with ``result.save(path)``, or the metrics of a CLI ``--json`` file.

    Parameters
    ----------
    path : str or path-like
        A file written by ``result.save`` (any result type, including the table of
        ``biasamp compare --json`` and ``AuditResult.save``), by ``biasamp measure
        --json`` / ``biasamp report --json``, or by ``biasamp captions --json``.
    metric : str, optional
        For a command-line file: return only this metric (its key, for example
        ``"mals"`` or ``"directional-a2t"``).

    Returns
    -------
    result
        For a saved result, an object of the saved type that compares equal to
        the one saved (same ``to_dict()``, value, tables, intervals and
        replicates). For a command-line file, a dict ``{metric key: result}``
        (:class:`PairwiseResult` or :class:`MultiAttributeResult`, without
        replicates, which the CLI does not write) with the threshold sweeps, when
        the file has them, under ``"sweep:<metric key>"`` as
        :class:`ThresholdSweep`; or the one result ``metric`` names. For a
        ``biasamp captions --json`` file, a dict ``{model: CaptionBiasResult}``
        equal to the results the command computed (``biasamp.compare`` takes it
        as it is).

    Raises
    ------
    ValueError
        When the file is not JSON, not a biasamp result, written by a newer
        schema version, names an unknown type, or does not follow its schema
        (``biasamp/schema/saved-result-v2.json`` and the field types of the
        result, or ``biasamp/schema/result-v3.json``; files of earlier versions
        against theirs, ``saved-result-v1.json``, ``result-v1.json``,
        ``result-v2.json``): the message names the
        file and the JSON path of the first problem, for example
        ``run.json: $.result.value: expected float, got str 'abc'``.

    Examples
    --------
    >>> import os, tempfile
    >>> import biasamp
    >>> summary = biasamp.across_runs([0.1, 0.12, 0.08])
    >>> path = summary.save(os.path.join(tempfile.mkdtemp(), "runs.json"))
    >>> biasamp.load_result(path).to_dict() == summary.to_dict()
    True
    """
    file = checked_path(path)
    document = _read_json(file, file)
    schema = document.get("schema") if isinstance(document, dict) else None
    if schema == CLI_SCHEMA:
        check_version(document, CLI_SCHEMA_VERSION, file)
        if document["schema_version"] in CLI_SCHEMA_AUDIT_FILES:
            return _audit_result(document, file, metric=metric)
        found = first_schema_error(document, load_schema(CLI_SCHEMA_FILE))
        if found is not None:
            raise InvalidDocument(file, *found)
        results = results_from_cli_document(document, registered_results(), file=file)
        if metric is None:
            return results
        card = find_card(metric)  # any spelling the registry accepts
        key = metric if metric in results or card is None else card.name
        if key not in results:
            raise ValueError(ERR_LOAD_METRIC.format(known=sorted(results), got=metric))
        return results[key]
    if schema == CAPTIONS_SCHEMA:
        return results_from_captions_document(document, file=file)
    if schema != SAVED_SCHEMA:
        raise ValueError(
            ERR_LOAD_SCHEMA.format(
                file=file, got=schema, saved=SAVED_SCHEMA, cli=CLI_SCHEMA, captions=CAPTIONS_SCHEMA
            )
        )
    version = document.get("schema_version") if isinstance(document, dict) else None
    schema_file = SAVED_SCHEMA_V1_FILE if version == 1 else SAVED_SCHEMA_FILE
    return result_from_document(document, load_schema(schema_file), file)

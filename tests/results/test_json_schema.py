"""The schema check of ``load_result`` agrees with the ``jsonschema`` package.

``biasamp.results._json_schema.first_schema_error`` implements the part of JSON
Schema that biasamp's schemas use, so loading needs no dependency; here it is
compared with ``jsonschema`` on the command line's documents (versions 3, 2 and 1), on the saved-result
envelopes (versions 2 and 1), and on hypothesis edits of both.
"""

from __future__ import annotations

import copy

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from biasamp.results._json_schema import first_schema_error, load_schema

from .test_load_fuzz import _edit, documents

jsonschema = pytest.importorskip("jsonschema")

SCHEMAS = {
    "cli": "result-v3.json",
    "cli_v2": "result-v2.json",
    "cli_v1": "result-v1.json",
    "pairwise": "saved-result-v2.json",
    "saved_v1": "saved-result-v1.json",
}


@pytest.mark.parametrize("kind", sorted(SCHEMAS))
def test_valid_documents_pass_both(kind):
    schema = load_schema(SCHEMAS[kind])
    jsonschema.Draft202012Validator.check_schema(schema)
    assert first_schema_error(documents()[kind], schema) is None
    jsonschema.validate(documents()[kind], schema, cls=jsonschema.Draft202012Validator)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(kind=st.sampled_from(sorted(SCHEMAS)), n_edits=st.integers(1, 3), data=st.data())
def test_edited_documents_get_the_same_verdict(kind, n_edits, data):
    schema = load_schema(SCHEMAS[kind])
    doc = copy.deepcopy(documents()[kind])
    for _ in range(n_edits):
        _edit(doc, data)
    ours = first_schema_error(doc, schema)
    theirs = jsonschema.Draft202012Validator(schema).is_valid(doc)
    assert (ours is None) == theirs, ours


def test_the_first_problem_is_named_by_its_json_path():
    schema = load_schema("result-v1.json")
    doc = copy.deepcopy(documents()["cli_v1"])
    doc["metrics"][1]["n_pairs"] = -3
    assert first_schema_error(doc, schema) == (
        "$.metrics[1].n_pairs",
        "expected at least 0, got -3",
    )
    doc["metrics"][1]["n_pairs"] = 3
    doc["inputs"][0]["sha256"] = "xyz"
    path, problem = first_schema_error(doc, schema)
    assert path == "$.inputs[0].sha256" and "does not match" in problem

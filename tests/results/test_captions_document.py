"""``load_result`` reads the ``biasamp captions --json`` document (schema ``biasamp-captions``)
back as ``{model: CaptionBiasResult}``, and names the file and JSON path of a bad one."""

from __future__ import annotations

import json

import pandas as pd
import pytest

import biasamp
from biasamp.results._cli_document import CAPTIONS_SCHEMA, ERR_CAPTIONS_RESULTS
from biasamp.results._persist import typed_result

CAPTIONS = ["a man riding skis", "a woman with a dog", "a man with a dog", "a woman on skis"] * 3
GROUPS = ["man", "woman", "woman", "woman"] * 3
TASKS = pd.DataFrame({"skis": [1, 0, 0, 1] * 3, "dog": [0, 1, 1, 0] * 3})


def _document(**results) -> dict:
    return {
        "schema": CAPTIONS_SCHEMA,
        "schema_version": 1,
        "results": {name: typed_result(r) for name, r in results.items()},
    }


def _write(tmp_path, document, name="captions.json"):
    path = tmp_path / name
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def test_each_model_comes_back_equal(tmp_path):
    result = biasamp.caption_bias_amplification(captions=CAPTIONS, groups=GROUPS, tasks=TASKS)
    loaded = biasamp.load_result(_write(tmp_path, _document(model=result)))
    assert list(loaded) == ["model"] and loaded["model"] == result
    assert loaded["model"]["MALS"].value == result["mals"].value


def test_bad_documents_name_the_file_and_path(tmp_path):
    result = biasamp.caption_bias_amplification(captions=CAPTIONS, groups=GROUPS, tasks=TASKS)
    old = _document(model=result)
    del old["schema_version"]  # written before load_result read captions documents
    path = _write(tmp_path, old, "old.json")
    with pytest.raises(ValueError) as info:
        biasamp.load_result(path)
    assert str(info.value) == f"{path}: $: {ERR_CAPTIONS_RESULTS}"
    wrong = _document(model=result)
    wrong["results"]["model"]["type"] = "pairwise"
    path = _write(tmp_path, wrong, "wrong.json")
    with pytest.raises(ValueError) as info:
        biasamp.load_result(path)
    assert str(info.value) == f"{path}: $.results['model']: expected a stored caption_bias result"
    edited = _document(model=result)
    edited["results"]["model"]["result"]["n"] = "many"
    path = _write(tmp_path, edited, "edited.json")
    with pytest.raises(ValueError) as info:
        biasamp.load_result(path)
    assert str(info.value).startswith(f"{path}: $.results['model'].result.n: expected")

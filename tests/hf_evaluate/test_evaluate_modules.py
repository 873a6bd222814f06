"""The shipped Hugging Face ``evaluate`` modules: loaded offline, values = biasamp's,
``mode="hub"`` = the hub module's definition (re-derived here from its documented
formula, as a brute force over pairs)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import biasamp
from biasamp.hf_evaluate import ERR_MODULE, evaluate_module_path
from biasamp.hf_evaluate._compute import (
    ERR_HUB_DIRECTION,
    ERR_INDICATOR_SHAPE,
    ERR_INDICATOR_TYPE,
    ERR_MODE,
    ERR_NOT_INDICATORS,
    ERR_NOT_PROBABILITIES,
    ERR_SOFT_HUB,
    ERR_TRAIN_PAIR,
    directional_outputs,
    mals_outputs,
    multi_attribute_outputs,
)
from biasamp.registry import metric_cards

RNG = np.random.default_rng(4)
N, A, T = 120, 3, 5
ATTRS = (RNG.random((N, A)) < 0.4).astype(int)
REFS = (RNG.random((N, T)) < np.linspace(0.2, 0.6, T)).astype(int)
PREDS = np.where(RNG.random((N, T)) < 0.25, 1 - REFS, REFS)
ATTR_PREDS = np.where(RNG.random((N, A)) < 0.2, 1 - ATTRS, ATTRS)
TRAIN_ATTRS = (RNG.random((80, A)) < 0.5).astype(int)  # a training split of another length
TRAIN_REFS = (RNG.random((80, T)) < 0.4).astype(int)
ATTRS[:5] = 0  # rows with neither label: the hub module counts them, biasamp's default not
REFS[:5] = 0


def hub_brute_force(pred, refs, attrs):
    """The hub module's definition, one pair at a time: y from the references with every
    row counted (exact integer comparison), delta over the rows of the attribute."""
    n = len(refs)
    out = np.full((attrs.shape[1], refs.shape[1]), np.nan)
    for a in range(attrs.shape[1]):
        rows = attrs[:, a] == 1
        for t in range(refs.shape[1]):
            both = int((rows & (refs[:, t] == 1)).sum())
            y = np.sign(n * both - int(rows.sum()) * int(refs[:, t].sum()))
            if rows.any():
                out[a, t] = y * (pred[rows, t].mean() - refs[rows, t].mean())
    return float(np.nanmean(out)), out


def test_hub_mode_is_the_hub_definition():
    out = directional_outputs(PREDS, REFS, ATTRS, mode="hub")
    value, matrix = hub_brute_force(PREDS, REFS, ATTRS)
    assert set(out) == {"bias_amplification", "disagg_bias_amplification"}
    assert out["bias_amplification"] == pytest.approx(value, abs=1e-12)
    np.testing.assert_allclose(out["disagg_bias_amplification"], matrix, atol=1e-12)
    # the default mode counts only rows with a group or a task for the sign
    default = directional_outputs(PREDS, REFS, ATTRS)
    want = biasamp.directional(direction="A->T", groups=ATTRS, tasks=REFS, tasks_pred=PREDS)
    assert default["directional-a2t"] == want.value and default["metric"] == "directional-a2t"
    # the key of earlier releases still reads the value, with a FutureWarning
    with pytest.warns(
        FutureWarning, match="'bias_amplification' is deprecated; use 'directional-a2t'"
    ):
        assert default["bias_amplification"] == want.value
    with pytest.raises(ValueError, match=re.escape(ERR_HUB_DIRECTION.format(got="T->A"))):
        directional_outputs(ATTR_PREDS, REFS, ATTRS, mode="hub", direction="T->A")
    with pytest.raises(ValueError, match=re.escape(ERR_MODE.format(got="paper"))):
        directional_outputs(PREDS, REFS, ATTRS, mode="paper")
    known = ["directional", "mals", "multi_attribute"]
    with pytest.raises(ValueError, match=re.escape(ERR_MODULE.format(known=known, got="x"))):
        evaluate_module_path("x")


SCRIPT = """
import json, sys
import numpy as np
import evaluate
import biasamp

data = json.loads(sys.stdin.read())
p, r, a, ap = (np.array(data[k]) for k in ("p", "r", "a", "ap"))
out = {}
directional = evaluate.load(biasamp.evaluate_module_path("directional"))
out["hub"] = directional.compute(predictions=p, references=r, attributes=a, mode="hub")
out["t2a"] = directional.compute(predictions=ap, references=r, attributes=a, direction="T->A",
                                 n_boot=20, random_state=0)
mals = evaluate.load(biasamp.evaluate_module_path("mals"))
out["mals"] = mals.compute(predictions=p, references=r, attributes=a, attribute_predictions=ap)
out["mals_train"] = mals.compute(predictions=p, references=r, attributes=a,
                                 attribute_predictions=ap, train_references=data["tr"],
                                 train_attributes=data["ta"])
multi = evaluate.load(biasamp.evaluate_module_path("multi_attribute"))
out["multi"] = multi.compute(predictions=p, references=r, attributes=a)
out["info"] = {
    name: {"description": m.description, "citation": m.citation, "urls": list(m.reference_urls)}
    for name, m in (("directional", directional), ("mals", mals), ("multi_attribute", multi))
}
print(json.dumps(out))
"""


def test_modules_load_offline_and_give_biasamp_values(tmp_path):
    pytest.importorskip("evaluate")
    env = {
        **os.environ,
        "HF_HUB_OFFLINE": "1",
        "HF_DATASETS_OFFLINE": "1",
        "HF_EVALUATE_OFFLINE": "1",
        "HF_HOME": str(tmp_path / "hf"),
        "HF_MODULES_CACHE": str(tmp_path / "modules"),
        "HF_DATASETS_CACHE": str(tmp_path / "datasets"),
        # no proxy that could reach the network: any request fails at once
        "HTTP_PROXY": "http://127.0.0.1:9",
        "HTTPS_PROXY": "http://127.0.0.1:9",
        "NO_PROXY": "",
    }
    data = {
        "p": PREDS,
        "r": REFS,
        "a": ATTRS,
        "ap": ATTR_PREDS,
        "tr": TRAIN_REFS,
        "ta": TRAIN_ATTRS,
    }
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(SCRIPT)],
        input=json.dumps({k: v.tolist() for k, v in data.items()}),
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    hub = directional_outputs(PREDS, REFS, ATTRS, mode="hub")
    assert out["hub"]["bias_amplification"] == hub["bias_amplification"]
    np.testing.assert_allclose(
        np.array(out["hub"]["disagg_bias_amplification"], dtype=float),
        np.array(hub["disagg_bias_amplification"], dtype=float),
    )
    t2a = biasamp.directional(
        direction="T->A",
        groups=ATTRS,
        tasks=REFS,
        groups_pred=ATTR_PREDS,
        n_boot=20,
        random_state=0,
    )
    assert out["t2a"]["directional-t2a"] == t2a.value
    assert (out["t2a"]["ci_low"], out["t2a"]["ci_high"]) == tuple(t2a.ci)
    assert out["mals"] == mals_outputs(PREDS, REFS, ATTRS, ATTR_PREDS)
    assert out["multi"] == multi_attribute_outputs(PREDS, REFS, ATTRS)
    # a training split of another length fixes MALS's training bias, as in biasamp.mals
    want = biasamp.mals(
        groups_train=TRAIN_ATTRS, tasks_train=TRAIN_REFS, groups_pred=ATTR_PREDS, tasks_pred=PREDS
    )
    assert out["mals_train"]["mals"] == want.value
    assert out["mals_train"]["mals"] != out["mals"]["mals"]
    # the modules' words are the registry's
    for module, family in MODULE_FAMILIES.items():
        info = out["info"][module]
        cards = metric_cards(family=family)
        assert info["citation"] == cards[0].citation and info["urls"] == [cards[0].url]
        for card in cards:
            assert card.name in info["description"] and card.meaning in info["description"]


MODULE_FAMILIES = {
    "directional": "directional",
    "mals": "mals",
    "multi_attribute": "multi_directional",
}


def test_mals_takes_a_training_split_of_another_length():
    out = mals_outputs(
        PREDS, REFS, ATTRS, ATTR_PREDS, train_references=TRAIN_REFS, train_attributes=TRAIN_ATTRS
    )
    want = biasamp.mals(
        groups_train=TRAIN_ATTRS, tasks_train=TRAIN_REFS, groups_pred=ATTR_PREDS,
        tasks_pred=PREDS, groups=ATTRS, tasks=REFS,
    )  # fmt: skip
    assert out == {"mals": want.value, "metric": "mals", "violations": int(want.violations)}
    assert TRAIN_REFS.shape[0] != REFS.shape[0]
    # the training bias b*(t, g) is the split's: a hand count for one pair
    b_train = want.by_pair.set_index(["group", "task"])["b_train"]
    rows = TRAIN_REFS[:, 2] == 1
    share = (TRAIN_ATTRS[rows, 1]).sum() / TRAIN_ATTRS[rows].sum()
    assert b_train.loc[(1, 2)] == pytest.approx(share)
    with pytest.raises(ValueError, match=re.escape(ERR_TRAIN_PAIR)):
        mals_outputs(PREDS, REFS, ATTRS, ATTR_PREDS, train_references=TRAIN_REFS)


# Probabilities: the hand-worked A->T example. Signs from the references (every row has an
# attribute): y(a0,t0)=+1 (1/3 > 2/3*1/3), y(a0,t1)=-1, y(a1,t0)=-1, y(a1,t1)=+1. Deltas over
# the expected counts: a0 rows 0-1 predict t0 with (0.9+0.2)/2 = 0.55 against 0.5, a1 row 2
# predicts t0 with 0.6 against 0; so the matrix is [[0.05, 0.05], [-0.6, -0.6]], mean -0.275.
PROBS = [[0.9, 0.1], [0.2, 0.8], [0.6, 0.4]]
PROB_REFS = [[1, 0], [0, 1], [0, 1]]
PROB_ATTRS = [[1, 0], [1, 0], [0, 1]]


def test_probabilities_are_refused_not_cast_to_zero():
    with pytest.raises(ValueError) as info:
        directional_outputs(PROBS, PROB_REFS, PROB_ATTRS)
    assert str(info.value) == ERR_NOT_INDICATORS.format(
        arg="predictions", count=6, examples="0.1, 0.2, 0.4, 0.6, 0.8"
    )
    with pytest.raises(ValueError, match=r"^predictions: expected 0/1"):
        directional_outputs(PROBS, PROB_REFS, PROB_ATTRS, mode="hub")
    with pytest.raises(ValueError, match=r"^predictions: expected 0/1"):
        multi_attribute_outputs(PROBS, PROB_REFS, PROB_ATTRS)
    with pytest.raises(ValueError, match=r"^attribute_predictions: expected 0/1"):
        mals_outputs(PROB_REFS, PROB_REFS, PROB_ATTRS, [[0.5, 0.5]] * 3)
    with pytest.raises(ValueError, match=r"^references: expected 0/1"):
        directional_outputs(PROB_REFS, [[2, 0]] * 3, PROB_ATTRS)
    with pytest.raises(ValueError, match=r"^attributes: expected 0/1"):
        directional_outputs(PROB_REFS, PROB_REFS, [[np.nan, 1]] * 3)
    with pytest.raises(ValueError) as info:
        directional_outputs(PROBS, PROB_REFS, PROB_ATTRS, mode="hub", soft=True)
    assert str(info.value) == ERR_SOFT_HUB


def test_soft_reads_probabilities_as_expected_counts():
    out = directional_outputs(PROBS, PROB_REFS, PROB_ATTRS, soft=True)
    assert out["directional-a2t"] == pytest.approx(-0.275, abs=1e-12)
    np.testing.assert_allclose(out["disagg_bias_amplification"], [[0.05, 0.05], [-0.6, -0.6]])
    want = biasamp.directional(direction="A->T", groups=np.array(PROB_ATTRS),
                               tasks=np.array(PROB_REFS), tasks_pred=np.array(PROBS), soft=True)  # fmt: skip
    assert out["directional-a2t"] == want.value
    hard = mals_outputs(PREDS, REFS, ATTRS, ATTR_PREDS)
    assert mals_outputs(PREDS * 1.0, REFS, ATTRS, ATTR_PREDS * 1.0, soft=True) == hard
    with pytest.raises(ValueError) as info:
        mals_outputs(PREDS * 1.5, REFS, ATTRS, ATTR_PREDS, soft=True)
    assert str(info.value) == ERR_NOT_PROBABILITIES.format(
        arg="predictions", count=int(PREDS.sum()), examples="1.5"
    )


@pytest.mark.parametrize(
    ("values", "error", "message"),
    [
        ([["1", "0"]] * 3, TypeError,
         ERR_INDICATOR_TYPE.format(arg="predictions", dtype="<U1", examples="'0', '1'")),
        ([[1, "1"]] * 3, TypeError,
         ERR_INDICATOR_TYPE.format(arg="predictions", dtype="<U21", examples="'1'")),
        ([1, 0, 1], ValueError, ERR_INDICATOR_SHAPE.format(arg="predictions", got="shape (3,)")),
        ([[1, 0], [1], [0, 1]], ValueError,
         ERR_INDICATOR_SHAPE.format(arg="predictions", got="ragged rows")),
    ],
)  # fmt: skip
def test_labels_that_print_alike_and_bad_shapes_are_refused(values, error, message):
    with pytest.raises(error) as info:
        directional_outputs(values, PROB_REFS, PROB_ATTRS)
    assert str(info.value) == message


PROB_SCRIPT = """
import json, sys
import evaluate
import biasamp

data = json.loads(sys.stdin.read())
directional = evaluate.load(biasamp.evaluate_module_path("directional"))
try:
    directional.compute(predictions=data["p"], references=data["r"], attributes=data["a"])
    refused = None
except ValueError as error:
    refused = str(error)
soft = directional.compute(predictions=data["p"], references=data["r"], attributes=data["a"],
                           soft=True)
print(json.dumps({"refused": refused, "soft": soft["directional-a2t"]}))
"""


def test_module_refuses_probabilities_and_reads_them_with_soft(tmp_path):
    pytest.importorskip("evaluate")
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1",
           "HF_EVALUATE_OFFLINE": "1", "HF_HOME": str(tmp_path / "hf"),
           "HF_MODULES_CACHE": str(tmp_path / "modules"),
           "HF_DATASETS_CACHE": str(tmp_path / "datasets"),
           "HTTP_PROXY": "http://127.0.0.1:9", "HTTPS_PROXY": "http://127.0.0.1:9",
           "NO_PROXY": ""}  # fmt: skip
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(PROB_SCRIPT)],
        input=json.dumps({"p": PROBS, "r": PROB_REFS, "a": PROB_ATTRS}),
        capture_output=True, text=True, env=env, timeout=300, cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["refused"] == ERR_NOT_INDICATORS.format(
        arg="predictions", count=6, examples="0.1, 0.2, 0.4, 0.6, 0.8"
    )
    assert out["soft"] == pytest.approx(-0.275, abs=1e-12)

"""A group of the training split absent from an evaluation split warns on every metric.

The case: an evaluation split with only men while training has men and women. Every
metric warns (:class:`MissingGroupWarning`, naming the group and the split) and its
result names the groups (``missing_groups``) and the pairs they leave without rows
(``excluded_pairs``).
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd
import pytest

import biasamp
from biasamp import MissingGroupWarning

QUIET = {"min_group_size": None, "min_cell": None}

# training: both groups; evaluation: only men
G_TRAIN = ["m", "w", "m", "w", "m", "w", "m", "w"]
T_TRAIN = np.array([[1, 0], [1, 1], [0, 1], [1, 0], [1, 1], [0, 1], [1, 0], [1, 1]])
G_EVAL = ["m", "m", "m", "m"]
T_EVAL = np.array([[1, 0], [0, 1], [1, 1], [1, 0]])
T_PRED = np.array([[1, 0], [1, 1], [1, 1], [0, 0]])


def _missing(call, match):
    """The result and the MissingGroupWarning messages of ``call``; one matches ``match``."""
    with pytest.warns(MissingGroupWarning) as caught:
        result = call()
    named = [w for w in caught if w.category is MissingGroupWarning]
    assert {w.filename for w in named} == {__file__}  # points at the caller
    messages = [str(w.message) for w in named]
    assert any(re.search(match, m) for m in messages), messages
    return result, messages


def test_directional_a2t_on_an_evaluation_split_of_men_only():
    result, messages = _missing(
        lambda: biasamp.directional(
            direction="A->T",
            groups=G_EVAL,
            tasks=T_EVAL,
            tasks_pred=T_PRED,
            groups_train=G_TRAIN,
            tasks_train=T_TRAIN,
            **QUIET,
        ),
        r"1 group\(s\) of the training split have no rows in the evaluation split: w\.",
    )
    assert len(messages) == 1
    assert result.missing_groups == {"evaluation": ("w",)}
    assert result.excluded_pairs.to_dict("records") == [
        {"group": "w", "task": 0, "split": "evaluation"},
        {"group": "w", "task": 1, "split": "evaluation"},
    ]
    # the value is the mean over the men's pairs only. Training: P(m, t0) = 3/8 >
    # P(m) P(t0) = 1/2 * 5/8: y = +1; P(m, t1) = 2/8 < 1/2 * 5/8: y = -1.
    # Men: P(t0 | m) true 3/4, predicted 3/4 (delta 0); P(t1 | m) true 2/4, pred 2/4.
    assert result.n_pairs == 2 and result.n_empty == 2
    assert result.value == 0.0
    assert "missing from evaluation: w (2 pair(s) without rows" in repr(result)
    record = result.to_dict()
    assert record["missing_groups"] == {"evaluation": ["w"]}
    assert record["excluded_pairs"] == ["w x 0", "w x 1"]


def test_directional_t2a_names_the_evaluation_and_the_predicted_groups():
    result, messages = _missing(
        lambda: biasamp.directional(
            direction="T->A",
            groups=G_EVAL,
            tasks=T_EVAL,
            groups_pred=G_EVAL,
            groups_train=G_TRAIN,
            tasks_train=T_TRAIN,
            **QUIET,
        ),
        "no rows in the evaluation split: w",
    )
    assert result.missing_groups == {"evaluation": ("w",), "predicted": ("w",)}
    assert "no rows in the predicted groups: w" in messages[1]


def test_directional_without_training_checks_the_predictions_against_the_truth():
    result, _ = _missing(
        lambda: biasamp.directional(
            direction="T->A",
            groups=["m", "w", "m", "w"],
            tasks=T_EVAL,
            groups_pred=["m", "m", "m", "m"],
            **QUIET,
        ),
        "1 group\\(s\\) of the evaluation split have no rows in the predicted groups: w",
    )
    assert result.missing_groups == {"predicted": ("w",)}


def test_mals_warns_about_the_evaluation_and_the_predictions():
    result, messages = _missing(
        lambda: biasamp.mals(
            groups_train=G_TRAIN,
            tasks_train=T_TRAIN,
            groups=G_EVAL,
            tasks=T_EVAL,
            groups_pred=G_EVAL,
            tasks_pred=T_PRED,
            **QUIET,
        ),
        "no rows in the evaluation split: w",
    )
    assert result.missing_groups == {"evaluation": ("w",), "predicted": ("w",)}
    assert len(messages) == 2
    # the women's pairs rest on no predicted rows: b~(t, w) = 0
    excluded = result.excluded_pairs
    assert sorted(set(excluded["split"])) == ["evaluation", "predicted"]
    assert excluded["group"].eq("w").all() and len(excluded) == 4


def test_distribution_mals_warns_when_a_group_gets_no_posterior_mass():
    proba = np.zeros((3, 2, 2))  # rows x tasks x groups (m, w): every mass on m
    proba[:, 0, 0] = 1.0
    result, _ = _missing(
        lambda: biasamp.distribution_mals(
            joint_proba=proba, groups_train=G_TRAIN, tasks_train=T_TRAIN, min_group_size=None
        ),
        "no rows in the predicted groups: w",
    )
    assert result.missing_groups == {"predicted": ("w",)}


@pytest.mark.parametrize("metric", ["multi_mals", "multi_directional"])
def test_multi_attribute_metrics_warn(metric):
    kwargs = dict(
        groups_train=G_TRAIN,
        tasks_train=T_TRAIN,
        groups=G_EVAL,
        tasks=T_EVAL,
        groups_pred=G_EVAL,
        tasks_pred=T_PRED,
        combinations="subsets",
        **QUIET,
    )
    if metric == "multi_mals":
        kwargs.pop("groups")
        call = lambda: biasamp.multi_mals(**kwargs)  # noqa: E731
    else:
        kwargs.pop("groups_pred")
        call = lambda: biasamp.multi_directional(direction="A->T", **kwargs)  # noqa: E731
    result, _ = _missing(call, "of the training split have no rows in the")
    assert "w" in next(iter(result.missing_groups.values()))
    assert set(result.excluded_pairs["group"]) == {"w"}
    assert len(result.excluded_pairs) == len(result.by_combination) // 2


def test_multi_attribute_warns_once_per_split_for_its_three_results():
    with pytest.warns(MissingGroupWarning) as caught:
        results = biasamp.multi_attribute(
            groups_train=G_TRAIN,
            tasks_train=T_TRAIN,
            groups=G_EVAL,
            tasks=T_EVAL,
            groups_pred=G_EVAL,
            tasks_pred=T_PRED,
            combinations="subsets",
            **QUIET,
        )
    messages = [str(w.message) for w in caught if w.category is MissingGroupWarning]
    assert len(messages) == len(set(messages)) == 2  # evaluation, predicted
    assert all(r.missing_groups for r in results.values())


def test_dpa_t2a_warns_when_the_model_never_predicts_a_group():
    rng = np.random.default_rng(0)
    groups = rng.choice(["m", "w"], 120)
    tasks = rng.integers(0, 2, (120, 3))
    result, _ = _missing(
        lambda: biasamp.dpa(
            direction="T->A",
            groups=groups,
            tasks=tasks,
            groups_pred=np.full(120, "m"),
            n_iter=2,
            random_state=0,
            min_group_size=None,
        ),
        "of the evaluation split have no rows in the predicted groups: w",
    )
    assert result.missing_groups == {"predicted": ("w",)}
    assert result.group_sizes["predicted"].to_dict() == {"m": 120.0, "w": 0.0}
    assert result.excluded_pairs.to_dict("records") == [
        {"group": "w", "task": None, "split": "predicted"}
    ]
    assert result.to_dict()["missing_groups"] == {"predicted": ["w"]}


def test_differential_fairness_warns_about_a_named_group_without_rows():
    result, _ = _missing(
        lambda: biasamp.differential_fairness_amplification(
            groups=G_EVAL,
            labels=[1, 0, 1, 1],
            labels_pred=[1, 1, 1, 1],
            group_names=["m", "w"],
            min_group_size=None,
        ),
        "1 group\\(s\\) of group_names have no rows in the evaluation split: w",
    )
    assert result.missing_groups == {"evaluation": ("w",)}
    assert result.groups == ("m",)


def test_retrieval_warns_about_a_reference_group_without_items():
    result, _ = _missing(
        lambda: biasamp.retrieval_bias(
            scores=[[3, 2, 1]], groups=["m", "m", "m"], k=2, reference={"m": 0.5, "w": 0.5}
        ),
        "the reference distribution have no rows in the pool of ranked items: w",
    )
    assert result.missing_groups == {"pool": ("w",)}


def test_no_warning_when_every_group_is_present():
    with warnings.catch_warnings():
        warnings.simplefilter("error", MissingGroupWarning)
        result = biasamp.directional(
            direction="A->T",
            groups=G_TRAIN,
            tasks=T_TRAIN,
            tasks_pred=T_TRAIN,
            groups_train=G_TRAIN,
            tasks_train=T_TRAIN,
            **QUIET,
        )
    assert result.missing_groups == {} and result.excluded_pairs.empty


def test_saved_results_keep_the_missing_groups(tmp_path):
    with pytest.warns(MissingGroupWarning):
        result = biasamp.mals(
            groups_train=G_TRAIN,
            tasks_train=T_TRAIN,
            groups_pred=G_EVAL,
            tasks_pred=T_PRED,
            **QUIET,
        )
    again = biasamp.load_result(result.save(tmp_path / "r.json"))
    assert again == result and again.missing_groups == {"predicted": ("w",)}


def test_the_evaluate_module_function_warns():
    from biasamp.hf_evaluate._compute import directional_outputs

    one_hot = {"m": [1, 0], "w": [0, 1]}
    with pytest.warns(MissingGroupWarning, match="evaluation split: 1"):
        out = directional_outputs(
            T_PRED,
            T_EVAL,
            np.array([one_hot[g] for g in G_EVAL]),
            train_references=T_TRAIN,
            train_attributes=np.array([one_hot[g] for g in G_TRAIN]),
        )
    assert out["directional-a2t"] == 0.0


def test_the_audit_notes_the_warning_and_the_json_names_the_groups(tmp_path):
    frame = pd.DataFrame(T_EVAL, columns=["a", "b"]).assign(gender=G_EVAL)
    for column in ("a", "b"):
        frame[f"pred_{column}"] = T_PRED[:, ["a", "b"].index(column)]
    train = pd.DataFrame(T_TRAIN, columns=["a", "b"]).assign(gender=G_TRAIN)
    frame.to_csv(tmp_path / "test.csv", index=False)
    train.to_csv(tmp_path / "train.csv", index=False)
    audit = biasamp.audit(
        str(tmp_path / "test.csv"),
        group="gender",
        task_cols=["a", "b"],
        pred_prefix="pred_",
        train=str(tmp_path / "train.csv"),
        metrics=["directional-a2t"],
        min_group_size=None,
    )
    assert any("no rows in the evaluation split: w" in w for w in audit.warnings)
    record = audit.to_dict()["results"]["directional-a2t"]
    assert record["missing_groups"] == {"evaluation": ["w"]}
    assert record["excluded_pairs"] == ["w x a", "w x b"]


def test_the_torchmetrics_class_warns():
    torch = pytest.importorskip("torch")
    pytest.importorskip("torchmetrics")
    from biasamp.torchmetrics import DirectionalBiasAmplification

    codes = {"m": 0, "w": 1}
    metric = DirectionalBiasAmplification(
        "A->T",
        2,
        2,
        groups_train=torch.tensor([codes[g] for g in G_TRAIN]),
        tasks_train=torch.tensor(T_TRAIN),
        min_group_size=None,
    )
    metric.update(
        groups=torch.tensor([codes[g] for g in G_EVAL]),
        tasks=torch.tensor(T_EVAL),
        tasks_pred=torch.tensor(T_PRED),
    )
    with pytest.warns(MissingGroupWarning, match="no rows in the evaluation split: 1"):
        result = metric.compute_result()
    assert result.missing_groups == {"evaluation": (1,)}

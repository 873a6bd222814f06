"""The interval in words: whether it includes 0, on every surface (repr, dict, terminal,
report), from one function."""

from __future__ import annotations

import html

import numpy as np
import pytest

import biasamp
from biasamp.results._intervals import (
    WORDS_EXCLUDES_ZERO,
    WORDS_INCLUDES_ZERO,
    WORDS_ZERO_WIDTH,
    interval_words,
)

QUIET = {"min_group_size": None, "min_cell": None}


@pytest.mark.parametrize(
    ("ci", "level", "expected"),
    [
        (
            (-0.0195, 0.0522),
            0.95,
            "95% interval [-0.0195, +0.0522] includes 0: not distinguishable from no "
            "amplification at this sample size",
        ),
        ((0.0, 0.3), 0.9, WORDS_INCLUDES_ZERO.format(level="90% ", low="+0.0000", high="+0.3000")),
        ((0.01, 0.03), 0.95, "95% interval [+0.0100, +0.0300] lies above 0"),
        ((-0.5, -0.25), None, "interval [-0.5000, -0.2500] lies below 0"),
        (
            (-0.75, -0.75),
            0.95,
            WORDS_ZERO_WIDTH.format(level="95% ", low="-0.7500", high="-0.7500"),
        ),
        (None, 0.95, None),
        ((np.nan, 0.1), 0.95, None),
    ],
)
def test_interval_words_by_hand(ci, level, expected):
    assert interval_words(ci, level) == expected


def test_the_templates_are_the_ones_used():
    assert interval_words((0.1, 0.2), 0.95) == WORDS_EXCLUDES_ZERO.format(
        level="95% ", low="+0.1000", high="+0.2000", side="above"
    )


def _crossing():
    """A MALS result whose interval includes 0: a model that predicts the labels."""
    rng = np.random.default_rng(0)
    groups = rng.choice(["m", "w"], 300)
    tasks = rng.choice(["a", "b", "c"], 300)
    return biasamp.mals(
        groups_train=groups,
        tasks_train=tasks,
        groups_pred=groups,
        tasks_pred=tasks,
        n_boot=100,
        random_state=0,
        **QUIET,
    )


def test_repr_and_dict_say_it():
    result = _crossing()
    low, high = result.ci
    assert low < 0 < high
    words = interval_words(result.ci, result.ci_level)
    assert "includes 0: not distinguishable from no amplification" in words
    assert f"  {words}" in repr(result).splitlines()
    assert result.to_dict()["interval_words"] == words


def test_every_result_type_with_an_interval_says_it():
    rng = np.random.default_rng(1)
    groups = rng.choice(["m", "w"], 200)
    tasks = (rng.random((200, 2)) < 0.4).astype(int)
    multi = biasamp.multi_mals(
        groups_train=groups,
        tasks_train=tasks,
        tasks=tasks,
        groups_pred=groups,
        tasks_pred=tasks,
        n_boot=30,
        random_state=0,
        **QUIET,
    )
    fairness = biasamp.differential_fairness(
        groups=groups, labels=tasks[:, 0], n_boot=30, random_state=0, min_group_size=None
    )
    retrieval = biasamp.retrieval_bias(
        scores=rng.random((20, 10)), groups=["m", "w"] * 5, k=4, n_boot=30, random_state=0
    )
    for result in (multi, fairness, retrieval):
        words = interval_words(result.ci, result.ci_level)
        assert words is not None and words in repr(result)
        assert result.to_dict()["interval_words"] == words


def test_the_report_and_the_terminal_say_it(tmp_path, capsys):
    result = _crossing()
    words = interval_words(result.ci, result.ci_level)
    page = biasamp.render_report({"mals": result})
    assert html.escape(words) in page
    from biasamp.cli.main import main

    rng = np.random.default_rng(0)
    import pandas as pd

    frame = pd.DataFrame({"g": rng.choice(["m", "w"], 300), "t": rng.choice(["a", "b", "c"], 300)})
    frame["pred_g"], frame["pred_t"] = frame["g"], frame["t"]
    frame.to_csv(tmp_path / "test.csv", index=False)
    frame[["g", "t"]].to_csv(tmp_path / "train.csv", index=False)
    code = main(
        [
            "measure",
            str(tmp_path / "test.csv"),
            "--group",
            "g",
            "--task",
            "t",
            "--pred-prefix",
            "pred_",
            "--train",
            str(tmp_path / "train.csv"),
            "--metric",
            "mals",
            "--n-boot",
            "50",
        ]
    )
    assert code == 0
    out = capsys.readouterr().out
    assert "interval [" in out and "includes 0: not distinguishable from no" in out

"""The metric registry: one card per metric, every spelling resolved, errors list the choices."""

from __future__ import annotations

import inspect

import pytest

import biasamp
from biasamp.registry import (
    DIRECTION_SPELLINGS,
    ERR_DIRECTION,
    ERR_UNKNOWN_METRIC,
    METRICS,
    card_for,
    metric_card,
    metric_cards,
    metric_name,
    normalize_direction,
)
from biasamp.results._persist import registered_results


def test_canonical_names_need_no_shell_quoting():
    for name in METRICS:
        assert name == name.lower()
        assert set(name) <= set("abcdefghijklmnopqrstuvwxyz0123456789-"), name


def test_every_card_names_a_public_function_and_a_registered_result_type():
    registered = set(registered_results())
    for card in metric_cards():
        function = getattr(biasamp, card.function)
        assert callable(function), card.name
        if card.direction is not None:
            assert "direction" in inspect.signature(function).parameters, card.name
        assert card.result_type in registered, (card.name, card.result_type)
        assert card.meaning and card.sign and card.paper and card.citation.startswith("@")


def test_every_spelling_resolves_to_its_own_card():
    for card in metric_cards():
        for spelling in card.spellings:
            assert metric_name(spelling) == card.name
            assert metric_name(f"  {spelling.upper()} ") == card.name


@pytest.mark.parametrize(
    ("spelling", "expected"),
    [
        ("T->A", "directional-t2a"),
        ("BiasAmp T->A", "directional-t2a"),
        ("directional-t2a", "directional-t2a"),
        ("t2a", "directional-t2a"),
        ("BiasAmp_MALS", "mals"),
        ("multi_mals", "multi-mals"),
        ("Multi G->M", "multi-a2t"),
        ("DPA T->A", "dpa-t2a"),
        ("leakage_amplification", "leakage"),
    ],
)
def test_paper_and_old_spellings(spelling, expected):
    assert metric_name(spelling) == expected


def test_unknown_metric_lists_the_choices():
    with pytest.raises(ValueError) as info:
        metric_card("bogus", among=["mals", "lic"], argument="--metric")
    assert info.value.args[0] == ERR_UNKNOWN_METRIC.format(
        argument="--metric", got="bogus", choices="mals, lic"
    )
    with pytest.raises(ValueError, match="unknown metric 'lic'"):
        metric_card("lic", among=["mals"])


def test_direction_spellings_all_accepted_and_all_listed():
    for canonical, spellings in DIRECTION_SPELLINGS.items():
        for spelling in spellings:
            assert normalize_direction(spelling) == canonical
            assert normalize_direction(spelling.lower()) == canonical
    with pytest.raises(ValueError) as info:
        normalize_direction("sideways")
    message = info.value.args[0]
    for spellings in DIRECTION_SPELLINGS.values():
        for spelling in spellings:
            assert repr(spelling) in message
    assert message.startswith("direction: expected one of")
    assert "{choices}" in ERR_DIRECTION


@pytest.mark.parametrize("direction", ["AT", "t->a", "G->M", "m->g", "A2T"])
def test_directional_accepts_every_listed_spelling(direction):
    kw = dict(groups=["a", "b"], tasks=["x", "y"], tasks_pred=["x", "x"], groups_pred=["a", "a"])
    result = biasamp.directional(direction=direction, **kw)
    assert result.direction == normalize_direction(direction)


def test_card_for_each_family_and_direction():
    for card in metric_cards():
        assert isinstance(card, biasamp.MetricCard)
        assert card_for(card.family, card.direction) is card
    with pytest.raises(ValueError, match="family: unknown metric"):
        card_for("nothing")


def test_find_card_of_a_result_family_and_direction():
    from biasamp.registry import find_card

    for card in metric_cards():
        assert find_card(card.family, card.direction) is card
        assert find_card(card.name) is card
        assert card.url.startswith("https://arxiv.org/abs/")
    assert find_card("multi_directional", "G->M").name == "multi-a2t"
    assert find_card("directional", "sideways") is None
    assert find_card("my_metric") is None and find_card(None) is None


def test_results_carry_the_canonical_name_and_title():
    kw = dict(groups=["a", "b"] * 3, tasks=["x", "y", "y"] * 2, min_group_size=None)
    t2a = biasamp.directional(direction="m->g", groups_pred=["a", "a", "b"] * 2, **kw)
    assert (t2a.metric, t2a.family, t2a.metric_name, t2a.title, t2a.name) == (
        "directional-t2a", "directional", "directional-t2a", "BiasAmp T->A", "BiasAmp T->A",
    )  # fmt: skip
    assert t2a.card is METRICS["directional-t2a"]
    mals = biasamp.mals(
        groups_train=["a", "b"], tasks_train=["x", "y"], groups_pred=["a", "b"],
        tasks_pred=["x", "x"], min_group_size=None,
    )  # fmt: skip
    assert (mals.metric_name, mals.name) == ("mals", "BiasAmp_MALS")

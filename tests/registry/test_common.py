"""Common tests of every registered metric, generated from the registry's cards.

After scikit-learn's ``sklearn/utils/estimator_checks.py``,
``sklearn/metrics/tests/test_common.py`` and ``sklearn/tests/test_public_functions.py``:
the checks live in ``tests/registry/metric_checks.py`` (a declarative catalogue) and are
parametrised here over :func:`biasamp.registry.metric_cards`, so a metric is covered the
moment its card is registered.

The hostile catalogue, per declared argument (its kind decides which classes apply):

* missing values: ``None`` in a list, NaN in numpy, ``pd.NA`` in pandas, NaT, a polars
  null, a pyarrow null (the error names the argument and the row);
* mixed label types: ``1`` with ``'1'``, ``True`` with ``1``;
* duplicate names: a names argument (``group_names``) or a frame's columns repeating one;
* empty input, wrong length, wrong number of dimensions;
* infinite scores, posteriors and weights; negative weights;
* for a concept x group table (``count_table``): a missing cell (``None`` in a mapping,
  NaN, ``pd.NA``, NaT, a polars or pyarrow null; the error names the argument, the
  concept and the group), group columns ``1`` and ``'1'``, a repeated group or concept,
  an empty table, a wrong type, an infinite, negative or non-numeric cell;
* overlapping row ranges of chunk tables (where the metric has a count-table form);

and per declared knob: an absurd value (``10**9``), zero, a negative value and a
non-integer one. Each must raise a ``ValueError`` or ``TypeError`` naming the argument
within seconds. The invariances: row order, every container (pandas, polars, pyarrow,
list) equal to numpy, chunk tables merged in any order equal to one table, sparse label
matrices equal to dense; for tables, the order of concept rows and of group columns, and
polars, pyarrow and mapping tables equal to the pandas one (a table with a row form,
``reference`` beside ``reference_concepts``, is checked in both forms). A card's
``xfail_checks`` mark the checks it cannot satisfy.
"""

from __future__ import annotations

import inspect
import types
import warnings
from typing import Any

import numpy as np
import pandas as pd
import pytest
from tests.registry import metric_checks as checks

import biasamp
from biasamp.inputs._readers import READERS
from biasamp.registry import INPUT_KINDS, KNOBS, MetricCard, metric_cards
from biasamp.registry import _metrics as registry_module
from biasamp.results._persist import registered_results

CARDS = metric_cards()
#: Cards whose valid call trains attackers (each call takes about a second): their
#: invariances run in the full suite only (tests/slow_tests.txt).
ATTACKERS = [card for card in CARDS if "n_iter" in card.knobs]


def _xfail(card: MetricCard, check: str) -> list[Any]:
    reason = card.xfail_checks.get(check)
    return [pytest.mark.xfail(reason=reason, strict=True)] if reason else []


def _hostile_params(*, every: bool) -> list[Any]:
    """Every (card, check, argument), or (``every=False``, the fast tier) one argument of
    each kind per function and check: the same reader reads every argument of a kind."""
    params, seen = [], set()
    for card in CARDS:
        for check, target in checks.hostile_cases(card):
            key = (card.function, check, card.inputs.get(target, target))
            if not every and key in seen:
                continue
            seen.add(key)
            params.append(
                pytest.param(
                    card,
                    check,
                    target,
                    id=f"{card.name}-{check}-{target}",
                    marks=_xfail(card, check),
                )  # fmt: skip
            )
    return params


def _invariance_params(cards: list[MetricCard]) -> list[Any]:
    return [
        pytest.param(card, check, id=f"{card.name}-{check}", marks=_xfail(card, check))
        for card in cards
        for check, (applies, _) in checks.INVARIANCES.items()
        if applies(card)
    ]


# ------------------------------------------------------------------ the cards' declarations
@pytest.mark.parametrize("card", CARDS, ids=[c.name for c in CARDS])
def test_declared_arguments_and_knobs_are_parameters_of_the_function(card):
    parameters = inspect.signature(getattr(biasamp, card.function)).parameters
    assert card.inputs, f"{card.name} declares no inputs"
    assert set(card.inputs) <= set(parameters), set(card.inputs) - set(parameters)
    assert set(card.knobs) <= set(parameters), set(card.knobs) - set(parameters)
    assert set(card.inputs.values()) <= set(INPUT_KINDS)
    assert set(card.knobs) <= set(KNOBS)
    assert set(card.xfail_checks) <= set(checks.CHECKS), set(card.xfail_checks) - set(checks.CHECKS)
    assert all(len(reason) > 40 for reason in card.xfail_checks.values())


def test_every_input_kind_has_its_reader():
    assert set(READERS) == set(INPUT_KINDS)
    assert all(callable(reader) for kind, reader in READERS.items() if kind != "count_table")


def test_a_card_declaring_a_parameter_the_function_lacks_fails_the_declaration_test():
    card = CARDS[0]
    wrong = MetricCard(**{**card.__dict__, "inputs": {"groupz": "labels"}})
    with pytest.raises(AssertionError):
        test_declared_arguments_and_knobs_are_parameters_of_the_function(wrong)


# ------------------------------------------------------------------ the catalogue
def _run_hostile(card: MetricCard, check: str, target: str) -> None:
    if check in checks.KNOB_VALUES:
        checks.check_knob(card, check, target)
    else:
        checks.check_hostile(card, check, target)


@pytest.mark.parametrize(("card", "check", "target"), _hostile_params(every=False))
def test_hostile_input_is_refused_naming_the_argument(card, check, target):
    _run_hostile(card, check, target)


@pytest.mark.parametrize(("card", "check", "target"), _hostile_params(every=True))
def test_hostile_input_is_refused_for_every_argument_and_card(card, check, target):
    _run_hostile(card, check, target)


@pytest.mark.parametrize(
    ("card", "check"),
    _invariance_params([card for card in CARDS if card not in ATTACKERS]),
)
def test_invariances(card, check):
    checks.INVARIANCES[check][1](card)


@pytest.mark.parametrize(("card", "check"), _invariance_params(ATTACKERS))
def test_invariances_of_metrics_that_train_attackers(card, check):
    checks.INVARIANCES[check][1](card)


# ------------------------------------------------------------------ every metric has a card
def _metric_result_types() -> tuple[type, ...]:
    named = {card.result_type for card in CARDS}
    return tuple(cls for name, cls in registered_results().items() if name in named)


def uncovered_metric_functions(namespace: Any) -> list[str]:
    """Public functions of ``namespace`` (its ``__all__``) that return a metric result (a
    result type a card names) but are neither a card's function nor its count-table form
    (``<function>_from_counts``)."""
    result_types = {cls.__name__ for cls in _metric_result_types()}
    carded = {card.function for card in metric_cards()}
    uncovered = []
    for name in namespace.__all__:
        function = getattr(namespace, name)
        if not inspect.isfunction(function):
            continue
        returns = inspect.signature(function).return_annotation
        returns = returns if isinstance(returns, str) else getattr(returns, "__name__", "")
        if returns not in result_types:
            continue
        if name in carded or name.removesuffix("_from_counts") in carded:
            continue
        uncovered.append(name)
    return uncovered


def test_every_public_metric_function_has_a_card():
    assert uncovered_metric_functions(biasamp) == []
    for card in CARDS:  # and every card's function is public
        assert card.function in biasamp.__all__, card.name


def _toy_metric(*, groups: Any, tasks: Any, n_boot: int | None = None) -> Any:
    """A metric that reads its own way, bypassing the boundary (as the rooms once did):
    labels by their text, missing values kept, no knob checked."""
    from biasamp.results._base import PairwiseResult

    names, codes = np.unique(np.asarray(groups).astype(str), return_inverse=True)
    matrix = np.asarray(tasks, dtype=float).reshape(len(codes), -1)
    shares = np.array([matrix[codes == g].mean() for g in range(len(names))])
    return PairwiseResult(
        metric="toy", value=float(np.nanmax(shares) - np.nanmin(shares)), by_pair=pd.DataFrame()
    )


_toy_metric.__annotations__["return"] = "PairwiseResult"

TOY_CARD = MetricCard(
    name="toy",
    title="Toy",
    family="toy",
    function="_toy_metric_for_the_battery",
    paper="none",
    citation="@misc{toy}",
    meaning="the largest gap in task share between groups",
    sign="at least 0",
    result_type="pairwise",
    inputs=types.MappingProxyType({"groups": "labels", "tasks": "label_matrix"}),
    knobs=("n_boot",),
)


def test_an_unregistered_metric_function_fails_the_coverage_test():
    namespace = types.SimpleNamespace(
        __all__=[*biasamp.__all__, "toy_metric"],
        **{name: getattr(biasamp, name) for name in biasamp.__all__},
        toy_metric=_toy_metric,
    )
    assert uncovered_metric_functions(namespace) == ["toy_metric"]


def test_a_metric_that_bypasses_the_boundary_fails_the_battery(monkeypatch):
    # registered for the test only: a card, and its function in biasamp's namespace
    monkeypatch.setattr(biasamp, TOY_CARD.function, _toy_metric, raising=False)
    monkeypatch.setattr(registry_module, "_CARDS", [*registry_module._CARDS, TOY_CARD])
    assert TOY_CARD in metric_cards()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        failures = checks.run_battery(TOY_CARD)
    # the bypassing reader merges 1 and '1', reads NaN as the group 'nan', and accepts an
    # absurd or negative n_boot: the battery reports each
    for expected in (
        "mixed_int_str[groups]",
        "mixed_bool_int[groups]",
        "missing_nan_numpy[groups]",
        "missing_none_list[groups]",
        "absurd_knob[n_boot]",
        "negative_knob[n_boot]",
    ):
        assert expected in failures, (expected, sorted(failures))
    # while a metric that reads through the boundary passes the same checks
    card = next(card for card in CARDS if card.name == "differential-fairness")
    for check, target in (("mixed_int_str", "groups"), ("missing_nan_numpy", "groups")):
        checks.check_hostile(card, check, target)


def test_the_battery_catches_a_card_that_fails_an_invariance(monkeypatch):
    # a metric whose value depends on the row order (where the first groups "m" are)
    def first_row(*, groups: Any, tasks: Any, n_boot: int | None = None) -> Any:
        from biasamp.results._base import PairwiseResult

        return PairwiseResult(
            metric="toy",
            value=float(np.flatnonzero(np.asarray(groups) == "m")[:5].sum()),
            by_pair=pd.DataFrame(),
        )

    monkeypatch.setattr(biasamp, TOY_CARD.function, first_row, raising=False)
    with pytest.raises(AssertionError, match="row order"):
        checks.check_row_order(TOY_CARD)


def test_the_catalogue_lists_every_class_the_docs_name():
    listed = set(checks.CHECKS)
    for check in (
        "missing_none_list", "missing_nan_numpy", "missing_pd_na", "missing_nat",
        "missing_polars_null", "missing_pyarrow_null", "mixed_int_str", "mixed_bool_int",
        "duplicate_names", "duplicate_columns", "empty", "wrong_length", "wrong_ndim",
        "inf_in_scores", "negative_weights", "overlapping_row_ranges", "absurd_knob",
        "zero_knob", "negative_knob", "non_integer_knob", "row_order", "container_pandas",
        "container_polars", "container_pyarrow", "container_list", "chunk_merge",
        "sparse_dense", "duplicate_rows", "wrong_type", "negative_count",
        "non_numeric_count", "column_order",
    ):  # fmt: skip
        assert check in listed, check


def _toy_table_metric(*, reference: Any, outputs: Any, group: Any = None) -> Any:
    """A metric that reads its tables its own way (as the generated room once did):
    missing cells as 0, columns by their text, any object that pandas takes."""
    from biasamp.results._base import PairwiseResult

    ref = pd.DataFrame(reference).fillna(0)
    out = pd.DataFrame(outputs).fillna(0)
    ref.columns, out.columns = ref.columns.astype(str), out.columns.astype(str)
    share = (out[str(group)] / out.sum(axis=1)).mean() - (ref[str(group)] / ref.sum(axis=1)).mean()
    return PairwiseResult(metric="toy", value=float(share), by_pair=pd.DataFrame())


_toy_table_metric.__annotations__["return"] = "PairwiseResult"

TOY_TABLE_CARD = MetricCard(
    **{
        **TOY_CARD.__dict__,
        "function": "_toy_table_metric_for_the_battery",
        "inputs": types.MappingProxyType({"reference": "count_table", "outputs": "count_table"}),
        "knobs": (),
    }
)


def test_a_metric_that_reads_its_tables_its_own_way_fails_the_battery(monkeypatch):
    monkeypatch.setattr(biasamp, TOY_TABLE_CARD.function, _toy_table_metric, raising=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        failures = checks.run_battery(TOY_TABLE_CARD)
    # missing cells read as 0, 1 and '1' merged, negative counts taken: each reported
    for expected in (
        "missing_nan_numpy[reference]",
        "missing_none_list[outputs]",
        "mixed_int_str[reference]",
        "negative_count[reference]",
        "duplicate_rows[reference]",
    ):
        assert expected in failures, (expected, sorted(failures))
    # while the metrics that read through the boundary refuse the same tables
    card = next(card for card in CARDS if card.name == "bias-transfer")
    for check in ("missing_nan_numpy", "mixed_int_str", "negative_count", "duplicate_rows"):
        checks.check_hostile(card, check, "reference")


def test_valid_tables_are_seeded_and_every_table_check_has_a_form():
    card = next(card for card in CARDS if card.name == "output-amplification")
    first, second = checks.valid_call(card), checks.valid_call(card)
    pd.testing.assert_frame_equal(first["reference"], second["reference"])
    assert "reference_concepts" not in first and "reference" in first
    rows = checks.valid_call(card, form="rows")
    assert "reference" not in rows and "reference_concepts" in rows
    assert checks.forms(card) == ("table", "rows")
    # the reference covers the outputs' concepts and groups, one strict majority each
    table = first["reference"]
    assert set(table.index) == set(first["concepts"]) and set(table.columns) == {"m", "w"}
    assert (table.nunique(axis=1) == table.shape[1]).all()
    confusion = first["attribute_confusion"]
    assert list(confusion.index) == list(confusion.columns) == ["m", "w"]
    # a CountTable argument is not a concept x group table
    mals = next(card for card in CARDS if card.name == "mals")
    assert not checks.is_table(mals, "counts_train") and "counts_train" not in checks.valid_call(
        mals
    )


# ------------------------------------------------------------------ functions without a card
#: Public functions that read through the boundary but are not registry metrics, declared
#: here so the battery covers them: ``calibration_error`` returns a number, not a metric
#: result (a card would put it in the metric tables, ``compare`` and the command line).
#: ``caption_bias_amplification`` is not declared: it is a bundle of registered metrics
#: (directional, mals) computed from captions, and a valid call needs captions that
#: mention the words named by the columns of ``tasks`` (the kinds do not say which), so
#: the metrics it computes are covered by their own cards and ``lic``'s captions checks.
DECLARED_HERE = [
    MetricCard(
        **{
            **TOY_CARD.__dict__,
            "name": "calibration-error",
            "function": "calibration_error",
            "inputs": types.MappingProxyType({"y_true": "labels", "y_prob": "posteriors"}),
            "knobs": ("n_bins",),
        }
    )
]
#: The checks a declared function cannot satisfy, by check and argument, with the reason.
DECLARED_XFAIL = {
    ("calibration-error", "wrong_ndim[y_prob]"): (
        "y_prob of shape (n, k) is the multiclass form (the top label's calibration), a "
        "valid input, not a wrong number of dimensions"
    ),
    ("calibration-error", "absurd_knob[n_bins]"): (
        "n_bins is not a size: with more bins than rows only the bins that hold a row are "
        "kept, so n_bins=10**18 is computed in bounded memory"
    ),
}


def _declared_params() -> list[Any]:
    params = []
    for card in DECLARED_HERE:
        targets = [f"{check}[{target}]" for check, target in checks.hostile_cases(card)]
        targets += [c for c, (applies, _) in checks.INVARIANCES.items() if applies(card)]
        for target in targets:
            reason = DECLARED_XFAIL.get((card.name, target))
            marks = [pytest.mark.xfail(reason=reason, strict=True)] if reason else []
            params.append(pytest.param(card, target, id=f"{card.name}-{target}", marks=marks))
    return params


@pytest.mark.parametrize(("card", "target"), _declared_params())
def test_functions_without_a_card_pass_the_battery(card, target):
    if "[" in target:
        check, argument = target.rstrip("]").split("[")
        _run_hostile(card, check, argument)
    else:
        checks.INVARIANCES[target][1](card)

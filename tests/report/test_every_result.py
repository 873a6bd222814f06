"""The report explains itself and renders every result type.

Each metric section opens with its registry card's meaning, sign and paper; the pair
table's headings carry their meaning (tooltip and legend); a captioning model's section
shows how its captions were read beside its metrics; an object with a ``.results``
mapping (an ``AuditResult``) renders as its metrics; the points of the bias figure that
carry no label are in a table.
"""

from __future__ import annotations

import html
import re
import warnings

import numpy as np
import pandas as pd
import pytest

import biasamp
from biasamp.registry import metric_card
from biasamp.report import render_report
from biasamp.report._html import ERR_RESULTS_TYPE, _flatten
from biasamp.text import caption_bias_amplification

pytest.importorskip("matplotlib")

RNG = np.random.default_rng(0)
N = 300
GROUPS = RNG.choice(["man", "woman"], N)
TASKS = pd.DataFrame((RNG.random((N, 3)) < 0.4).astype(int), columns=["cup", "skis", "dog"])
PRED = pd.DataFrame((RNG.random((N, 3)) < 0.4).astype(int), columns=["cup", "skis", "dog"])


@pytest.fixture(scope="module")
def every():
    """One result of every type the report renders, keyed by its canonical name."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        human = [
            f"a {g} in a {p}"
            for g, p in zip(GROUPS, RNG.choice(["kitchen", "park"], N), strict=True)
        ]
        model = [f"a {g} in a {'kitchen' if g == 'woman' else 'park'}" for g in GROUPS]
        words = RNG.choice(["man", "woman", "person"], N)
        objects = RNG.choice(["cup", "skis", "dog"], N)
        captions = [f"a {w} with a {o}" for w, o in zip(words, objects, strict=True)]
        margins = np.array([3, 3, 3, 3, 0.02, 0.04, 0.06, 0.08, 0.1, -3])
        scores = np.stack([np.zeros(10), margins], axis=1)[:, :, None]
        return {
            "mals": biasamp.mals(groups_train=GROUPS, tasks_train=TASKS,
                                 groups_pred=RNG.choice(["man", "woman"], N), tasks_pred=PRED),
            "directional-a2t": biasamp.directional(direction="A->T", groups=GROUPS,
                                                   tasks=TASKS, tasks_pred=PRED),
            "multi-mals": biasamp.multi_mals(groups_train=GROUPS, tasks_train=TASKS, tasks=TASKS,
                                             groups_pred=GROUPS, tasks_pred=PRED,
                                             min_group_size=None),
            "multi-t2a": biasamp.multi_directional(direction="T->A", groups_train=GROUPS,
                                                   tasks_train=TASKS, groups=GROUPS, tasks=TASKS,
                                                   groups_pred=RNG.choice(["man", "woman"], N),
                                                   tasks_pred=TASKS, min_group_size=None),
            "dpa-a2t": biasamp.dpa(direction="A->T", groups=GROUPS, tasks=TASKS, tasks_pred=PRED,
                                   n_iter=2, random_state=0),
            "leakage": biasamp.leakage_amplification(groups=GROUPS, tasks=TASKS, tasks_pred=PRED,
                                                     n_iter=2, random_state=0),
            "differential-fairness": biasamp.differential_fairness(
                groups=GROUPS, labels=TASKS["cup"].to_numpy(), min_group_size=None),
            "df-amplification": biasamp.differential_fairness_amplification(
                groups=GROUPS, labels=TASKS["cup"].to_numpy(), labels_pred=PRED["cup"].to_numpy(),
                min_group_size=None),
            "lic": biasamp.lic(captions_human=human, captions_model=model, groups=GROUPS,
                               n_iter=2, random_state=0),
            "captions": caption_bias_amplification(captions=captions, groups=GROUPS, tasks=TASKS),
            "rba": biasamp.rba(scores, structure="single", groups_train=["m"] * 4 + ["w"] * 6,
                               tasks_train=["cook"] * 10, eta=0.1),
        }  # fmt: skip


def _sections(page: str) -> dict[str, str]:
    """Each metric section's HTML, by the name it is shown under."""
    body = page.split("<h2>Metrics</h2>", 1)[1]
    parts = re.split(r"<h3>", body)[1:]
    return {html.unescape(part.split(":", 1)[0]): part for part in parts}


def test_every_result_type_renders_with_its_card(every):
    page = render_report(results=every, image_format="png")
    sections = _sections(page)
    names = [key for key, _ in _flatten(every)]
    assert list(sections) == names
    caption_keys = [f"captions {k}" for k in every["captions"].results]
    assert names == [*list(every)[:9], *caption_keys, "rba"]
    for key, section in sections.items():
        name = "mals" if key == "rba" else key.removeprefix("captions ")
        card = metric_card(name)
        # opens with the registry's meaning, sign and paper (escaped), before anything else
        meaning = f'<p class="meaning">{html.escape(card.meaning, quote=True)}</p>'
        if key == "rba":
            assert html.escape(card.meaning, quote=True) + "</p>" in section
        else:
            assert meaning in section, key
        sign = f'<p class="sign">{html.escape(card.sign, quote=True)}</p>'
        assert sign in section and html.escape(card.paper, quote=True) in section
        assert section.index("meaning") < section.index("sign") < section.index("<table")
    # the summary has one row per metric, the value of each
    summary = page.split("<h2>Summary</h2>", 1)[1].split("<h2>", 1)[0]
    for key, result in _flatten(every):
        value = result.mals_after.value if key == "rba" else result.value
        assert f"{html.escape(key)}<br>" in summary and f"{value:+.4f}" in summary


def test_a_result_holding_results_renders_as_its_metrics(every):
    class AuditLike:  # what biasamp.audit returns: a .results mapping of name -> result
        def __init__(self, results):
            self.results = results

    audit = AuditLike({k: every[k] for k in ("mals", "directional-a2t", "dpa-a2t")})
    page = render_report(audit, title="audit")
    figures = re.compile(r'src="data:image/svg\+xml;base64,[^"]*"')  # SVG ids are random
    same = render_report(results=audit.results, title="audit")
    assert figures.sub("", page) == figures.sub("", same)
    assert list(_sections(page)) == ["mals", "directional-a2t", "dpa-a2t"]
    # a mapping may hold such objects too: their metrics are prefixed with the key
    nested = render_report(results={"run 1": audit})
    assert list(_sections(nested)) == ["run 1 mals", "run 1 directional-a2t", "run 1 dpa-a2t"]
    with pytest.raises(TypeError, match=re.escape(ERR_RESULTS_TYPE.format(got="int"))):
        render_report(3)
    with pytest.raises(ValueError, match="at least one result"):
        render_report(AuditLike({}))


def test_the_captions_model_shows_how_its_captions_were_read_beside_its_metrics(every):
    result = every["captions"]
    page = render_report(results={"baseline": result, "other": every["mals"]})
    model = page.split('<h3 class="model">baseline</h3>', 1)[1]
    first_metric = model.index("<h3>baseline ")
    read = model[:first_metric]
    cells = re.findall(r"<td[^>]*>([^<]*)</td>", read)
    assert cells == [
        str(result.n), str(result.n_one_group), str(result.n_no_group),
        str(result.n_conflict), f"{result.group_accuracy:.4f}", result.exclude_no_group,
    ]  # fmt: skip
    assert "<dt>group accuracy</dt>" in read
    # the same page for the result passed alone
    alone = render_report(result)
    assert '<h3 class="model">captions</h3>' in alone


def test_column_headings_carry_their_meaning(every):
    page = render_report(results={k: every[k] for k in ("mals", "directional-a2t")})
    a2t = _sections(page)["directional-a2t"]
    titles = dict(re.findall(r'<th [^>]*title="([^"]*)"><button[^>]*>([^<]*)</button>', a2t))
    by_column = {column: title for title, column in titles.items()}
    assert by_column["p_true"] == "P(task | group) in the true labels"
    assert by_column["p_pred"] == "P(task | group) in the predictions"
    assert by_column["y"].startswith("the training sign y: +1 when the group and the task")
    assert "sum to the metric&#x27;s value" in by_column["contribution"]
    legend = a2t.split('<dl class="legend">', 1)[1].split("</dl>", 1)[0]
    assert "<dt>p_true</dt><dd>P(task | group) in the true labels</dd>" in legend
    t2a = biasamp.directional(direction="T->A", groups=GROUPS, tasks=TASKS,
                              groups_pred=np.roll(GROUPS, 1))  # fmt: skip
    page = render_report(results={"t2a": t2a})
    assert "<dt>p_true</dt><dd>P(group | task) in the true labels</dd>" in page
    mals = _sections(render_report(results={"mals": every["mals"]}))["mals"]
    assert "<dt>b_train</dt><dd>training bias b*(task, group): P(group | task)" in mals
    # the contributions do sum to the value
    for key in ("mals", "directional-a2t", "multi-mals", "multi-t2a"):
        frame = every[key].by_pair
        assert frame["contribution"].sum() == pytest.approx(every[key].value)


def test_points_outside_the_band_are_listed_with_whether_they_are_named():
    k = 40
    b_train = np.linspace(0.30, 0.32, k)
    comparison = pd.DataFrame(
        {
            "group": ["w"] * k + ["m"] * k,
            "task": [f"t{i}" for i in range(k)] * 2,
            "b_train": np.concatenate([b_train, 1 - b_train]),
            "b_pred": np.concatenate([b_train + np.linspace(0.2, 0.3, k), 0.5 - b_train]),
        }
    )
    result = biasamp.mals(groups_train=GROUPS, tasks_train=TASKS, groups_pred=GROUPS,
                          tasks_pred=PRED)  # fmt: skip
    page = render_report(results={"mals": result}, comparison=comparison)
    table = page.split("<h3>Points outside the band</h3>", 1)[1].split("</table>", 1)[0]
    rows = re.findall(r"<tr>(.*?)</tr>", table)[1:]
    cells = [re.findall(r"<td[^>]*>([^<]*)</td>", row) for row in rows]
    assert len(cells) == k  # every point is outside the 0.05 band
    assert [c[1] for c in cells] == [f"t{i}" for i in reversed(range(k))]  # farthest first
    named = [c[1] for c in cells if c[5] == "yes"]
    assert 1 <= len(named) <= 5 and named[0] == f"t{k - 1}"
    assert cells[0][4] == f"{0.3:+.3f}"

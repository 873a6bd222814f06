"""The HTML report (biasamp.report._html) and the plots (biasamp.results._plotting, PairwiseResult.plot)."""

from __future__ import annotations

import html
import re
import sys

import numpy as np
import pandas as pd
import pytest

from biasamp import directional, mals
from biasamp.report._html import CSP, ERR_IMAGE_FORMAT, render_report
from biasamp.report._tables import SCRIPT, SCRIPT_HASH
from biasamp.results._plotting import ERR_MATPLOTLIB, ERR_PLOT_KIND, plot_text

EVIL = [
    "<script>alert(1)</script>",
    '"><img src=x onerror=alert(1)>',
    "</style><b>x",
    "a & b",
    "$\\frac{1}{0}$",
    "{{7*7}}",
]


@pytest.fixture(scope="module")
def results():
    rng = np.random.default_rng(0)
    n = 200
    groups = rng.choice(EVIL[:2], n)
    tasks = pd.DataFrame((rng.random((n, 4)) < 0.4).astype(int), columns=EVIL[2:])
    pred = pd.DataFrame((rng.random((n, 4)) < 0.4).astype(int), columns=EVIL[2:])
    return {
        "mals": mals(
            groups_train=groups,
            tasks_train=tasks,
            groups_pred=rng.choice(EVIL[:2], n),
            tasks_pred=pred,
        ),
        "a2t": directional(direction="A->T", groups=groups, tasks=tasks, tasks_pred=pred),
    }


def test_every_untrusted_string_is_escaped(results):
    comparison = results["mals"].by_pair[["group", "task", "b_train", "b_pred"]]
    page = render_report(
        results=results,
        comparison=comparison,
        title=EVIL[0],
        inputs=[{"role": "data", "path": EVIL[1], "format": "csv", "rows": 3, "sha256": "0" * 64}],
        settings={"group": EVIL[0], "task_cols": EVIL[2:]},
        warnings=[EVIL[1]],
        labels={"groups": EVIL[:2], "tasks": EVIL[2:]},
        skipped={"x": EVIL[0]},
        image_format="png",
    )
    body = page.split("<body>", 1)[1]
    # scripts: the table data blocks and the one table script, nothing else
    assert set(re.findall(r"<script[^>]*>", page)) == {
        '<script type="application/json" class="table-data">',
        '<script id="table-script">',
    }
    assert page.count(f'<script id="table-script">{SCRIPT}</script>') == 1
    assert page.count("</script>") == page.count("<script")
    assert "<script>alert" not in page and "<img src=x" not in page and "</style><b>" not in body
    assert re.findall(r"<img [^>]*>", page) == re.findall(
        r'<img class="figure" alt="[^"<>]*" src="data:image/png;base64,[A-Za-z0-9+/=]+">', page
    )
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in body
    assert "&quot;&gt;&lt;img src=x onerror=alert(1)&gt;" in body
    assert "a &amp; b" in body
    assert f'content="{CSP.replace(chr(39), "&#x27;")}"' in page
    assert SCRIPT_HASH in CSP and "unsafe-inline" not in CSP.split("script-src")[1].split(";")[0]
    assert "unsafe-eval" not in CSP


def test_report_checks_its_options(results):
    with pytest.raises(ValueError, match=re.escape(ERR_IMAGE_FORMAT.format(got="gif"))):
        render_report(results=results, image_format="gif")
    with pytest.raises(ValueError, match="at least one result"):
        render_report(results={})


def test_plot_returns_axes_and_escapes_mathtext(results):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.axes import Axes

    for kind in ("pairs", "heatmap", "bias"):
        ax = results["mals"].plot(kind)
        assert isinstance(ax, Axes)
        ax.figure.canvas.draw()  # mathtext in a label would raise here
        plt.close(ax.figure)
    fig, ax = plt.subplots()
    assert results["a2t"].plot("heatmap", ax=ax, max_tasks=2) is ax
    assert len(ax.get_xticklabels()) == 2
    plt.close(fig)
    with pytest.raises(
        ValueError, match=re.escape(ERR_PLOT_KIND.format(choices="pairs, heatmap, bias", got="pie"))
    ):
        results["a2t"].plot("pie")
    with pytest.raises(ValueError, match="no 'b_train' column"):
        results["a2t"].plot("bias")
    assert plot_text("$x$") == r"\$x\$" and plot_text("a" * 50).endswith("…")


def test_missing_matplotlib_gives_an_install_hint(results, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(ImportError) as info:
        results["a2t"].plot()
    assert str(info.value) == ERR_MATPLOTLIB
    with pytest.raises(ImportError, match="biasamp\\[plot\\]"):
        render_report(results=results)


def test_bidi_override_in_a_label_is_escaped_not_written_raw():
    rlo = "\u202e"
    groups = np.array([f"m{rlo}an", "woman"])[np.arange(40) % 2]
    tasks = np.array(["cook", f"ski{rlo}", "zero\u200bwidth", "surf"])[np.arange(40) % 4]
    pred = np.roll(tasks, 3)
    result = mals(groups_train=groups, tasks_train=tasks, groups_pred=groups, tasks_pred=pred)
    page = render_report(
        results={"mals": result},
        labels={"groups": [f"m{rlo}an", "woman"]},
        title=f"t{rlo}itle",
        image_format="svg",
    )
    assert rlo not in page and "\u200b" not in page
    assert "m\\u202ean" in page and "ski\\u202e" in page and "zero\\u200bwidth" in page
    import base64

    svgs = [
        base64.b64decode(b).decode("utf-8")
        for b in re.findall(r"data:image/svg\+xml;base64,([A-Za-z0-9+/=]+)", page)
    ]
    assert svgs and all(rlo not in svg for svg in svgs)


def test_group_sizes_and_the_small_group_warning_are_shown(tmp_path):
    import warnings

    import biasamp
    from biasamp import SmallGroupWarning

    frame = pd.DataFrame({"race": ["a", "b", "a", "a"] * 10, "sex": ["f", "m", "m", "f"] * 10})
    groups = biasamp.intersect(frame)
    tasks = np.array(["x", "y", "x", "y"] * 10)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SmallGroupWarning)
        result = directional(
            direction="T->A",
            groups=groups,
            tasks=tasks,
            groups_pred=np.roll(groups.to_numpy(), 1),
            min_group_size=15,
        )
    # evaluation: a x f 20, a x m 10, b x m 10; predicted: a x f 20, a x m 10, b x m 10
    page = render_report(results={"t2a": result})
    section = page.split("<h4>Group sizes</h4>", 1)[1].split("<figure>", 1)[0]
    head = '<th class="l">group</th><th class="">evaluation</th><th class="">predicted</th>'
    assert head in section
    # smallest first; below 15 in the checked split (evaluation) marked, predicted plain
    assert (
        '<tr><td class="l">a x m</td><td class=""><span class="warn">10</span></td>'
        '<td class="">10</td></tr>'
    ) in section
    assert '<tr><td class="l">a x f</td><td class="">20</td><td class="">20</td></tr>' in section
    assert section.index(">a x m<") < section.index(">a x f<")
    assert (
        "SmallGroupWarning: 2 group(s) have fewer than min_group_size=15 rows in the "
        "evaluation split: a x m (10), b x m (10)."
    ) in section
    assert "predicted groups:" not in section
    assert "1 intersection(s) never occur (race x sex): b x f" in section
    # a result saved before sizes were recorded has no section
    result.group_sizes = None
    assert "Group sizes" not in render_report(results={"t2a": result})


def _every_kind_of_result():
    """One result of each kind the library returns (pairs, combinations, group pairs,
    predictability, captions)."""
    import warnings

    import biasamp

    rng = np.random.default_rng(0)
    n = 120
    g = pd.DataFrame({"a": rng.integers(0, 2, n), "b": rng.integers(0, 2, n)})
    t = pd.DataFrame({"x": rng.integers(0, 2, n), "y": rng.integers(0, 2, n)})
    tp = t.sample(frac=1, random_state=0).reset_index(drop=True)
    gl, tl, tlp = rng.choice(["m", "w"], n), rng.choice(["p", "q"], n), rng.choice(["p", "q"], n)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {
            "multi": biasamp.multi_mals(groups_train=g, tasks_train=t, tasks=t, groups_pred=g,
                                        tasks_pred=tp),
            "multi A->T": biasamp.multi_directional(direction="A->T", groups=g, tasks=t,
                                                    tasks_pred=tp, groups_train=g, tasks_train=t),
            "epsilon": biasamp.differential_fairness(groups=gl, labels=tl),
            "epsilon amplification": biasamp.differential_fairness_amplification(
                groups=gl, labels=tl, labels_pred=tlp),
            "dpa": biasamp.dpa(direction="T->A", groups=gl, tasks=tl, groups_pred=gl,
                               attacker="exact", n_iter=2, random_state=0),
            "lic": biasamp.lic(captions_human=[f"a {x} here" for x in gl],
                               captions_model=[f"a {x} there" for x in gl], groups=gl,
                               n_iter=2, random_state=0),
        }  # fmt: skip


def test_every_kind_of_result_renders():
    results = _every_kind_of_result()
    for key, result in results.items():  # was a KeyError ('task') for multi-attribute results
        page = render_report(results={key: result})
        assert f"<h3>{html.escape(key)}: " in page
        assert f"{result.value:+.4f}" in page
    page = render_report(results=results)
    assert page.count("<h3>") >= len(results)
    assert "An Intersectional Definition of Fairness" in page  # its card: meaning, sign, paper

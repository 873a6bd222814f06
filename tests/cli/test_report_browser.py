"""The HTML report in a real browser: headless Chromium over the DevTools protocol.

Checks that the page loads, every figure decodes, nothing is logged to the
console, no request leaves the page (only the file itself and ``data:``
images), untrusted label names show as text and run nothing, and saves a
screenshot (in the test's temporary folder only).

The pair tables: sorting by a column, filtering by text and by group, and paging
give the rows worked out in pandas; without JavaScript the first page shows.
"""

from __future__ import annotations

import base64

import numpy as np
import pandas as pd
import pytest

from biasamp import mals
from biasamp.report import write_report

from .chromium_cdp import Chromium, events_of, find_chromium
from .conftest import XSS_GROUP, XSS_TASK

CHROMIUM = find_chromium()

pytestmark = pytest.mark.skipif(
    CHROMIUM is None,
    reason="chromium is not installed (apt-get install -y chromium; .ci/run installs it)",
)


def assert_quiet(events: list, url: str) -> None:
    """No console output, exception, dialog, CSP violation or other log entry; no network
    request but the file itself and inline ``data:`` images."""
    assert events_of(events, "Runtime.consoleAPICalled") == []
    assert events_of(events, "Runtime.exceptionThrown") == []
    assert events_of(events, "Page.javascriptDialogOpening") == []
    assert [
        e["entry"]
        for e in events_of(events, "Log.entryAdded")
        if e["entry"]["level"] in ("error", "warning")
    ] == []
    requests = [e["request"]["url"] for e in events_of(events, "Network.requestWillBeSent")]
    assert url in requests
    assert [u for u in requests if u != url and not u.startswith("data:image/")] == []


CHECK_PAGE = """(async () => {
  const images = [...document.images];
  const decoded = await Promise.all(images.map(img => img.decode().then(
      () => ({ok: img.complete && img.naturalWidth > 0 && img.naturalHeight > 0,
              src: img.src.slice(0, 30)}),
      err => ({ok: false, src: img.src.slice(0, 30), error: String(err)}))));
  return {
    title: document.title, readyState: document.readyState, images: decoded,
    scripts: document.scripts.length, iframes: document.querySelectorAll('iframe').length,
    injected: document.querySelectorAll(
      'img:not(.figure), script:not(#table-script):not(.table-data), [onerror]').length,
    text: document.body.innerText, height: document.documentElement.scrollHeight,
  };
})()"""


def test_report_renders_in_headless_chromium(indicator_report, tmp_path):
    url = indicator_report["html"].resolve().as_uri()
    with Chromium(CHROMIUM, tmp_path / "profile") as browser:
        browser.open_page()
        for domain in ("Page.enable", "Runtime.enable", "Log.enable", "Network.enable"):
            browser.send(domain)
        browser.send("Page.navigate", {"url": url})
        browser.wait_for_event("Page.loadEventFired")
        page = browser.send(
            "Runtime.evaluate",
            {"expression": CHECK_PAGE, "awaitPromise": True, "returnByValue": True},
        )["result"]["value"]
        shot = browser.send(
            "Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True}
        )
        events = list(browser.events)
    png = base64.b64decode(shot["data"])
    assert png.startswith(b"\x89PNG")
    (tmp_path / "report.png").write_bytes(png)

    assert page["readyState"] == "complete"
    assert page["title"] == "audit <b>bold</b>"
    # bias figure, heatmap and top pairs (with interval bars) of the one metric, threshold sweep
    assert len(page["images"]) == 4
    assert all(img["ok"] for img in page["images"]), page["images"]
    # the table script and one data block per pair table, nothing injected
    assert page["scripts"] == 2 and page["iframes"] == 0 and page["injected"] == 0
    # untrusted names come out as text
    assert XSS_GROUP in page["text"] and XSS_TASK in page["text"]
    assert page["height"] > 1000
    assert_quiet(events, url)
    assert events_of(events, "Network.loadingFailed") == []


N_GROUPS, N_TASKS = 6, 120
RLO = "\u202e"
GROUP_NAMES = [f"g{i}" for i in range(N_GROUPS - 2)] + [XSS_GROUP, f"bidi{RLO}group"]
TASK_NAMES = [f"task{i:04d}" for i in range(N_TASKS - 1)] + [XSS_TASK]


@pytest.fixture(scope="module")
def pairs_report(tmp_path_factory):
    """A report of one MALS result with 6 groups x 120 tasks (720 pairs)."""
    rng = np.random.default_rng(11)
    n = 6000
    groups = rng.choice(GROUP_NAMES, n)
    tasks = rng.choice(TASK_NAMES, n)
    pred = np.where(rng.random(n) < 0.6, tasks, rng.choice(TASK_NAMES, n))
    result = mals(groups_train=groups, tasks_train=tasks, groups_pred=groups, tasks_pred=pred)
    path = tmp_path_factory.mktemp("pairs") / "pairs.html"
    write_report(path, results={"mals": result}, image_format="png")
    return path, result.by_pair


def _open(browser: Chromium, url: str, *, javascript: bool = True) -> None:
    browser.open_page()
    for domain in ("Page.enable", "Runtime.enable", "Log.enable", "Network.enable"):
        browser.send(domain)
    if not javascript:
        browser.send("Emulation.setScriptExecutionDisabled", {"value": True})
    browser.send("Page.navigate", {"url": url})
    browser.wait_for_event("Page.loadEventFired")


def _run(browser: Chromium, expression: str):
    reply = browser.send(
        "Runtime.evaluate",
        {"expression": expression, "returnByValue": True, "awaitPromise": True},
    )
    assert "exceptionDetails" not in reply, reply
    return reply["result"]["value"]


TABLE = """(() => {
  const section = document.querySelector('section.pairs');
  return {
    rows: [...section.querySelector('tbody').rows].map(r => [...r.cells].map(c => c.textContent)),
    status: section.querySelector('.status').textContent,
    controls: !section.querySelector('.controls').hidden,
  };
})()"""


def _act(js: str) -> str:
    return (
        "(() => { const s = document.querySelector('section.pairs');"
        "const button = name => [...s.querySelectorAll('th button')].find(b => b.textContent === name);"
        "const set = (el, v, ev) => { el.value = v; el.dispatchEvent(new Event(ev)); };"
        f"{js}; return true; }})()"
    )


def _expected(frame: pd.DataFrame) -> list[list[str]]:
    return [
        [g if RLO not in g else g.replace(RLO, "\\u202e"), t, f"{c:+.5f}"]
        for g, t, c in zip(frame["group"], frame["task"], frame["contribution"], strict=True)
    ]


def _shown(rows: list[list[str]]) -> list[list[str]]:
    return [[r[0], r[1], r[-1]] for r in rows]


def test_pair_tables_sort_filter_and_page(pairs_report, tmp_path):
    path, frame = pairs_report
    by_size = frame.assign(_abs=frame["contribution"].abs())
    url = path.resolve().as_uri()
    with Chromium(CHROMIUM, tmp_path / "profile") as browser:
        _open(browser, url)
        first = _run(browser, TABLE)
        _run(browser, _act("button('delta').click()"))  # delta, largest first
        by_delta = _run(browser, TABLE)
        _run(browser, _act("button('delta').click()"))  # again: smallest first
        by_delta_up = _run(browser, TABLE)
        _run(browser, _act("s.querySelector('button.next').click()"))
        page_two = _run(browser, TABLE)
        _run(browser, _act("button('task').click()"))  # names, A to Z
        by_task = _run(browser, TABLE)
        _run(browser, _act("set(s.querySelector('input.search'), 'TASK001', 'input')"))
        searched = _run(browser, TABLE)
        _run(browser, _act("set(s.querySelector('input.search'), '', 'input')"))
        pick = (
            "const g = s.querySelector('select.group');"
            "set(g, [...g.options].find(o => o.textContent.startsWith('bidi')).value, 'change')"
        )
        _run(browser, _act(pick))
        one_group = _run(browser, TABLE)
        _run(browser, _act("set(s.querySelector('select.size'), '500', 'change')"))
        one_group_all = _run(browser, TABLE)
        injected = _run(
            browser,
            "document.querySelectorAll('script:not(#table-script):not(.table-data), "
            "img:not(.figure), [onerror]').length",
        )
        events = list(browser.events)

    # first page: |contribution|, largest first (ties in table order), 25 rows
    order = by_size.sort_values("_abs", ascending=False, kind="stable")
    assert first["controls"] and len(first["rows"]) == 25
    assert _shown(first["rows"]) == _expected(order.head(25))
    assert first["status"].startswith(f"rows 1-25 of {len(frame)}")
    delta = frame["delta"].to_numpy()
    assert np.isfinite(delta).all()
    down = frame.iloc[np.lexsort((np.arange(len(frame)), -delta))]
    up = frame.iloc[np.lexsort((np.arange(len(frame)), delta))]
    assert _shown(by_delta["rows"]) == _expected(down.head(25))
    assert _shown(by_delta_up["rows"]) == _expected(up.head(25))
    assert _shown(page_two["rows"]) == _expected(up.iloc[25:50])
    assert page_two["status"].startswith(f"rows 26-50 of {len(frame)}")
    # task names sort A to Z (stable: table order within a task); the XSS name starts with '"'
    tasks = frame.assign(_pos=np.arange(len(frame))).sort_values(
        ["task", "_pos"], key=lambda c: c.str.lower() if c.dtype == object else c
    )
    assert [r[1] for r in by_task["rows"]] == list(tasks["task"].head(25))
    # text filter (case-insensitive): task0010..task0019 in every group
    hit = frame[frame["task"].str.contains("task001")]
    assert len(hit) == 10 * N_GROUPS
    assert searched["status"].startswith(f"rows 1-25 of {len(hit)} (filtered from {len(frame)})")
    assert all("task001" in r[1] for r in searched["rows"])
    # group filter: the bidi group, shown escaped
    assert one_group_all["status"].startswith(f"rows 1-{N_TASKS} of {N_TASKS}")
    assert {r[0] for r in one_group_all["rows"]} == {"bidi\\u202egroup"}
    assert len(one_group["rows"]) == 25
    # labels stay text: the XSS names show as written, no element injected, no raw bidi
    texts = {r[1] for r in one_group_all["rows"]}
    assert XSS_TASK in texts and injected == 0
    assert all(RLO not in cell for r in one_group_all["rows"] for cell in r)
    assert_quiet(events, url)


def test_pair_tables_show_their_first_page_without_javascript(pairs_report, tmp_path):
    path, frame = pairs_report
    url = path.resolve().as_uri()
    with Chromium(CHROMIUM, tmp_path / "profile") as browser:
        _open(browser, url, javascript=False)
        browser.send("Emulation.setScriptExecutionDisabled", {"value": False})
        page = _run(browser, TABLE)  # reads the page as it was rendered without scripts
    order = frame.assign(_abs=frame["contribution"].abs()).sort_values(
        "_abs", ascending=False, kind="stable"
    )
    assert not page["controls"]
    assert _shown(page["rows"]) == _expected(order.head(25))
    assert page["status"].startswith(f"rows 1-25 of {len(frame)}; sorted by |contribution|")


def test_comparison_page_renders_quietly(tmp_path):
    from biasamp import compare, directional
    from biasamp.report import write_comparison

    rng = np.random.default_rng(8)
    groups = rng.choice([XSS_GROUP, "w"], 400)
    tasks = rng.choice(["a", "b", XSS_TASK], 400)
    results = {}
    for e in range(1, 4):
        pred = np.where(rng.random(400) < 0.1 * e, np.roll(tasks, 1), tasks)
        results[f"{XSS_GROUP} {e}"] = directional(
            direction="A->T", groups=groups, tasks=tasks, tasks_pred=pred, n_boot=30, random_state=0
        )
    perf = {m: {"epoch": i, "accuracy": 1 - i / 10} for i, m in enumerate(results, start=1)}
    path = write_comparison(
        tmp_path / "compare.html", compare(results, performance=perf), x="epoch"
    )
    url = path.resolve().as_uri()
    with Chromium(CHROMIUM, tmp_path / "profile") as browser:
        _open(browser, url)
        page = _run(browser, CHECK_PAGE)
        events = list(browser.events)
    assert len(page["images"]) == 2 and all(img["ok"] for img in page["images"])
    assert page["scripts"] == 0 and page["injected"] == 0
    assert f"{XSS_GROUP} 1" in page["text"]
    assert_quiet(events, url)


EXPLAINED = """(() => {
  const sections = [...document.querySelectorAll('h3')].filter(h => h.nextElementSibling
      && h.nextElementSibling.classList.contains('meaning'));
  return {
    sections: sections.map(h => ({
      heading: h.textContent,
      meaning: h.nextElementSibling.textContent,
      sign: h.nextElementSibling.nextElementSibling.textContent,
    })),
    titles: [...document.querySelectorAll('section.pairs th[title]')].map(
        th => [th.textContent, th.title]),
    legends: document.querySelectorAll('dl.legend').length,
    bars: [...document.querySelectorAll('img.figure')].filter(img => img.alt.endsWith(': top pairs'))
        .map(img => ({alt: img.alt, ok: img.complete && img.naturalWidth > 0, src: img.src})),
  };
})()"""


def _bar_fills(src: str) -> dict[str, str]:
    """The fill colour of each ``top-pair-{i}`` bar of an SVG ``data:`` URI."""
    import re
    import xml.etree.ElementTree as ET

    svg = base64.b64decode(src.split(",", 1)[1]).decode("utf-8")
    fills = {}
    for group in ET.fromstring(svg).iter("{http://www.w3.org/2000/svg}g"):
        gid = group.get("id", "")
        if gid.startswith("top-pair-"):
            path = next(group.iter("{http://www.w3.org/2000/svg}path"))
            fills[gid] = re.search(r"fill:\s*(#[0-9a-f]{6})", path.get("style", "")).group(1)
    return fills


def test_report_explains_itself_and_colours_bars_by_contribution(tmp_path):
    from biasamp import directional
    from biasamp.registry import metric_card
    from biasamp.results._plotting import LOWERS_COLOR, RAISES_COLOR

    rng = np.random.default_rng(4)
    n = 600
    groups = rng.choice(["m", "w"], n)
    tasks = (rng.random((n, 4)) < np.where(groups == "m", 0.6, 0.3)[:, None]).astype(int)
    pred = np.where(rng.random((n, 4)) < 0.25, 1 - tasks, tasks)
    frame = pd.DataFrame(tasks, columns=list("abcd"))
    results = {
        "directional-a2t": directional(
            direction="A->T", groups=groups, tasks=frame, tasks_pred=pred
        ),
        "mals": mals(groups_train=groups, tasks_train=frame, groups_pred=groups, tasks_pred=pred),
    }
    top = results["directional-a2t"].top(10)
    # a bar whose delta is positive and whose contribution lowers the value
    assert ((top["delta"] > 0) & (top["contribution"] < 0)).any()
    path = write_report(tmp_path / "explained.html", results=results, top=10)
    url = path.resolve().as_uri()
    with Chromium(CHROMIUM, tmp_path / "profile") as browser:
        _open(browser, url)
        page = _run(browser, EXPLAINED)
        events = list(browser.events)
    assert_quiet(events, url)
    # each metric section opens with the registry's meaning and sign, as shown text
    shown = {s["heading"].split(":", 1)[0]: s for s in page["sections"]}
    assert list(shown) == list(results)
    for key, section in shown.items():
        card = metric_card(key)
        assert section["meaning"] == card.meaning and section["sign"] == card.sign
    # column headings carry their meaning (tooltip) and each table has a legend
    titles = dict(page["titles"])
    assert titles["p_true"] == "P(task | group) in the true labels"
    assert titles["y"].startswith("the training sign y")
    assert "sum to the metric's value" in titles["contribution"]
    assert page["legends"] == 2
    # bars: one per pair, coloured by the sign of the pair's contribution, not of delta
    assert len(page["bars"]) == 2 and all(b["ok"] for b in page["bars"])
    for figure in page["bars"]:
        key = figure["alt"].removesuffix(": top pairs")
        pairs = results[key].top(10)
        fills = _bar_fills(figure["src"])
        assert len(fills) == len(pairs)
        expected = {
            f"top-pair-{i}": RAISES_COLOR if c > 0 else LOWERS_COLOR
            for i, c in enumerate(pairs["contribution"])
            if c != 0
        }
        assert expected and {k: fills[k] for k in expected} == expected

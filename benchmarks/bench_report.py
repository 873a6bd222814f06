"""The HTML report at scale: file size and first paint in headless Chromium.

Run: ``python benchmarks/bench_report.py [--tasks 1000] [--groups 10] [--repeat 3]``.

Workload: MALS, directional A->T and T->A (each with a 200-replicate bootstrap, so
the pair tables carry per-pair intervals) on 200,000 synthetic rows with
``--tasks`` single-label tasks and ``--groups`` groups: three pair tables of
``tasks x groups`` rows each, every row in the page's data. Prints the time to
render, the file size, and, per load in a fresh headless Chromium (``/usr/bin/chromium``,
driven over the DevTools pipe as in ``tests/cli/chromium_cdp.py``), the first paint,
first contentful paint and the time until the table script has rendered every
table (``performance.now()`` after load), the best of ``--repeat`` loads.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import biasamp
from biasamp.report import write_report

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.cli.chromium_cdp import Chromium, find_chromium  # noqa: E402

TIMING = """(() => {
  const paint = Object.fromEntries(performance.getEntriesByType('paint').map(e => [e.name, e.startTime]));
  const nav = performance.getEntriesByType('navigation')[0];
  return {first_paint: paint['first-paint'], first_contentful_paint: paint['first-contentful-paint'],
          dom_content_loaded: nav.domContentLoadedEventEnd, load: nav.loadEventEnd,
          rows: document.querySelectorAll('section.pairs tbody tr').length,
          controls: document.querySelectorAll('section.pairs .controls:not([hidden])').length};
})()"""

#: Time (ms) to re-sort, filter and page the first table in the page, in the page itself.
INTERACT = """(() => {
  const s = document.querySelector('section.pairs');
  const head = name => [...s.querySelectorAll('th button')].find(b => b.textContent === name);
  const time = f => { const t0 = performance.now(); f(); return performance.now() - t0; };
  const search = s.querySelector('input.search');
  return {
    sort_by_delta: time(() => head('delta').click()),
    sort_by_task: time(() => head('task').click()),
    filter_text: time(() => { search.value = 'object 12'; search.dispatchEvent(new Event('input')); }),
    next_page: time(() => s.querySelector('button.next').click()),
    rows: s.querySelectorAll('tbody tr').length,
  };
})()"""


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tasks", type=int, default=1000)
    parser.add_argument("--groups", type=int, default=10)
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    groups = rng.integers(0, args.groups, args.rows).astype(str)
    tasks = np.char.add("object ", rng.integers(0, args.tasks, args.rows).astype(str))
    flip = rng.random(args.rows) < 0.3
    tasks_pred = np.where(flip, np.roll(tasks, 1), tasks)
    groups_pred = np.where(rng.random(args.rows) < 0.2, np.roll(groups, 1), groups)
    common = {"n_boot": 200, "random_state": 0}
    results = {
        "mals": biasamp.mals(
            groups_train=groups,
            tasks_train=tasks,
            groups_pred=groups_pred,
            tasks_pred=tasks_pred,
            **common,
        ),
        "A->T": biasamp.directional(
            direction="A->T", groups=groups, tasks=tasks, tasks_pred=tasks_pred, **common
        ),
        "T->A": biasamp.directional(
            direction="T->A", groups=groups, tasks=tasks, groups_pred=groups_pred, **common
        ),
    }
    chromium = find_chromium()
    # the driver hands the browser its pipes as fds 3 and 4: keep those numbers taken here
    # (as they are under pytest) so that the pipes themselves are opened above them
    reserved = [os.open(os.devnull, os.O_RDONLY) for _ in range(2)]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "report.html"
        start = time.perf_counter()
        write_report(path, results=results, title="benchmark")
        render = time.perf_counter() - start
        size = path.stat().st_size
        pairs = sum(len(r.by_pair) for r in results.values())
        print("| tasks x groups | pair rows | render (s) | file (MB) |")
        print(f"| {args.tasks} x {args.groups} | {pairs} | {render:.2f} | {size / 1e6:.2f} |")
        if chromium is None:
            print("no chromium: first paint not measured")
            return
        loads = []
        for i in range(args.repeat):
            with Chromium(chromium, Path(folder) / f"profile{i}") as browser:
                browser.open_page()
                browser.send("Page.enable")
                browser.send("Page.navigate", {"url": path.as_uri()})
                browser.wait_for_event("Page.loadEventFired")
                evaluate = {"returnByValue": True}
                timing = browser.send("Runtime.evaluate", {"expression": TIMING, **evaluate})
                interact = browser.send("Runtime.evaluate", {"expression": INTERACT, **evaluate})
                loads.append({**timing["result"]["value"], "interact": interact["result"]["value"]})
        for fd in reserved:
            os.close(fd)
        best = min(loads, key=lambda t: t["first_contentful_paint"])
        print()
        print(
            "| load | first paint (ms) | first contentful paint (ms) | DOMContentLoaded (ms) | load (ms) |"
        )
        for i, t in enumerate(loads, 1):
            print(
                f"| {i} | {t['first_paint']:.0f} | {t['first_contentful_paint']:.0f} | "
                f"{t['dom_content_loaded']:.0f} | {t['load']:.0f} |"
            )
        print()
        print(
            "| load | sort by delta (ms) | sort by task (ms) | text filter (ms) | next page (ms) |"
        )
        for i, t in enumerate(loads, 1):
            x = t["interact"]
            print(
                f"| {i} | {x['sort_by_delta']:.0f} | {x['sort_by_task']:.0f} | "
                f"{x['filter_text']:.0f} | {x['next_page']:.0f} |"
            )
        print(
            f"best first contentful paint: {best['first_contentful_paint']:.0f} ms; "
            f"rows rendered {best['rows']}, tables live {best['controls']}"
        )


if __name__ == "__main__":
    main()

"""The HTML report in a real browser: headless Chromium over the DevTools protocol.

Checks that the page loads, every figure decodes, nothing is logged to the
console, no request leaves the page (only the file itself and ``data:``
images), untrusted label names show as text and run nothing, and saves a
screenshot (in the test's tmp dir and in the git-ignored ``artifacts/``).
"""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from .chromium_cdp import Chromium, events_of, find_chromium
from .conftest import XSS_GROUP, XSS_TASK

CHROMIUM = find_chromium()
ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"

pytestmark = pytest.mark.skipif(
    CHROMIUM is None,
    reason="chromium is not installed (apt-get install -y chromium; .ci/run installs it)",
)

CHECK_PAGE = """(async () => {
  const images = [...document.images];
  const decoded = await Promise.all(images.map(img => img.decode().then(
      () => ({ok: img.complete && img.naturalWidth > 0 && img.naturalHeight > 0,
              src: img.src.slice(0, 30)}),
      err => ({ok: false, src: img.src.slice(0, 30), error: String(err)}))));
  return {
    title: document.title, readyState: document.readyState, images: decoded,
    scripts: document.scripts.length, iframes: document.querySelectorAll('iframe').length,
    injected: document.querySelectorAll('img:not(.figure), script, [onerror]').length,
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
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "report-screenshot.png").write_bytes(png)

    assert page["readyState"] == "complete"
    assert page["title"] == "audit <b>bold</b>"
    # bias figure, heatmap and top pairs (with interval bars) of the one metric, threshold sweep
    assert len(page["images"]) == 4
    assert all(img["ok"] for img in page["images"]), page["images"]
    assert page["scripts"] == 0 and page["iframes"] == 0 and page["injected"] == 0
    # untrusted names come out as text
    assert XSS_GROUP in page["text"] and XSS_TASK in page["text"]
    assert page["height"] > 1000
    # no console output, no exception, no dialog, no CSP violation or other log entry
    assert events_of(events, "Runtime.consoleAPICalled") == []
    assert events_of(events, "Runtime.exceptionThrown") == []
    assert events_of(events, "Page.javascriptDialogOpening") == []
    assert [
        e["entry"]
        for e in events_of(events, "Log.entryAdded")
        if e["entry"]["level"] in ("error", "warning")
    ] == []
    # no network request: only the file itself and inline data: images
    requests = [e["request"]["url"] for e in events_of(events, "Network.requestWillBeSent")]
    assert url in requests
    assert [u for u in requests if u != url and not u.startswith("data:image/")] == []
    assert events_of(events, "Network.loadingFailed") == []

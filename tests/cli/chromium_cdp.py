"""A minimal headless-Chromium driver over the DevTools protocol, standard library only.

Chromium is started with ``--remote-debugging-pipe``: it reads protocol
commands from file descriptor 3 and writes responses and events to file
descriptor 4, as NUL-terminated JSON messages. No websocket, no port, no
third-party package.
"""

from __future__ import annotations

import fcntl
import json
import os
import queue
import shutil
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

CHROMIUM_CANDIDATES = (
    "/usr/bin/chromium",
    "/usr/bin/chromium-browser",
    "chromium",
    "chromium-browser",
    "google-chrome",
)

#: Flags: headless, no sandbox (containers), nothing that talks to the network.
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-quic",
    "--disable-extensions",
    "--disable-dev-shm-usage",
    "--disable-features=Translate,MediaRouter,OptimizationHints",
    "--mute-audio",
    "--hide-scrollbars",
    "--remote-debugging-pipe",
)


def find_chromium() -> str | None:
    """The path of a Chromium executable, or None."""
    for name in CHROMIUM_CANDIDATES:
        path = (
            shutil.which(name)
            if not name.startswith("/")
            else (name if os.path.exists(name) else None)
        )
        if path:
            return path
    return None


class CDPError(RuntimeError):
    """The browser answered a command with an error, or did not answer in time."""


class Chromium:
    """A headless Chromium with one page, driven over ``--remote-debugging-pipe``."""

    def __init__(self, executable: str, user_data_dir: Path, *, timeout: float = 30.0) -> None:
        self.timeout = timeout
        self.events: list[dict[str, Any]] = []
        self._inbox: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self._next_id = 0
        cmd_read, self._cmd_write = os.pipe()
        self._out_read, out_write = os.pipe()

        def child_fds() -> None:  # runs in the child before exec: fd 3 = commands, 4 = output
            a = fcntl.fcntl(cmd_read, fcntl.F_DUPFD, 10)
            b = fcntl.fcntl(out_write, fcntl.F_DUPFD, 10)
            os.dup2(a, 3)
            os.dup2(b, 4)

        self.process = subprocess.Popen(
            [executable, *CHROMIUM_FLAGS, f"--user-data-dir={user_data_dir}", "about:blank"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            pass_fds=(3, 4),
            preexec_fn=child_fds,
        )
        os.close(cmd_read)
        os.close(out_write)
        self._reader = threading.Thread(target=self._read_loop, daemon=True)
        self._reader.start()
        self.session: str | None = None

    def _read_loop(self) -> None:
        buffer = b""
        with os.fdopen(self._out_read, "rb", buffering=0) as stream:
            while True:
                data = stream.read(1 << 16)
                if not data:
                    break
                buffer += data
                while b"\0" in buffer:
                    message, buffer = buffer.split(b"\0", 1)
                    self._inbox.put(json.loads(message))
        self._inbox.put(None)

    def send(
        self, method: str, params: dict[str, Any] | None = None, *, session: bool = True
    ) -> dict[str, Any]:
        """Send a command and wait for its answer (events seen meanwhile are kept)."""
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params or {}}
        if session and self.session is not None:
            message["sessionId"] = self.session
        os.write(self._cmd_write, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + self.timeout
        while True:
            reply = self._receive(deadline, method)
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise CDPError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def _receive(self, deadline: float, waiting_for: str) -> dict[str, Any]:
        remaining = deadline - time.monotonic()
        try:
            message = self._inbox.get(timeout=max(remaining, 0.01))
        except queue.Empty as exc:
            raise CDPError(f"no answer to {waiting_for} within {self.timeout} s") from exc
        if message is None:
            err = self.process.stderr.read().decode(errors="replace") if self.process.stderr else ""
            raise CDPError(f"the browser exited while waiting for {waiting_for}: {err[-2000:]}")
        return message

    def wait_for_event(self, method: str) -> dict[str, Any]:
        """Wait for an event of the attached page (or return one already seen)."""
        for event in self.events:
            if event.get("method") == method:
                return event
        deadline = time.monotonic() + self.timeout
        while True:
            message = self._receive(deadline, method)
            self.events.append(message)
            if message.get("method") == method:
                return message

    def open_page(self) -> None:
        """Attach to the initial page target (flattened session)."""
        targets = self.send("Target.getTargets", session=False)["targetInfos"]
        page = next(t for t in targets if t["type"] == "page")
        self.session = self.send(
            "Target.attachToTarget", {"targetId": page["targetId"], "flatten": True}, session=False
        )["sessionId"]

    def close(self) -> None:
        try:
            self.send("Browser.close", session=False)
        except CDPError:
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)
        os.close(self._cmd_write)
        if self.process.stderr:
            self.process.stderr.close()

    def __enter__(self) -> Chromium:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def events_of(events: list[dict[str, Any]], method: str) -> list[dict[str, Any]]:
    return [e["params"] for e in events if e.get("method") == method]

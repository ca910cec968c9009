"""Test helper: a headless Chromium driven over the DevTools protocol on a pipe (no extra
package, no debugging port): open a page, run JavaScript in it, wait for it, take a
screenshot. Chromium's messages are JSON, each ended by a NUL byte, on file descriptors 3
(to it) and 4 (from it)."""

from __future__ import annotations

import base64
import contextlib
import fcntl
import json
import os
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest


def chromium_path() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    pytest.fail("no Chromium: install it (apt-get install -y chromium); CI's .ci/run does")


class Browser:
    """One headless Chromium with one page."""

    def __init__(self, tmp_path: Path, width: int = 1100, height: int = 800) -> None:
        to_r, self._to = os.pipe()
        self._from, from_w = os.pipe()

        def fds() -> None:  # in the child: the protocol's two descriptors
            # by way of descriptors above both (a pipe may already be 3 or 4, and dup2 onto
            # itself would leave it closed at exec)
            high = [fcntl.fcntl(fd, fcntl.F_DUPFD, 10) for fd in (to_r, from_w)]
            os.dup2(high[0], 3)
            os.dup2(high[1], 4)

        self.proc = subprocess.Popen(
            [
                chromium_path(),
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--remote-debugging-pipe",
                f"--user-data-dir={tmp_path / 'chromium-profile'}",
                "about:blank",
            ],
            preexec_fn=fds,
            close_fds=False,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env={**os.environ, "HOME": str(tmp_path)},
        )
        os.close(to_r)
        os.close(from_w)
        self._buf = b""
        self._id = 0
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.call("Target.attachToTarget", targetId=target, flatten=True)[
            "sessionId"
        ]
        self.page("Emulation.setDeviceMetricsOverride", width=width, height=height,
                  deviceScaleFactor=1, mobile=False)  # fmt: skip

    def call(self, method: str, session: str | None = None, **params: Any) -> dict[str, Any]:
        self._id += 1
        msg: dict[str, Any] = {"id": self._id, "method": method, "params": params}
        if session:
            msg["sessionId"] = session
        os.write(self._to, json.dumps(msg).encode() + b"\0")
        while True:
            while b"\0" not in self._buf:
                chunk = os.read(self._from, 1 << 16)
                if not chunk:
                    raise RuntimeError("Chromium closed its pipe")
                self._buf += chunk
            raw, self._buf = self._buf.split(b"\0", 1)
            answer = json.loads(raw)
            if answer.get("id") == self._id:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                return answer.get("result", {})

    def page(self, method: str, **params: Any) -> dict[str, Any]:
        return self.call(method, self.session, **params)

    def go(self, url: str) -> None:
        self.page("Page.navigate", url=url)
        self.wait("document.readyState === 'complete'")

    def js(self, expression: str) -> Any:
        got = self.page("Runtime.evaluate", expression=expression, returnByValue=True)
        if "exceptionDetails" in got:
            raise AssertionError(f"{expression}: {got['exceptionDetails']}")
        return got["result"].get("value")

    def wait(self, expression: str, timeout: float = 20) -> Any:
        end = time.monotonic() + timeout
        while True:
            try:
                value = self.js(expression)
            except AssertionError:  # a page between two loads: not yet
                value = None
            if value:
                return value
            if time.monotonic() > end:
                raise AssertionError(f"never true: {expression}")
            time.sleep(0.05)

    def screenshot(self, path: Path) -> Path:
        data = self.page("Page.captureScreenshot", format="png")["data"]
        path.write_bytes(base64.b64decode(data))
        return path

    def close(self) -> None:
        with contextlib.suppress(RuntimeError, OSError):
            self.call("Browser.close")
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self._to)
        os.close(self._from)

"""A small driver for headless Chromium over the Chrome DevTools Protocol (no browser download).

It starts the system's ``chromium`` (Debian's package), talks to it over a
WebSocket with the ``websocket-client`` package, and records every payload
each page receives: every WebSocket frame and every ``/api/`` response body.
Used by the browser tests and by ``docs/make_screenshots.py``.
"""

from __future__ import annotations

import base64
import json
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any, ClassVar

import websocket

__all__ = ["Browser", "Page", "chromium"]


def chromium() -> str | None:
    """The path of the system's Chromium, or None."""
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


class _Connection:
    """One DevTools WebSocket: commands with ids, events kept in order."""

    def __init__(self, url: str) -> None:
        self._socket = websocket.create_connection(url, timeout=60, suppress_origin=True)
        self._next = 0
        self.events: list[dict[str, Any]] = []

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        self._next += 1
        number = self._next
        self._socket.send(json.dumps({"id": number, "method": method, "params": params}))
        while True:
            message = json.loads(self._socket.recv())
            if message.get("id") == number:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                result: dict[str, Any] = message.get("result", {})
                return result
            if "method" in message:
                self.events.append(message)

    def pump(self, seconds: float) -> None:
        """Read the events that arrive within ``seconds``."""
        self._socket.settimeout(seconds)
        try:
            while True:
                message = json.loads(self._socket.recv())
                if "method" in message:
                    self.events.append(message)
        except websocket.WebSocketTimeoutException:
            pass
        finally:
            self._socket.settimeout(60)

    @property
    def closed(self) -> bool:
        return not self._socket.connected

    def close(self) -> None:
        self._socket.close()


class Page:
    """One tab, with every payload it received (:attr:`frames`, :attr:`responses`)."""

    def __init__(self, url: str) -> None:
        self._cdp = _Connection(url)
        self._cdp.call("Page.enable")
        self._cdp.call("Runtime.enable")
        self._cdp.call("Network.enable")
        self._seen = 0
        #: Every WebSocket frame received, as text.
        self.frames: list[str] = []
        #: Every body of an ``/api/`` response, as text.
        self.responses: list[str] = []
        self._api: dict[str, str] = {}

    def _collect(self) -> None:
        events = self._cdp.events
        while self._seen < len(events):
            event = events[self._seen]
            self._seen += 1
            method, params = event["method"], event.get("params", {})
            if method == "Network.webSocketFrameReceived":
                self.frames.append(params["response"]["payloadData"])
            elif method == "Network.responseReceived" and "/api/" in params["response"]["url"]:
                self._api[params["requestId"]] = params["response"]["url"]
            elif method == "Network.loadingFinished" and params["requestId"] in self._api:
                request = self._api.pop(params["requestId"])
                body = self._cdp.call("Network.getResponseBody", requestId=params["requestId"])
                text = body["body"]
                if body.get("base64Encoded"):
                    text = base64.b64decode(text).decode()
                self.responses.append(text)
                del request

    def size(self, width: int, height: int, *, mobile: bool = False) -> None:
        """Make the viewport ``width`` by ``height`` CSS pixels."""
        self._cdp.call(
            "Emulation.setDeviceMetricsOverride",
            width=width,
            height=height,
            deviceScaleFactor=1,
            mobile=mobile,
        )

    def to_front(self) -> None:
        """Make this tab the one in front, as the page a person's keys go to (keys scroll it)."""
        self._cdp.call("Page.bringToFront")

    def reduced_motion(self, reduce: bool) -> None:
        """Emulate the ``prefers-reduced-motion: reduce`` media feature (or stop emulating it)."""
        value = "reduce" if reduce else "no-preference"
        features = [{"name": "prefers-reduced-motion", "value": value}]
        self._cdp.call("Emulation.setEmulatedMedia", features=features)

    def go(self, url: str) -> None:
        """Open ``url`` and wait for its load."""
        self._cdp.call("Page.navigate", url=url)
        self.wait("document.readyState === 'complete'")

    def js(self, expression: str) -> Any:
        """The value of ``expression`` in the page (promises awaited)."""
        result = self._cdp.call(
            "Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True
        )
        self._collect()
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait(self, expression: str, timeout: float = 30.0) -> Any:
        """Wait until ``expression`` is truthy in the page; its value.

        The value must be JSON (a DOM node comes back as ``{}``: wrap it in
        ``Boolean(...)``).
        """
        deadline = time.monotonic() + timeout
        while True:
            value = self.js(expression)
            if value:
                return value
            if time.monotonic() > deadline:
                raise TimeoutError(f"still false after {timeout} s: {expression}")
            self._cdp.pump(0.05)
            self._collect()

    def click(self, selector: str) -> None:
        """Click the middle of the first element matching ``selector``, as a mouse does."""
        box = self.js(
            f"""(() => {{
            const node = document.querySelector({json.dumps(selector)});
            if (!node) return null;
            node.scrollIntoView({{block: "center", inline: "center"}});
            const r = (node.querySelector("circle") || node).getBoundingClientRect();
            return [r.left + r.width / 2, r.top + r.height / 2];
            }})()"""
        )
        if box is None:
            raise LookupError(f"nothing matches {selector}")
        x, y = box
        for kind in ("mousePressed", "mouseReleased"):
            self._cdp.call(
                "Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left", clickCount=1
            )
        self._collect()

    #: The keys :meth:`key` presses: the DOM's key name, its ``code`` and Windows key code,
    #: and the text it types (a button acts on the keypress of Enter or Space).
    _KEYS: ClassVar[dict[str, tuple[str, int, str]]] = {
        "ArrowRight": ("ArrowRight", 39, ""),
        "ArrowLeft": ("ArrowLeft", 37, ""),
        "ArrowUp": ("ArrowUp", 38, ""),
        "ArrowDown": ("ArrowDown", 40, ""),
        "End": ("End", 35, ""),
        "Home": ("Home", 36, ""),
        "PageUp": ("PageUp", 33, ""),
        "PageDown": ("PageDown", 34, ""),
        "Enter": ("Enter", 13, "\r"),
        " ": ("Space", 32, " "),
        "Tab": ("Tab", 9, ""),
        "Escape": ("Escape", 27, ""),
    }

    def key(self, name: str, *, shift: bool = False) -> None:
        """Press and release the key ``name`` (``"ArrowRight"``, ``"End"``, ``"Tab"``, ``" "``).

        A key that types text (Enter, Space) is sent as Chromium's keyboard
        sends it, so that a focused button acts on it; ``shift`` holds Shift.
        """
        code, number, text = self._KEYS[name]
        common: dict[str, Any] = {
            "key": name,
            "code": code,
            "windowsVirtualKeyCode": number,
            "modifiers": 8 if shift else 0,
        }
        if text:
            self._cdp.call("Input.dispatchKeyEvent", type="keyDown", text=text, **common)
        else:
            self._cdp.call("Input.dispatchKeyEvent", type="rawKeyDown", **common)
        self._cdp.call("Input.dispatchKeyEvent", type="keyUp", **common)
        self._collect()

    def screenshot(self, path: Path, width: int, height: int | None = None) -> None:
        """A PNG of the page, ``width`` CSS pixels wide: all of it, or a ``height`` tall screen."""
        self.size(width, height or 800, mobile=width < 500)
        self.js("window.scrollTo(0, 0)")
        if height is None:
            height = min(int(self.js("document.documentElement.scrollHeight")), 2400)
        self.size(width, height, mobile=width < 500)
        self._cdp.pump(0.3)
        shot = self._cdp.call("Page.captureScreenshot", format="png")
        path.write_bytes(base64.b64decode(shot["data"]))

    def close(self) -> None:
        """Stop talking to the tab (again: nothing)."""
        if self._cdp.closed:
            return
        self._collect()
        self._cdp.close()


class Browser:
    """A headless Chromium of its own (a fresh profile), closed by :meth:`close`."""

    def __init__(self, executable: str) -> None:
        self._profile = tempfile.mkdtemp(prefix="sniff-chromium-")
        self._process = subprocess.Popen(
            [
                executable,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--no-first-run",
                "--disable-smooth-scrolling",  # a key scrolls at once, as the tests read it
                "--remote-debugging-port=0",
                f"--user-data-dir={self._profile}",
                "about:blank",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        port_file = Path(self._profile) / "DevToolsActivePort"
        deadline = time.monotonic() + 30
        while not port_file.exists() or len(port_file.read_text().split()) < 2:
            if time.monotonic() > deadline or self._process.poll() is not None:
                self.close()
                raise RuntimeError("chromium did not start")
            time.sleep(0.05)
        port, path = port_file.read_text().split()[:2]
        self._port = int(port)
        self._browser = _Connection(f"ws://127.0.0.1:{self._port}{path}")
        self._pages: list[Page] = []

    def page(self, *, new_context: bool = False) -> Page:
        """A new tab; with ``new_context``, in a browser context of its own (no shared storage)."""
        params: dict[str, Any] = {"url": "about:blank"}
        if new_context:
            params["browserContextId"] = self._browser.call("Target.createBrowserContext")[
                "browserContextId"
            ]
        target = self._browser.call("Target.createTarget", **params)["targetId"]
        page = Page(f"ws://127.0.0.1:{self._port}/devtools/page/{target}")
        self._pages.append(page)
        return page

    def close(self) -> None:
        """Stop Chromium and remove its profile."""
        for page in self._pages:
            page.close()
        if hasattr(self, "_browser"):
            self._browser.close()
        if self._process.poll() is None:
            self._process.terminate()
            try:
                self._process.wait(10)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
        shutil.rmtree(self._profile, ignore_errors=True)

"""The browser game's limits on what a client may send and how often: plain Python, no server.

The numbers, all documented in ``docs/playing-browser.md``:

* a request's headers are at most :data:`MAX_HEADER_BYTES` (16 KiB, 431 if
  more);
* a WebSocket message is at most 4,096 characters (the server's
  :data:`MAX_MESSAGE`) and nests at most :data:`MAX_DEPTH` levels of JSON;
* a client address creates at most :data:`CREATE_BURST` matches at once, and
  then one more every :data:`CREATE_EVERY` seconds (:class:`RateLimit`);
* a state-changing request (a ``POST``, or a WebSocket, which carries the
  moves) coming from a page of another site is refused (:func:`same_origin`).

The limits of the connection itself (headers, frames, connections) are set
where the server is made: :mod:`american_sniff.web.serving`.
"""

from __future__ import annotations

import itertools
import math
import re
import time
from collections.abc import Callable, Mapping
from urllib.parse import urlsplit

__all__ = [
    "CREATE_BURST",
    "CREATE_EVERY",
    "MAX_DEPTH",
    "MAX_HEADER_BYTES",
    "MAX_MESSAGE",
    "RateLimit",
    "json_depth",
    "same_origin",
]

#: The most bytes of headers a request may have (names and values).
MAX_HEADER_BYTES = 16 << 10

#: The longest WebSocket message a browser may send, in characters.
MAX_MESSAGE = 4096

#: How deep a browser's message may nest (its messages are flat objects).
MAX_DEPTH = 4

#: How many matches one client address may create at once.
CREATE_BURST = 10

#: After a burst, one more match per client address every this many seconds.
CREATE_EVERY = 6.0

#: The most client addresses a rate limit remembers (the oldest are forgotten).
_ADDRESSES = 10_000


def json_depth(text: str) -> int:
    """How deep the arrays and objects of the JSON ``text`` nest, read in one pass.

    Brackets inside strings do not count; the text need not be valid JSON
    (the depth is measured before it is parsed, so that a deep text is
    refused without recursion).

    >>> json_depth('{"type": "move", "move": "[1|2] on [2|2] high"}')
    1
    >>> json_depth("[[[]]]"), json_depth('"[[["'), json_depth("7")
    (3, 0, 0)
    """
    # Strings (and an unterminated one's rest) and everything but brackets
    # go in two passes of the regular-expression engine; the depth is then
    # the highest running count of the brackets left.
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text))
    return max(0, max(itertools.accumulate(map(_STEP.__getitem__, brackets)), default=0))


#: A JSON string, escapes and all, or the rest of the text after an unterminated quote.
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?', re.DOTALL)

#: A run of characters that are not brackets.
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")

#: How a bracket changes the depth.
_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}


def same_origin(headers: Mapping[str, str]) -> bool:
    """Whether a request with these headers comes from a page of this server, or from no page.

    A browser names the page's origin in ``Origin`` on every ``POST`` made by
    a script and on every WebSocket; it must name the host the request was
    sent to (``Host``). A request without ``Origin`` comes from no web page
    (a program, or a browser's own navigation) and is let through.

    >>> same_origin({"host": "127.0.0.1:8000", "origin": "http://127.0.0.1:8000"})
    True
    >>> same_origin({"host": "127.0.0.1:8000", "origin": "https://evil.example"})
    False
    >>> same_origin({"host": "127.0.0.1:8000"})
    True
    """
    origin = headers.get("origin")
    if origin is None:
        return True
    host = headers.get("host", "")
    try:
        netloc = urlsplit(origin).netloc
    except ValueError:
        return False
    return bool(netloc) and netloc.lower() == host.lower()


class RateLimit:
    """A token bucket per client address: ``burst`` at once, then one every ``every`` seconds.

    :param burst: How many may be taken at once.
    :param every: Seconds for one more to come back.
    :param clock: The time in seconds (a test may give its own).
    """

    def __init__(
        self,
        burst: int = CREATE_BURST,
        every: float = CREATE_EVERY,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.burst = burst
        self.every = every
        self._clock = clock
        self._buckets: dict[str, tuple[float, float]] = {}

    def take(self, address: str) -> float:
        """Take one for ``address``: 0 if it may go on, else the seconds until it may.

        >>> now = [0.0]
        >>> limit = RateLimit(burst=2, every=5, clock=lambda: now[0])
        >>> limit.take("a"), limit.take("a"), limit.take("a"), limit.take("b")
        (0.0, 0.0, 5.0, 0.0)
        >>> now[0] = 5.0
        >>> limit.take("a")
        0.0
        """
        now = self._clock()
        tokens, then = self._buckets.pop(address, (float(self.burst), now))
        tokens = min(float(self.burst), tokens + (now - then) / self.every)
        if tokens >= 1:
            self._buckets[address] = (tokens - 1, now)
            self._forget()
            return 0.0
        self._buckets[address] = (tokens, now)
        return math.ceil((1 - tokens) * self.every * 1000) / 1000

    def _forget(self) -> None:
        while len(self._buckets) > _ADDRESSES:
            del self._buckets[next(iter(self._buckets))]

"""The browser game's limits on what a client may send and how often: plain Python, no server.

The numbers, all documented in ``docs/playing-browser.md``:

* a request's headers are at most :data:`MAX_HEADER_BYTES` (16 KiB, 431 if
  more);
* a WebSocket message is at most 4,096 characters (the server's
  :data:`MAX_MESSAGE`) and nests at most :data:`MAX_DEPTH` levels of JSON;
* a client address creates at most :data:`CREATE_BURST` matches at once, and
  then one more every :data:`CREATE_EVERY` seconds (:class:`RateLimit`);
* a state-changing request (a ``POST``, or a WebSocket, which carries the
  moves) coming from a page of another site is refused (:func:`same_origin`);
* a WebSocket must say hello within :data:`HELLO_TIMEOUT` seconds; an
  address holds at most :data:`SOCKETS_PER_ADDRESS` WebSockets at once and a
  seat :data:`SOCKETS_PER_SEAT`; messages, hints and new WebSockets come at
  most as fast as the token buckets of :class:`SocketLimits` let them, per
  socket and per address (per seat for new WebSockets too).

The limits of the connection itself (headers, frames, connections) are set
where the server is made: :mod:`american_sniff.web.serving`.
"""

from __future__ import annotations

import asyncio
import dataclasses
import ipaddress
import itertools
import math
import re
import time
from collections.abc import Callable, Collection, Mapping
from typing import Protocol
from urllib.parse import urlsplit

__all__ = [
    "CREATE_BURST",
    "CREATE_EVERY",
    "HELLO_TIMEOUT",
    "MAX_DEPTH",
    "MAX_HEADER_BYTES",
    "MAX_MESSAGE",
    "SOCKETS_PER_ADDRESS",
    "SOCKETS_PER_SEAT",
    "Bucket",
    "Limit",
    "Rate",
    "RateLimit",
    "SocketLimits",
    "host_allowed",
    "json_depth",
    "same_origin",
    "taken",
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

#: Seconds a WebSocket has to send its hello; then it is closed (code 4408).
HELLO_TIMEOUT = 10.0

#: The most WebSockets one client address may hold open at once.
SOCKETS_PER_ADDRESS = 100

#: The most WebSockets one seat of a match may hold open at once (a person
#: with the game open in a few tabs); spectators are counted per address only.
SOCKETS_PER_SEAT = 4

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


def host_allowed(host: str, names: Collection[str]) -> bool:
    """Whether a request's ``Host`` header names this server: one of ``names``, or an address.

    A page of another site can reach a server on this machine or network
    by making its own name point at the server's address (DNS rebinding):
    its requests then name the attacker's host, and its ``Origin`` matches
    that host. The server refuses them by knowing its own names. A host
    given as an IP address (any port) is no name anyone can point
    elsewhere, so it is let through.

    >>> host_allowed("localhost:8000", {"localhost"}), host_allowed("127.0.0.1:8000", set())
    (True, True)
    >>> host_allowed("evil.example:8000", {"localhost"}), host_allowed("[::1]:80", set())
    (False, True)
    >>> host_allowed("SNIFF.example.org", {"sniff.example.org"}), host_allowed("a:b", {"a"})
    (True, False)
    """
    try:
        name = urlsplit("//" + host).hostname
        urlsplit("//" + host).port  # noqa: B018 - a bad port raises ValueError
    except ValueError:
        return False
    if not name:
        return False
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return name in {n.lower() for n in names}
    return True


class Limit(Protocol):
    """A rate limit with a token bucket per key: a :class:`RateLimit`, or one shared by workers.

    (:class:`~american_sniff.web.buckets.SharedRateLimit` keeps its buckets
    in PostgreSQL, for every worker on the database.)
    """

    #: How many may be taken at once.
    burst: int
    #: Seconds for one more to come back.
    every: float

    def take(self, key: str) -> float:
        """Take one for ``key``: 0 if it may go on, else the seconds until it may."""
        ...  # pragma: no cover - a protocol


async def taken(limit: Limit, key: str) -> float:
    """``limit.take(key)``: at once for a :class:`RateLimit`, in a thread for another.

    A limit shared by several workers
    (:class:`~american_sniff.web.buckets.SharedRateLimit`) asks the
    database, which the event loop must not wait on.
    """
    if isinstance(limit, RateLimit):
        return limit.take(key)
    return await asyncio.to_thread(limit.take, key)


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

    @property
    def size(self) -> tuple[int, float]:
        """Its ``burst`` and ``every``.

        >>> RateLimit(burst=3, every=2.0).size
        (3, 2.0)
        """
        return self.burst, self.every

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


@dataclasses.dataclass(frozen=True)
class Rate:
    """A token bucket's size: ``burst`` at once, then one more every ``every`` seconds.

    :raises ValueError: if ``burst`` is under 1 or ``every`` is not above 0.

    >>> Rate(burst=30, every=0.1).per_second
    10.0
    >>> Rate(burst=0, every=1.0)
    Traceback (most recent call last):
    ValueError: a rate's burst is 1 or more and its every above 0 seconds, got 0 and 1.0
    """

    #: How many may be taken at once.
    burst: int
    #: Seconds for one more to come back.
    every: float

    def __post_init__(self) -> None:
        if not (self.burst >= 1 and self.every > 0):
            raise ValueError(
                f"a rate's burst is 1 or more and its every above 0 seconds, "
                f"got {self.burst} and {self.every}"
            )

    @property
    def per_second(self) -> float:
        """How many a second may be taken for ever."""
        return 1 / self.every

    def limit(self, clock: Callable[[], float] = time.monotonic) -> RateLimit:
        """A :class:`RateLimit` (one bucket per key) of this size."""
        return RateLimit(self.burst, self.every, clock)


class Bucket:
    """One token bucket (a :class:`RateLimit` for a single client, such as one socket).

    :param rate: Its size.
    :param clock: The time in seconds (a test may give its own).

    >>> now = [0.0]
    >>> bucket = Bucket(Rate(burst=2, every=1.0), clock=lambda: now[0])
    >>> bucket.take(), bucket.take(), bucket.take()
    (0.0, 0.0, 1.0)
    >>> now[0] = 1.0
    >>> bucket.take()
    0.0
    """

    __slots__ = ("_clock", "_then", "_tokens", "rate")

    def __init__(self, rate: Rate, clock: Callable[[], float] = time.monotonic) -> None:
        self.rate = rate
        self._clock = clock
        self._tokens = float(rate.burst)
        self._then = clock()

    def take(self) -> float:
        """Take one: 0 if it may go on, else the seconds until it may."""
        now = self._clock()
        tokens = min(float(self.rate.burst), self._tokens + (now - self._then) / self.rate.every)
        self._then = now
        if tokens >= 1:
            self._tokens = tokens - 1
            return 0.0
        self._tokens = tokens
        return math.ceil((1 - tokens) * self.rate.every * 1000) / 1000


@dataclasses.dataclass(frozen=True)
class SocketLimits:
    """What one WebSocket, one client address and one seat may do, and how often.

    The defaults are far above what a person playing in the browser does (a
    move or a hint every few seconds, a reconnect now and then), and far
    below what a script can send. A socket over a rate gets an ``error``
    message that names the limit; one that goes on sending over it for
    :attr:`persist` messages in a row is closed with code 4429. A socket over
    a count (or a new socket over the reconnect rates) is refused at once:
    an ``error`` message, then close code 4429.

    >>> limits = SocketLimits()
    >>> limits.messages.per_second, limits.hints.per_second, limits.per_seat
    (10.0, 0.5, 4)
    >>> SocketLimits.lifted().per_address > 10**6
    True
    >>> SocketLimits(per_seat=0)
    Traceback (most recent call last):
    ValueError: per_seat is 1 or more, got 0

    :raises ValueError: for a count under 1 or a hello's time not above 0.
    """

    #: Seconds a new socket has to say hello.
    hello_timeout: float = HELLO_TIMEOUT
    #: The most sockets one client address holds at once.
    per_address: int = SOCKETS_PER_ADDRESS
    #: The most sockets one seat holds at once (spectators are not counted).
    per_seat: int = SOCKETS_PER_SEAT
    #: Messages of one socket (hints included).
    messages: Rate = Rate(burst=30, every=0.1)
    #: Messages of all the sockets of one client address.
    address_messages: Rate = Rate(burst=200, every=0.02)
    #: Hints asked by one socket (each is a bot's search).
    hints: Rate = Rate(burst=5, every=2.0)
    #: Hints asked by all the sockets of one client address.
    address_hints: Rate = Rate(burst=20, every=0.5)
    #: New sockets (connections and reconnections) of one client address.
    reconnects: Rate = Rate(burst=30, every=1.0)
    #: New sockets of one seat.
    seat_reconnects: Rate = Rate(burst=10, every=2.0)
    #: Refused messages in a row after which a socket is closed.
    persist: int = 10

    def __post_init__(self) -> None:
        if not self.hello_timeout > 0:
            raise ValueError(f"the hello's time is above 0 seconds, got {self.hello_timeout}")
        for name in ("per_address", "per_seat", "persist"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} is 1 or more, got {getattr(self, name)}")

    @classmethod
    def lifted(cls) -> SocketLimits:
        """Limits no client reaches (for a benchmark whose clients all share one address)."""
        free = Rate(burst=10**9, every=1e-9)
        return cls(
            hello_timeout=HELLO_TIMEOUT,
            per_address=10**9,
            per_seat=10**9,
            messages=free,
            address_messages=free,
            hints=free,
            address_hints=free,
            reconnects=free,
            seat_reconnects=free,
        )

"""The exceptions the library raises."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

__all__ = [
    "REFUSAL_CODES",
    "IllegalMove",
    "InvalidDeal",
    "InvalidRecord",
    "InvalidState",
    "InvalidView",
]


#: Every refusal code an :class:`IllegalMove` can carry, with its meaning.
#: The codes are part of the rules version: other implementations report the
#: same code for the same refusal (see the conformance vectors).
REFUSAL_CODES: Mapping[str, str] = MappingProxyType(
    {
        "match_over": "a side has won; no move is applied any more",
        "not_a_move": "the move is not a Place, Draw or Pass",
        "not_a_tile": "the placed tile is not a tile",
        "not_in_hand": "the tile is not in the hand of the player to move",
        "already_on_table": "the tile is already on the table",
        "must_place_drawn": "the player has just drawn a tile that fits and must place that tile",
        "point_required": "the table is not empty, so a placement names an open point",
        "opening_has_no_point": "the table is empty: the opening tile is placed on no point",
        "not_a_point": "the point is not a connection point",
        "point_not_open": "the point is not open: joined, off the table, or a branch not yet open",
        "values_differ": "the tile shows no half equal to the point's value",
        "must_place": "the player can place (or opens the round), so it may not draw or pass",
        "must_draw": "the player cannot place and the stock is not empty, so it must draw",
        "stock_empty": "the stock is empty, so the player cannot draw (it must pass)",
    }
)


#: The most UTF-8 bytes the message of a reader's error holds (1 KB); a longer
#: one is cut, and says how long it was (see :func:`bounded_message`).
MAX_MESSAGE_BYTES = 1000


def bounded_message(message: object) -> str:
    """``message`` as text of at most :data:`MAX_MESSAGE_BYTES` UTF-8 bytes.

    A longer message (one that echoes a long value) keeps its start and says
    how many characters it had, so no error built from outside input grows
    with that input.

    >>> bounded_message("short")
    'short'
    >>> text = bounded_message("x" * 5000)
    >>> len(text.encode()) <= MAX_MESSAGE_BYTES, text[-28:]
    (True, '... (5000 characters in all)')
    """
    text = str(message)
    if len(text) * 4 <= MAX_MESSAGE_BYTES:  # (4 bytes a character at most)
        return text
    size = len(text.encode("utf-8", "surrogatepass"))
    if size <= MAX_MESSAGE_BYTES:
        return text
    tail = f"... ({len(text)} characters in all)"
    room = MAX_MESSAGE_BYTES - len(tail)
    keep = room
    while (used := len(text[:keep].encode("utf-8", "surrogatepass"))) > room:
        keep -= (used - room + 3) // 4  # each character cut frees 1 to 4 bytes
    return text[:keep] + tail


class _BoundedError(ValueError):
    """An error whose message is bounded (:func:`bounded_message`): the readers' errors."""

    def __init__(self, *args: object) -> None:
        if args:
            args = (bounded_message(args[0]), *args[1:])
        super().__init__(*args)


class IllegalMove(ValueError):
    """A move the rules do not allow in the given state.

    The message says in words which rule refused it; :attr:`code` says it as
    one of the stable, machine-readable :data:`REFUSAL_CODES`. The state the
    move was tried on is unchanged: states are immutable.

    >>> from american_sniff import new_match, apply, Draw
    >>> try:
    ...     apply(new_match(2, seed=1), Draw())
    ... except IllegalMove as error:
    ...     print(error.code)
    must_place

    :ivar code: The refusal code, a key of :data:`REFUSAL_CODES`.
    """

    code: str

    def __init__(self, message: str, code: str) -> None:
        super().__init__(message)
        self.code = code

    def __reduce__(self) -> tuple[object, ...]:
        return (type(self), (str(self), self.code))


class InvalidDeal(_BoundedError):
    """A deal that cannot start a round.

    For example wrong hand sizes, missing or repeated tiles, or an opener that
    contradicts the rules.
    """


class InvalidState(_BoundedError):
    """A match state, or the JSON of one, that the rules cannot reach.

    Raised by :func:`~american_sniff.validate_state` and
    :meth:`MatchState.from_json <american_sniff.MatchState.from_json>`; the
    message names the first inconsistency found (a missing or repeated tile,
    an illegal action in the history, a hand size no play could reach, a
    winner below the target, a wrong type, an unknown key, a wrong format or
    rules version, ...).
    """


class InvalidView(_BoundedError):
    """A view or event document that cannot be read (``american-sniff/view`` or ``/event``).

    Raised by :meth:`PlayerView.from_json <american_sniff.PlayerView.from_json>`,
    :meth:`SpectatorView.from_json <american_sniff.SpectatorView.from_json>` and
    :meth:`ViewEvent.from_json <american_sniff.ViewEvent.from_json>`: the text is
    not JSON, not in the format, or not consistent (a table that is no legal
    sequence of placements, counts that do not add up). The message names the
    first problem and where it is.
    """


class InvalidRecord(_BoundedError):
    """A match record that cannot be read, or cannot be replayed.

    Raised when loading a record (:meth:`MatchRecord.from_json
    <american_sniff.MatchRecord.from_json>`): the text is not JSON,
    not in the record format (a wrong type, a missing or unknown key, a tile
    or move not written in the notation), or of another format, format version
    or rules version. Also raised by :func:`~american_sniff.replay`
    when a recorded action cannot be played. The message names the problem and
    where it is (``$.rounds[1].actions[4].move``, or the round and action).

    A record that reads well but claims what the rules contradict is not an
    error to load: :func:`~american_sniff.check_record` lists what is
    wrong with it.
    """

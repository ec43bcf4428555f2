"""What views keep beside the state: the public facts after each action, and the voids.

For each node of a round's action log that a view has seen: the table, the
known voids, how many actions, and (when a viewer asks) the log as that
viewer sees it, each worked out from the node before by one step. See
:mod:`american_sniff.views` for what the voids mean.
"""

from __future__ import annotations

from typing import Any, Final

from .. import rules
from ..layout import Layout
from ..moves import Draw, Pass, Place
from ..replayer import round_tables, table_after
from ..serial.writing import SIGNED_TABLES
from ..state import Action, ActionLog, action_node, node_fields, previous_node
from .model import Node

__all__ = [
    "known_voids",
]

#: The set of values of each 7-bit mask (bit ``v`` for value ``v``).
_VALUES_OF_MASK: tuple[frozenset[int], ...] = tuple(
    frozenset(v for v in range(rules.MAX_PIPS + 1) if mask >> v & 1)
    for mask in range(1 << rules.MAX_PIPS + 1)
)


# -- what views keep beside the state --------------------------------------------------
# For each node of a round's action log that a view has seen: the public facts
# that views need after that action (the table, the voids, how many actions),
# worked out from those after the node before by one step of the replayer
# (replayer.table_after); and, made only when a viewer asks for it, the log as
# that viewer sees it. Kept by node identity (the entry holds the node, so its
# id cannot be reused while the entry lives), and bounded: when full, it
# starts afresh.

#: A viewer's log not made yet (None is the empty log).
_UNSET: Final[Any] = object()


class _Seen:
    """What views know after one node of an action log.

    ``voids`` are masks and ``void_sets`` the same as sets; ``current``,
    ``draws``, ``known`` and ``shown`` follow the turn under way (see
    :func:`_step`); ``hidden[v]`` is the log as viewer ``v`` sees it (index
    ``players``: a spectator), or ``_UNSET`` until a view for ``v`` needs it.
    """

    __slots__ = (
        "actions",
        "current",
        "draws",
        "hidden",
        "known",
        "layout",
        "node",
        "shown",
        "void_sets",
        "voids",
    )

    def __init__(  # noqa: PLR0913, PLR0917 - one slot each
        self,
        node: Node,
        actions: int,
        layout: Layout,
        voids: tuple[int, ...],
        void_sets: tuple[frozenset[int], ...],
        current: int,
        draws: int,
        known: int,
        shown: int,
    ) -> None:
        self.node = node
        self.actions = actions
        self.layout = layout
        self.voids = voids
        self.void_sets = void_sets
        self.current = current
        self.draws = draws
        self.known = known
        self.shown = shown
        self.hidden: list[Any] = [_UNSET] * (len(voids) + 1)


_SEEN: dict[int, _Seen] = {}
_SEEN_LIMIT = 1 << 14


def _start(players: int) -> _Seen:
    """What is known before a round's first action."""
    return _STARTS[players]


_STARTS = {
    players: _Seen(None, 0, Layout.empty(), (0,) * players, (frozenset(),) * players, -1, 0, 0, 0)
    for players in rules.PLAYER_COUNTS
}


def void_at_turn_end(passed: bool, draws: int, known: int, shown: int) -> int:
    """The values a seat is known to lack once its turn ends by a pass or by a placement.

    ``draws`` is how many tiles it drew this turn (a placement after none
    tells nothing, and is not asked about), ``known`` the values it was known
    to lack before the turn, ``shown`` the values the table showed when the
    turn began. Its hand held none of the values shown; the tiles it kept from
    the turn's draws show none of them either, but may show values known
    before, so ``known`` still holds only if it kept no drawn tile.
    """
    kept = draws if passed else draws - 1  # a placed tile was just drawn
    return shown | (known if kept == 0 else 0)


def round_start_facts(players: int) -> _Seen:
    """What is known before a round's first action (for the views' checks)."""
    return _STARTS[players]


def fact_step(before: _Seen, node: Node, layout: Layout) -> _Seen:
    """What is known after ``node``, whose table is ``layout``, from what was known before it."""
    return _step(before, node, layout)


def _step(before: _Seen, node: Node, layout: Layout | None) -> _Seen:
    """What is known after ``node``, from what was known before it.

    ``layout`` is the table after the node, if the caller has it (else the
    replayer's step places the node's tile, unchecked: the log is a state's).
    """
    seat, move, _, _, _, _ = node_fields(node)
    voids = before.voids
    sets = before.void_sets
    current, draws, known, shown = before.current, before.draws, before.known, before.shown
    table = before.layout
    if seat != current:
        current, draws, known, shown = seat, 0, voids[seat], table.value_mask
    kind = type(move)
    if kind is Place:
        table = table_after(table, move, checked=False) if layout is None else layout
        if draws == 0:  # a placement by choice tells nothing new
            return _Seen(node, before.actions + 1, table, voids, sets, -1, 0, known, shown)
    if kind is Draw:
        # It could not place; the tile it drew may show anything until its turn ends.
        draws += 1
        void = 0
    else:
        void = void_at_turn_end(kind is Pass, draws, known, shown)
        current = -1
    if void != voids[seat]:
        voids = voids[:seat] + (void,) + voids[seat + 1 :]
        sets = sets[:seat] + (_VALUES_OF_MASK[void],) + sets[seat + 1 :]
    return _Seen(node, before.actions + 1, table, voids, sets, current, draws, known, shown)


def seen_after(log: Node, players: int, layout: Layout, viewer: int) -> _Seen:
    """What is known after the newest node of ``log``, whose table is ``layout``.

    The nodes walked are seen for ``viewer`` too (its log, see
    :func:`hidden_log`), where its log at the node before is known.
    """
    if log is None:
        return _start(players)
    entry = _SEEN.get(id(log))
    if entry is not None and entry.node is log:
        return entry
    # Walk back to the newest node already seen (the one before, as a rule).
    pending = []
    node: Node = log
    known = None
    while node is not None:
        entry = _SEEN.get(id(node))
        if entry is not None and entry.node is node:
            known = entry
            break
        pending.append(node)
        node = previous_node(node)
    state = _start(players) if known is None else known
    hidden: Node = None if known is None else known.hidden[viewer]
    if len(_SEEN) + len(pending) > _SEEN_LIMIT:
        _SEEN.clear()
    # A history a signed load read comes with its tables: nothing is placed again.
    signed = SIGNED_TABLES.get(id(log))
    tables = signed[1] if signed is not None and signed[0] is log else None
    last = -1 if tables is None else len(tables) - 1
    for index in range(len(pending) - 1, -1, -1):
        node = pending[index]
        table = layout if index == 0 else None if tables is None else tables[last - index]
        state = _step(state, node, table)
        if hidden is not _UNSET:
            hidden = _hide(node, viewer, hidden)
            state.hidden[viewer] = hidden
        _SEEN[id(node)] = state
    return state


def hidden_log(log: Node, viewer: int) -> Node:
    """``log`` as ``viewer`` sees it (a spectator: the number of players): others' draws hidden.

    Made once per node and viewer, from the viewer's log at the node before.
    While nothing is hidden yet, the viewer's log is the log itself: only a
    draw by another seat needs a node of the viewer's own.
    """
    pending: list[tuple[Node, _Seen | None]] = []
    node = log
    hidden: Node = None
    while node is not None:
        entry = _SEEN.get(id(node))
        if entry is not None and entry.node is node:
            made = entry.hidden[viewer]
            if made is not _UNSET:
                hidden = made
                break
        else:
            entry = None
        pending.append((node, entry))
        node = previous_node(node)
    for index in range(len(pending) - 1, -1, -1):
        node, entry = pending[index]
        hidden = _hide(node, viewer, hidden)
        if entry is not None:
            entry.hidden[viewer] = hidden
    return hidden


def _hide(node: Node, viewer: int, before: Node) -> Node:
    """``node`` as ``viewer`` sees it, after ``before``, the viewer's log at the node before."""
    seat, move, tile, end_sum, points, scores = node_fields(node)
    if tile is not None and seat != viewer:
        return action_node(seat, move, None, end_sum, points, scores, before)
    if before is previous_node(node):
        return node
    return action_node(seat, move, tile, end_sum, points, scores, before)


# -- known voids ---------------------------------------------------------------------


def known_voids(history: tuple[Action, ...], players: int) -> tuple[frozenset[int], ...]:
    """For each seat, the values it is known not to hold after the round's ``history``.

    Only public facts are used (who drew, passed or placed, and the table), so
    the result is the same for every viewer. See the module's notes. The
    round is played through the replayer (:func:`~american_sniff.replayer.round_tables`,
    each placement checked); views take the same steps one action at a time.

    >>> from american_sniff import Draw, Pass, Place, Tile
    >>> known_voids((Action(0, Place(Tile(3, 3))), Action(1, Draw()), Action(1, Pass())), 2)
    (frozenset(), frozenset({3}))

    :raises IllegalMove: if a placement of ``history`` does not fit the table.
    """
    seen = _start(players)
    log: ActionLog = None
    tables = round_tables([action.move for action in history])
    for action, table in zip(history, tables, strict=True):
        log = action_node(action.seat, action.move, None, None, 0, (), log)
        seen = _step(seen, log, table)
    return seen.void_sets

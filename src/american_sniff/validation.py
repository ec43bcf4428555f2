"""Checking that a match state is one the rules can reach.

:func:`~american_sniff.validate_state` is what :meth:`MatchState.from_json
<american_sniff.MatchState.from_json>` runs on every loaded state, and what a
caller runs on a state built with ``MatchState(...)`` or ``attrs.evolve``.

The check is a replay. A state keeps the actions of its round, so the round's
start can be rebuilt from it: each hand is what the seat holds, plus what it
placed, less what it drew; the stock as dealt is known; the scores at the start
are the scores less what the round's placements scored. The engine then plays
the actions again from that start, and every field of the result must equal
the state's. The previous round (``last_round``) is replayed the same way from
its revealed hands, once per result: every state of a round shares it, so
its replay is kept by the result's identity (its ties to the current round,
the scores, the opener and the deal, are checked every time). Before the
replay, plain checks give the common problems a precise message: types and
ranges, tiles missing or in two places, hand sizes, a drawn tile that does
not fit, and scores against the target. They read the action log's nodes
as they are, and build a message only for what they refuse.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from .engine import seeded_deal
from .errors import InvalidState
from .layout import Layout
from .moves import Draw, Pass, Place
from .replayer import CLAIMS, Problem, claim_differences, dealt_from_log, step
from .rng import MASK64, below
from .rules import (
    HAND_SIZE,
    PLAYER_COUNTS,
    SCORE_UNIT,
    TARGET,
    TILE_COUNT,
    fewest_actions,
    is_score,
    lot_is_due,
    side_count,
    side_of,
)
from .state import (
    Action,
    Deal,
    MatchState,
    RoundEnd,
    RoundInfo,
    RoundResult,
    log_of,
    round_log_of,
)
from .tiles import ALL_TILES, Tile

__all__ = ["validate_state"]

#: More actions than any round can hold.
_MOST_ACTIONS = 4 * len(ALL_TILES)
#: The set of tiles as a bit mask, bit ``tile.index`` for each tile.
_ALL_TILES_MASK = (1 << len(ALL_TILES)) - 1
#: The generator's outputs a seeded round's shuffle draws: one less than the tiles.
_SHUFFLE_DRAWS = TILE_COUNT - 1

#: A node of an action log (see :func:`american_sniff.state.action_node`):
#: seat, move, tile drawn, end sum, points, scores after, previous node. The
#: checks read the nodes themselves, which costs far less than the
#: :class:`~american_sniff.Action` values of ``state.history``.
_Node = tuple[Any, ...]
#: The previous round as its check found it: its actions (oldest first), its
#: hands as dealt, and the tiles drawn in it, in order.
_Previous = tuple[tuple[_Node, ...], tuple[tuple[Tile, ...], ...], tuple[Tile, ...]]
#: The largest round number and score a state may hold: JavaScript's largest
#: exact integer, so that the JSON of any valid state is exact there too.
MAX_ROUND = MAX_SCORE = MAX_SEQ = 2**53 - 1


def validate_state(state: object) -> None:
    """Check that ``state`` is a match state the rules can reach; return None if it is.

    It checks the types and ranges of every field; that the 28 tiles are each
    in exactly one place (a hand, the table or the stock); that the round's
    actions replay legally from a deal with the right hand sizes and give
    exactly this table, these hands, this stock, these scores, this turn and
    this drawn tile; that a winner has reached the target and nobody else has;
    and that the previous round's result replays and settles as recorded.

    >>> from american_sniff import new_match, apply, legal_moves
    >>> import attrs
    >>> state = new_match(2, seed=3)
    >>> validate_state(apply(state, legal_moves(state)[0]))
    >>> validate_state(attrs.evolve(state, turn=5))
    Traceback (most recent call last):
    ...
    american_sniff.errors.InvalidState: turn must be a seat from 0 to 1, got 5

    :raises InvalidState: naming the first inconsistency found.
    """
    if type(state) is not MatchState:
        raise InvalidState(f"not a MatchState: {state!r}")
    try:
        _validate(state)
    except InvalidState:
        raise
    except Exception as exc:  # a field of a type no check foresaw
        raise InvalidState(f"the state is malformed: {type(exc).__name__}: {exc}") from exc


def replayed_tables(state: MatchState) -> list[Layout]:
    """Validate ``state`` as :func:`validate_state` does; the table after each action of its round.

    The tables are the replay's, oldest first, one per action of the history
    (the last is equal to ``state.layout``): a loader hands them to the views,
    which then place nothing again (see views' ``_seen``).

    :raises InvalidState: as :func:`validate_state`.
    """
    tables: list[Layout] = []
    if type(state) is not MatchState:
        raise InvalidState(f"not a MatchState: {state!r}")
    try:
        _validate(state, tables)
    except InvalidState:
        raise
    except Exception as exc:  # a field of a type no check foresaw
        raise InvalidState(f"the state is malformed: {type(exc).__name__}: {exc}") from exc
    return tables


def _validate(state: MatchState, tables: list[Layout] | None = None) -> None:
    info = _check_info(state.info)
    players = info.players
    _check_fields(state, players)
    nodes = _nodes(log_of(state), players, "the history")
    _check_tiles(state, info)
    _check_drawn(state, nodes)
    _check_target(state.scores, state.winner, players)
    start_scores = _start_scores(nodes, state.scores, players)
    start_hands = _start_hands(state.hands, nodes, players, "")
    replayed = _replay(info, start_hands, start_scores, nodes, "", tables=tables)
    if isinstance(replayed, RoundResult):
        raise InvalidState(
            f"action {len(nodes)} of the history ended the round, "
            "so the state should be the first of the next round"
        )
    _compare(state, replayed)
    previous = _check_last_round(info, start_scores)
    _check_actions_before(info, None if previous is None else len(previous[0]))
    _check_deal(info, start_hands, previous)


# -- plain checks ----------------------------------------------------------------


def _is_int(value: object) -> bool:
    return type(value) is int


def _seat(value: object, players: int, what: str) -> int:
    if not _is_int(value) or not 0 <= value < players:  # type: ignore[operator]
        raise InvalidState(f"{what} must be a seat from 0 to {players - 1}, got {value!r}")
    return value  # type: ignore[return-value]


def _tiles(value: object, what: str) -> tuple[Tile, ...]:
    if type(value) is not tuple:
        raise InvalidState(f"{what} must be a tuple of tiles, got {value!r}")
    for tile in value:
        if not isinstance(tile, Tile):
            raise InvalidState(f"{what} holds {tile!r}, which is not a Tile")
    return value


def _ints(value: object, count: int, what: str) -> tuple[int, ...]:
    if type(value) is not tuple or len(value) != count or not all(map(_is_int, value)):
        raise InvalidState(f"{what} must be a tuple of {count} integers, got {value!r}")
    return value


def _scores(value: object, players: int, what: str) -> tuple[int, ...]:
    scores = _ints(value, side_count(players), what)
    for score in scores:
        # Placements score multiples of five and settlement deducts them.
        if not is_score(score) or abs(score) > MAX_SCORE:
            raise InvalidState(
                f"{what} must be multiples of 5 of at most 2**53 - 1 in size, got {scores}"
            )
    return scores


def _hands(value: object, players: int, what: str) -> tuple[tuple[Tile, ...], ...]:
    if type(value) is not tuple or len(value) != players:
        raise InvalidState(f"{what} must be a tuple of {players} hands, got {value!r}")
    for seat, hand in enumerate(value):
        tiles = _tiles(hand, f"hand {seat}")
        indices = [tile.index for tile in tiles]  # tile_index's order, integers compared in C
        if indices != sorted(indices):
            raise InvalidState(f"hand {seat} is not sorted by tile: {_text(tiles)}")
    return value


def _check_info(info: object) -> RoundInfo:
    if type(info) is not RoundInfo:
        raise InvalidState(f"info must be a RoundInfo, got {info!r}")
    if info.players not in PLAYER_COUNTS or not _is_int(info.players):
        raise InvalidState(f"players must be 2, 3 or 4, got {info.players!r}")
    for name in ("seed", "rng"):
        value = getattr(info, name)
        if not _is_int(value) or not 0 <= value <= MASK64:
            raise InvalidState(f"{name} must be an integer from 0 to 2**64 - 1, got {value!r}")
    if not _is_int(info.round) or not 1 <= info.round <= MAX_ROUND:
        raise InvalidState(f"round must be an integer from 1 to 2**53 - 1, got {info.round!r}")
    _seat(info.opener, info.players, "opener")
    _tiles(info.deck, "the stock as dealt")
    if type(info.deals) is not tuple:
        raise InvalidState(f"deals must be a tuple of Deal, got {info.deals!r}")
    for number, deal in enumerate(info.deals, start=1):
        if type(deal) is not Deal or deal.players != info.players:
            raise InvalidState(f"deal {number} still to use is not a {info.players}-player Deal")
    if info.last_round is not None and type(info.last_round) is not RoundResult:
        raise InvalidState(f"last_round must be a RoundResult or None, got {info.last_round!r}")
    return info


def _check_actions_before(info: RoundInfo, previous: int | None) -> None:
    """The match's count of earlier actions is possible, and its views' ``seq`` stays safe.

    It is 0 in round 1 and the previous round's count in round 2; later, the
    previous round's count and at least :func:`~american_sniff.rules.fewest_actions`
    for each round before it, the floor the view reader uses too. ``previous``
    is the number of actions of the previous round, if there is one. The
    sequence number of every view and event of this round (``actions_before``
    and the round's actions, which ``_nodes`` keeps below ``_MOST_ACTIONS``)
    must stay at most 2**53 - 1, which JavaScript holds.
    """
    count = info.actions_before
    if not _is_int(count) or not 0 <= count <= MAX_SEQ - _MOST_ACTIONS:
        raise InvalidState(
            f"actions_before must be an integer from 0 to 2**53 - 1 - {_MOST_ACTIONS} (so the "
            f"sequence numbers of the round's views stay below 2**53), got {count!r}"
        )
    if info.round == 1 and count:
        raise InvalidState(
            f"the first round has no actions before it, but actions_before is {count}"
        )
    if info.round == 2 and previous is not None and count != previous:
        raise InvalidState(
            f"actions_before is {count}, but round 1 held {previous} actions, "
            "and it is the only round before round 2"
        )
    if info.round > 1 and previous is not None:
        # The previous round's actions, and a hand's worth at least for each round before it.
        least = previous + (info.round - 2) * fewest_actions(info.players)
        most = (info.round - 1) * _MOST_ACTIONS
        if not least <= count <= most:
            raise InvalidState(
                f"actions_before is {count}, but the rounds before round {info.round} "
                f"held from {least} to {most} actions"
            )


def _check_fields(state: MatchState, players: int) -> None:
    _seat(state.turn, players, "turn")
    _hands(state.hands, players, "hands")
    if type(state.layout) is not Layout:
        raise InvalidState(f"layout must be a Layout, got {state.layout!r}")
    _scores(state.scores, players, "scores")
    sides = side_count(players)
    if state.winner is not None:
        _seat(state.winner, sides, "winner (a side)")
    if state.drawn is not None and not isinstance(state.drawn, Tile):
        raise InvalidState(f"drawn must be a Tile or None, got {state.drawn!r}")
    deck = state.info.deck
    if not _is_int(state.drawn_count) or not 0 <= state.drawn_count <= len(deck):
        raise InvalidState(
            f"drawn_count must be an integer from 0 to {len(deck)}, got {state.drawn_count!r}"
        )


def _nodes(log: object, players: int, what: str) -> tuple[_Node, ...]:
    """The nodes of the action ``log``, oldest first, each checked for types."""
    found: list[_Node] = []
    node: Any = log
    while node is not None:
        if type(node) is not tuple or len(node) != 7:
            raise InvalidState(f"the state is malformed: {what} is not a chain of actions")
        if len(found) == _MOST_ACTIONS:
            raise InvalidState(f"{what} is longer than any round can be")
        found.append(node)
        node = node[6]
    found.reverse()
    sides = side_count(players)
    moves = (Place, Draw, Pass)  # read once: names of other modules cost a look-up each
    tile_class = Tile
    for index, action in enumerate(found, start=1):
        if not _plain_node(action, players, sides, moves, tile_class):
            _explain_node(action, index, players, what)
    return tuple(found)


def _plain_node(
    action: _Node, players: int, sides: int, moves: tuple[type, ...], tile_class: type
) -> bool:
    """Whether a node's fields are of the types and ranges an action has (the common case)."""
    seat, move, tile, end_sum, points, scores = (
        action[0],
        action[1],
        action[2],
        action[3],
        action[4],
        action[5],
    )
    if type(seat) is not int or not 0 <= seat < players or type(points) is not int:
        return False
    if type(move) not in moves or (tile is not None and not isinstance(tile, tile_class)):
        return False
    if (end_sum is not None and type(end_sum) is not int) or type(scores) is not tuple:
        return False
    if len(scores) != sides:
        return False
    for score in scores:
        if type(score) is not int or score % SCORE_UNIT or not -MAX_SCORE <= score <= MAX_SCORE:
            return False
    return True


def _explain_node(action: _Node, index: int, players: int, what: str) -> None:
    """Raise the InvalidState that names what is wrong with a node that is not plain."""
    seat, move, tile, end_sum, points, scores = action[:6]
    where = f"action {index} of {what}"
    _seat(seat, players, f"the seat of {where}")
    if type(move) not in (Place, Draw, Pass):
        raise InvalidState(f"the move of {where} is not a Place, Draw or Pass: {move!r}")
    if tile is not None and not isinstance(tile, Tile):
        raise InvalidState(f"the tile of {where} is not a Tile: {tile!r}")
    if end_sum is not None and not _is_int(end_sum):
        raise InvalidState(f"the end sum of {where} is not an integer: {end_sum!r}")
    if not _is_int(points):
        raise InvalidState(f"the points of {where} are not an integer: {points!r}")
    _scores(scores, players, f"the scores of {where}")


def _text(tiles: Sequence[Tile]) -> str:
    return " ".join(map(str, tiles)) if tiles else "(none)"


def _check_tiles(state: MatchState, info: RoundInfo) -> None:
    """Every tile of the set is in exactly one place: a hand, the table or the stock."""
    # The common case first, on bit masks; the places are named only for a message.
    mask = count = 0
    for hand in state.hands:
        for tile in hand:
            mask |= 1 << tile.index
            count += 1
    table: int = state.layout.tile_mask  # (a table that differs from its mask: see _compare)
    mask |= table
    count += table.bit_count()
    deck = info.deck
    for tile in deck[state.drawn_count :]:
        mask |= 1 << tile.index
        count += 1
    dealt = 0
    for tile in deck:
        dealt |= 1 << tile.index
    size = len(ALL_TILES) - info.players * HAND_SIZE[info.players]
    if (
        count == len(ALL_TILES)
        and mask == _ALL_TILES_MASK
        and dealt.bit_count() == len(deck) == size
    ):
        return
    places: dict[Tile, list[str]] = {}
    for seat, hand in enumerate(state.hands):
        for tile in hand:
            places.setdefault(tile, []).append(f"hand {seat}")
    for tile in state.layout.tiles:
        places.setdefault(tile, []).append("the table")
    for tile in info.deck[state.drawn_count :]:
        places.setdefault(tile, []).append("the stock")
    for tile in ALL_TILES:
        where = places.get(tile, [])
        if not where:
            raise InvalidState(
                f"{tile} is missing: it is in no hand, not on the table and not in the stock"
            )
        if len(where) > 1:
            raise InvalidState(f"{tile} is in more than one place: {' and '.join(where)}")
    repeated = [t for t, n in Counter(info.deck).items() if n > 1]
    if repeated:
        raise InvalidState(f"the stock as dealt holds {repeated[0]} twice")
    if len(info.deck) != size:
        raise InvalidState(
            f"the stock as dealt has {len(info.deck)} tiles; with {info.players} players "
            f"it has {size}"
        )


def _check_drawn(state: MatchState, nodes: tuple[_Node, ...]) -> None:
    """A drawn tile is the one the player to move has just drawn, and it fits."""
    drawn = state.drawn
    if drawn is None:
        return
    if not state.layout.fits(drawn):
        raise InvalidState(
            f"the drawn tile {drawn} does not fit any open point; a drawn tile that does "
            "not fit is kept in the hand, not marked as drawn"
        )
    last = nodes[-1] if nodes else None
    if last is None or type(last[1]) is not Draw or last[0] != state.turn or last[2] != drawn:
        raise InvalidState(
            f"the drawn tile {drawn} was not just drawn by seat {state.turn}, the seat to move"
        )


def _check_target(scores: tuple[int, ...], winner: int | None, players: int) -> None:
    target = TARGET[players]
    if winner is not None and scores[winner] < target:
        raise InvalidState(
            f"the winner, side {winner}, has {scores[winner]} points, below the target {target}"
        )
    for side, score in enumerate(scores):
        if side != winner and score >= target:
            if winner is None:
                raise InvalidState(
                    f"side {side} has {score} points, at or past the target {target}, "
                    "but there is no winner"
                )
            raise InvalidState(
                f"side {side} has {score} points, at or past the target {target}, "
                f"but side {winner} is the winner"
            )


def _start_scores(
    nodes: tuple[_Node, ...], scores: tuple[int, ...], players: int
) -> tuple[int, ...]:
    """The scores at the start of the round: ``scores`` less the points its actions claim.

    The replay then checks every claim against the rules.
    """
    start = list(scores)
    for action in nodes:
        start[side_of(players, action[0])] -= action[4]
    return tuple(start)


def _start_hands(
    hands: tuple[tuple[Tile, ...], ...],
    nodes: tuple[_Node, ...],
    players: int,
    round_name: str,
) -> tuple[tuple[Tile, ...], ...]:
    """Each hand at the deal: what the seat holds, plus what it placed, less what it drew."""
    try:
        return dealt_from_log(hands, nodes, hand_size=HAND_SIZE[players], round_name=round_name)
    except ValueError as exc:
        raise InvalidState(str(exc)) from None


# -- the deal and its source ---------------------------------------------------------
# SplitMix64's state moves by the same constant with every output, so the
# generator state where a round began is its state after the deal (``rng``)
# less one constant per output the deal and the lot drew: 27 for the shuffle
# of the 28 tiles, one for a lot, and one for each redraw. And the state is
# the seed plus one constant per output of the whole match, so how many
# outputs came before the round is known too: 27 for each seeded round before
# it, one for each lot, and the redraws (``_could_have_drawn`` derives the
# counts that can be, no more).
#
# The redraws leave no slack. below(n) redraws only an output of at least
# 2**64 - 2**64 % n, and for the bounds a match draws with (28 down to 2)
# that is one of the top 25 outputs. SplitMix64's output is a bijection of
# its state, so exactly 25 states give those outputs, and for a given seed
# each is the state after one known number of outputs. Only a draw made at
# one of those positions can be redrawn: a match whose outputs so far pass
# none of them (all but about one seed in 2**40 for a million rounds) drew
# exactly ``27 * s + lots``, and one that passes some drew at most one more
# for each.

_GAMMA = 0x9E3779B97F4A7C15
_GAMMA_INVERSE = pow(_GAMMA, -1, 1 << 64)
#: Redraws looked for in one deal and lot when searching where a round began
#: (each candidate is then dealt again and must end exactly at ``rng``).
_REDRAWS = 4
#: The least output that any ``below(n)`` of a match (n from 2 to 28) redraws.
_LEAST_REDRAWN = min((1 << 64) - (1 << 64) % n for n in range(2, len(ALL_TILES) + 1))


def _unmix(output: int) -> int:
    """The SplitMix64 state whose output is ``output`` (the inverse of its mixing steps)."""
    z = output ^ (output >> 31) ^ (output >> 62)
    z = (z * pow(0x94D049BB133111EB, -1, 1 << 64)) & MASK64
    z ^= (z >> 27) ^ (z >> 54)
    z = (z * pow(0xBF58476D1CE4E5B9, -1, 1 << 64)) & MASK64
    return z ^ (z >> 30) ^ (z >> 60)


#: The generator states whose output some ``below(n)`` of a match redraws, the
#: state of the top output (2**64 - 1) first.
_REDRAWN_STATES = tuple(
    _unmix(MASK64 - below_top) for below_top in range(MASK64 - _LEAST_REDRAWN + 1)
)


#: For each seed met, the positions of :func:`_redraw_positions`. Every load
#: of a match's states asks about the same seed, several times a load.
_REDRAW_POSITIONS: dict[int, tuple[int, ...]] = {}
#: How many seeds' positions are kept (25 integers each); all are let go when
#: there are more.
_REDRAW_POSITIONS_LIMIT = 1024


def _redraw_positions(seed: int) -> tuple[int, ...]:
    """Which outputs of ``seed``'s generator (counted from 0, in order) a draw could redraw.

    Output ``k`` (from 1) comes from the state ``seed + k * gamma``; only the
    few states of ``_REDRAWN_STATES`` give an output any draw of a match
    redraws, each at one position of the seed's sequence (0 is the seed
    itself, which gives no output).
    """
    positions = _REDRAW_POSITIONS.get(seed)
    if positions is None:
        positions = tuple(
            sorted([((state - seed) * _GAMMA_INVERSE) & MASK64 for state in _REDRAWN_STATES])
        )
        if len(_REDRAW_POSITIONS) >= _REDRAW_POSITIONS_LIMIT:
            _REDRAW_POSITIONS.clear()
        _REDRAW_POSITIONS[seed] = positions
    return positions


def _redraws_possible(seed: int, outputs: int) -> int:
    """How many of the first ``outputs`` outputs of ``seed``'s generator a draw could redraw."""
    count = 0
    for position in _redraw_positions(seed):  # in order: almost always past outputs at once
        if position > outputs:
            break
        if position >= 1:
            count += 1
    return count


def _check_deal(
    info: RoundInfo, start_hands: tuple[tuple[Tile, ...], ...], previous: _Previous | None
) -> None:
    """The round's deal comes from its source: the seed where the generator stood, or a Deal.

    A round dealt from the seed must be the seeded deal from the generator
    state where the round began, and that state must be the seed advanced by
    no more outputs than the rounds before could draw. A round dealt from a
    given Deal (``info.given``) may hold any deal; its lot, if drawn, must
    still come from the generator. ``previous`` is the previous round as
    :func:`_check_last_round` found it.
    """
    if type(info.given) is not bool:
        raise InvalidState(f"given must be True or False, got {info.given!r}")
    last = info.last_round
    lot_due = lot_is_due(None if last is None or last.end is RoundEnd.BLOCKED else last.finisher)
    if info.given and last is not None and not last.given:
        raise InvalidState(
            f"round {info.round} is marked as dealt from a given deal, but round "
            f"{last.round} was dealt from the seed: given deals are all used before the seed"
        )
    if info.given:
        starts = [info.rng]  # the Deal gave the opener, or no lot was due
        if lot_due:
            lot = (info.opener, info.rng)
            starts += [s for s in _starts(info.rng, 1) if below(info.players, s) == lot]
    elif info.deals:
        raise InvalidState(
            f"round {info.round} is marked as dealt from the seed, but given deals remain "
            "to be used first"
        )
    else:
        # The fewest outputs first: a redraw is all but unheard of. The deal
        # draws 27 outputs at least, and a lot one more, so with a lot due the
        # state 27 outputs back cannot be the start.
        candidates = (
            _starts(info.rng, _SHUFFLE_DRAWS)[1:] if lot_due else _starts(info.rng, _SHUFFLE_DRAWS)
        )
        first = next((s for s in candidates if _deals(info, s, start_hands, lot_due)), None)
        starts = [] if first is None else [first]
        if not starts:
            raise InvalidState(
                f"round {info.round} is marked as dealt from the seed, but its hands and "
                "stock are not the seeded deal from where the generator stood (rng): "
                "a hand, the stock's order or rng was changed"
            )
    starts = [start for start in starts if _reachable(info, start, previous)]
    if not starts:
        raise InvalidState(
            f"rng {info.rng} cannot be where the generator of seed {info.seed} stands "
            f"after the deal of round {info.round}"
        )
    if info.last_round is not None and not info.last_round.given and previous is not None:
        _check_previous_deal(info, info.last_round, starts, previous)


#: Every count of outputs a previous round's deal may have drawn, without a lot
#: and with one, the two without a redraw first (the one with a lot first after
#: the first round, which always drew one).
_FIRST_TRIES = ((False, _SHUFFLE_DRAWS), (True, _SHUFFLE_DRAWS + 1))
_TRIES = _FIRST_TRIES + tuple(
    (lot, count)
    for lot in (False, True)
    for count in range(_SHUFFLE_DRAWS + lot, _SHUFFLE_DRAWS + 6 + lot)
    if (lot, count) not in _FIRST_TRIES
)
_TRIES_AFTER_A_LOT = (_TRIES[1], _TRIES[0], *_TRIES[2:])


def _check_previous_deal(
    info: RoundInfo, result: RoundResult, starts: list[int], previous: _Previous
) -> None:
    """The previous round, dealt from the seed, is the seeded deal that led to this round.

    ``starts`` are where the generator may have stood when this round began:
    where the previous round's deal (and its lot, if one was drawn) left it.
    Its hands as dealt, the tiles it drew in order, and the lot must match.
    """
    players = info.players
    nodes, dealt, drew = previous
    opener = nodes[0][0]
    tries = _TRIES_AFTER_A_LOT if result.round == 1 else _TRIES
    for start in starts:
        for lot, count in tries:
            hands, stock, after = _seeded_deal(players, (start - count * _GAMMA) & MASK64)
            if hands != dealt or stock[: len(drew)] != drew:
                continue
            if lot:
                chosen, after = below(players, after)
                if chosen != opener:
                    continue
            if after == start and _reachable_before(info, result.round, after, count):
                return
    raise InvalidState(
        f"round {result.round} is marked as dealt from the seed, but its hands and the "
        "tiles drawn are not the seeded deal that leads to this round's generator state"
    )


def _reachable_before(info: RoundInfo, number: int, after: int, count: int) -> bool:
    """Whether seeded round ``number`` began where the rounds before it could leave the generator.

    Its deal drew ``count`` outputs, up to ``after``. It began at the seed
    itself if it is round 1, else where ``number - 1`` rounds, given ones
    first, can have left it (see :func:`_could_have_drawn`).
    """
    outputs = _outputs_before(info.seed, (after - count * _GAMMA) & MASK64)
    return _could_have_drawn(info.seed, outputs, number - 1, most_seeded=number - 1)


def _could_have_drawn(
    seed: int, outputs: int, rounds: int, *, least_seeded: int = 0, most_seeded: int
) -> bool:
    """Whether the first ``rounds`` rounds of ``seed``'s match can have drawn exactly ``outputs``.

    Of those rounds, the first are dealt from given deals and the rest (from
    ``least_seeded`` to ``most_seeded`` of them) from the seed. A seeded
    round's shuffle draws 27 outputs; a lot draws one more, in any round that
    needs one (round 1 always does, and a seeded round 1 cannot skip it); and
    a redraw one more, only at the few outputs of the seed's generator that
    a draw can redraw (see :func:`_redraws_possible`). So the count is
    ``27 * s + lots + redraws`` with ``s`` seeded rounds, at most one lot a
    round, at least one if every round is seeded (round 1's), and no more
    redraws than those outputs. Nothing else moves the generator.
    """
    if rounds == 0:
        return outputs == 0
    redraws = _redraws_possible(seed, outputs)
    # 27 * s + extra, where extra (the lots and redraws) is smallest for the
    # most seeded rounds that fit: that s, or one fewer if it leaves no lot
    # for a seeded round 1.
    most = min(most_seeded, rounds, outputs // _SHUFFLE_DRAWS)
    for seeded in (most, most - 1):
        if seeded < least_seeded:
            continue
        extra = outputs - _SHUFFLE_DRAWS * seeded
        if (1 if seeded == rounds else 0) <= extra <= rounds + redraws:
            return True
    return False


#: The seeded deals made, by player count and generator state. Every state of
#: a round has the same generator state, so its loads look for the same deals.
_DEALS: dict[tuple[int, int], tuple[tuple[tuple[Tile, ...], ...], tuple[Tile, ...], int]] = {}
#: How many deals are kept; all are let go when there are more.
_DEALS_LIMIT = 1024


def _seeded_deal(
    players: int, start: int
) -> tuple[tuple[tuple[Tile, ...], ...], tuple[Tile, ...], int]:
    """``seeded_deal(players, start)``, kept once made (a deal is a function of the two)."""
    key = (players, start)
    deal = _DEALS.get(key)
    if deal is None:
        deal = seeded_deal(players, start)
        if len(_DEALS) >= _DEALS_LIMIT:
            _DEALS.clear()
        _DEALS[key] = deal
    return deal


def _starts(rng: int, least: int) -> list[int]:
    """The generator states from which ``least`` outputs, or a few more, lead to ``rng``."""
    return [(rng - count * _GAMMA) & MASK64 for count in range(least, least + _REDRAWS + 2)]


def _deals(
    info: RoundInfo, start: int, start_hands: tuple[tuple[Tile, ...], ...], lot_due: bool
) -> bool:
    """Whether the seeded deal (and lot, if due) from ``start`` is this round's, ending at rng."""
    hands, stock, after = _seeded_deal(info.players, start)
    if hands != start_hands or stock != info.deck:
        return False
    if lot_due:
        lot, after = below(info.players, after)
        if lot != info.opener:
            return False
    return after == info.rng


def _outputs_before(seed: int, start: int) -> int:
    """How many outputs lead the generator of ``seed`` to ``start`` (modulo 2**64)."""
    return ((start - seed) * _GAMMA_INVERSE) & MASK64


def _reachable(info: RoundInfo, start: int, previous: _Previous | None) -> bool:
    """Whether the rounds before this one could leave the seed's generator at ``start``.

    The count of outputs drawn before round ``r`` (see :func:`_could_have_drawn`):

    * round 1: none, the generator starts at the seed;
    * round 2 after a given round 1, which the state holds: none if its deal
      named the opener, else exactly the lot's outputs from the seed, and
      the lot gave round 1's opener;
    * after a round dealt from a given deal: every round before was given too
      (given deals are used first), and a given round draws at most its lot,
      so at most ``r - 1`` and the redraws the seed allows;
    * after a seeded round: ``27 * s`` for the ``s`` seeded rounds (one at
      least), one for each lot and the redraws. The previous round's own start
      is tied to the seed in turn by :func:`_check_previous_deal`.

    ``previous`` is the previous round as :func:`_check_last_round` found it.
    """
    outputs = _outputs_before(info.seed, start)
    last = info.last_round
    if info.round == 1 or last is None:
        return outputs == 0 and info.round == 1
    rounds = info.round - 1
    if last.given and rounds == 1 and previous is not None:
        opener = previous[0][0][0]
        return outputs == 0 or below(info.players, info.seed) == (opener, start)
    if last.given:
        return _could_have_drawn(info.seed, outputs, rounds, most_seeded=0)
    return _could_have_drawn(info.seed, outputs, rounds, least_seeded=1, most_seeded=rounds)


# -- the replay --------------------------------------------------------------------


def _replay(  # noqa: PLR0913 - one keyword-only switch beyond the five
    info: RoundInfo,
    hands: tuple[tuple[Tile, ...], ...],
    scores: tuple[int, ...],
    nodes: tuple[_Node, ...],
    round_name: str,
    *,
    tables: list[Layout] | None = None,
) -> MatchState | RoundResult:
    """Play ``nodes`` again from the round's start; the last state, or the round's result.

    ``tables``, if given, gets the table after each action.

    Every action must be legal, made by the seat to move, and claim what the
    rules give (the tile drawn, the end sum, the points, the scores). Only the
    last action may end the round; if it does, the result is returned. Each
    action is asked :func:`~american_sniff.replayer.step`'s questions, and its
    claims are compared with the node the engine made; the sentence of a
    problem is the replayer's.
    """
    state = MatchState(info, info.opener, hands, Layout.empty(), scores, None, None, 0)
    number = info.round
    for index, node in enumerate(nodes, start=1):
        seat, move = node[0], node[1]
        after = step(state, seat, move, index=index, round=number)
        if isinstance(after, Problem):
            raise InvalidState(after.describe(f"action {index}{round_name} ({move})"))
        made: Any = log_of(after)
        if made is None:  # the action ended the round: it is the last of the result's log
            made = round_log_of(after.last_round) if after.last_round is not None else None
        if made is None:
            raise InvalidState(f"action {index}{round_name} ({move}) left no action behind")
        if made[2] != node[2] or made[3] != node[3] or made[4] != node[4] or made[5] != node[5]:
            claimed = Action(seat, move, node[2], node[3], node[4], node[5])
            problem = claim_differences(claimed, after.last_action, index=index, fields=CLAIMS)[0]
            raise InvalidState(problem.describe(f"action {index}{round_name} ({move})"))
        state = after
        if tables is not None:
            tables.append(after.layout)
    if state.round != info.round:
        result = state.last_round
        assert result is not None
        return result
    return state


def _compare(state: MatchState, replayed: MatchState) -> None:
    """Name the first field of ``state`` that differs from the replay of its round."""
    if state.layout != replayed.layout:
        raise InvalidState(
            f"the table holds {_text(state.layout.tiles)} (in the order placed), but the "
            f"round's history places {_text(replayed.layout.tiles)}"
        )
    fields = ("hands", "drawn_count", "scores", "winner", "turn", "drawn")
    name = _first_difference(state, replayed, fields)
    if name is not None:
        value, expected = getattr(state, name), getattr(replayed, name)
        raise InvalidState(f"{name} is {value!r}, but the round's history gives {expected!r}")


def _first_difference(value: object, expected: object, fields: Iterable[str]) -> str | None:
    """The first of ``fields`` in which ``value`` differs from ``expected``, or None."""
    return next((f for f in fields if getattr(value, f) != getattr(expected, f)), None)


# -- the previous round ---------------------------------------------------------------


def _check_last_round(info: RoundInfo, start_scores: tuple[int, ...]) -> _Previous | None:
    """The previous round replays, settles as recorded, and leads to this round.

    It returns what the deal's check needs of it, or None if there is none.
    """
    result = info.last_round
    _check_below_target(info.round, start_scores, info.players)
    if result is None:
        if info.round != 1:
            raise InvalidState(f"round {info.round} has no result of the round before it")
        if any(start_scores):
            raise InvalidState(
                f"the first round starts at scores {start_scores}; a match starts at 0"
            )
        return None
    _check_leads_here(info, result, start_scores)
    _check_start_scores(info.round, start_scores)
    return _check_replays(info, result)


#: The most one settlement can take from a side. The hands left hold at most
#: the set's 168 pips, and each hand is rounded to the nearest multiple of
#: five (half up), which adds at most 2 to it; a side holds at most two
#: hands, so it loses at most 168 + 2 * 2 = 172, and being a sum of multiples
#: of five, at most 170.
MOST_DEDUCTED = 170


def _check_start_scores(number: int, scores: tuple[int, ...]) -> None:
    """Round ``number`` may start at ``scores``: zero in round 1, and no lower than can be.

    No side may be below what the settlements of the rounds before can have
    taken from it, ``MOST_DEDUCTED`` a round.
    """
    if number == 1 and any(scores):
        raise InvalidState(f"the first round starts at scores {scores}; a match starts at 0")
    least = -(number - 1) * MOST_DEDUCTED
    if any(score < least for score in scores):
        raise InvalidState(
            f"round {number} starts at scores {scores}, but {number - 1} settlements "
            f"take at most {MOST_DEDUCTED} each from a side, so no side can be below {least}"
        )


def _check_below_target(number: int, scores: tuple[int, ...], players: int) -> None:
    """Round ``number`` may start at ``scores``: no side has reached the target yet."""
    if any(score >= TARGET[players] for score in scores):
        raise InvalidState(
            f"round {number} starts at scores {scores}, at or past the target "
            f"{TARGET[players]}: the match would have ended"
        )


def _check_leads_here(info: RoundInfo, result: RoundResult, start_scores: tuple[int, ...]) -> None:
    """The previous round's ``result`` leads to this round: its number, scores and opener."""
    if info.round == 1:
        raise InvalidState("the first round has no round before it, but last_round is given")
    if result.round != info.round - 1:
        raise InvalidState(
            f"the previous round's result is for round {result.round!r}, not {info.round - 1}"
        )
    if result.scores != start_scores:
        raise InvalidState(
            f"round {info.round} starts at scores {start_scores}, but the previous round "
            f"ended at {result.scores!r}"
        )
    if type(result.end) is not RoundEnd:
        raise InvalidState(f"the previous round's end must be a RoundEnd, got {result.end!r}")
    if result.end is RoundEnd.DOMINO and result.finisher != info.opener:
        raise InvalidState(
            f"seat {result.finisher!r} went out last round and so opens this one, "
            f"not seat {info.opener}"
        )


#: The previous rounds found to replay, by the id of the result, with the number
#: of players they were checked for and what :func:`_check_replays` found. A
#: result never changes, and the check depends on nothing else, so every state
#: of a round (all share its RoundInfo) replays the round before only once.
#: The entry holds the result, so that its id cannot be reused while it lives.
_REPLAYED: dict[int, tuple[RoundResult, int, _Previous]] = {}
#: How many results are kept; all are let go when there are more.
_REPLAYED_LIMIT = 256


def _check_replays(info: RoundInfo, result: RoundResult) -> _Previous:
    """The previous round's history, replayed from its start, ends in ``result``.

    It returns the round's actions, its hands as dealt and the tiles drawn.
    """
    players = info.players
    known = _REPLAYED.get(id(result))
    if known is not None and known[0] is result and known[1] == players:
        return known[2]
    previous = _replays(info, result)
    if len(_REPLAYED) >= _REPLAYED_LIMIT:
        _REPLAYED.clear()
    _REPLAYED[id(result)] = (result, players, previous)
    return previous


def _replays(info: RoundInfo, result: RoundResult) -> _Previous:
    """:func:`_check_replays`, each time."""
    players = info.players
    name = f" of round {result.round}"
    hands = _hands(result.hands, players, "the previous round's hands")
    _scores(result.scores, players, "the previous round's scores")
    _ints(result.deductions, players, "the previous round's deductions")
    nodes = _nodes(round_log_of(result), players, "the previous round's history")
    if not nodes:
        raise InvalidState("the previous round's history is empty")
    before = list(result.scores)
    for seat, amount in enumerate(result.deductions):
        before[side_of(players, seat)] += amount
    start_scores_before = _start_scores(nodes, tuple(before), players)
    _check_below_target(result.round, start_scores_before, players)
    _check_start_scores(result.round, start_scores_before)
    start_hands = _start_hands(hands, nodes, players, name)
    drew = tuple([a[2] for a in nodes if type(a[1]) is Draw and a[2] is not None])
    dealt = {t for hand in start_hands for t in hand}
    rest = [t for t in ALL_TILES if t not in dealt and t not in drew]
    replay_info = RoundInfo(
        players,
        info.seed,
        result.round,
        nodes[0][0],
        (*drew, *rest),
        (),
        0,
        None,
        given=result.given,
    )
    replayed = _replay(replay_info, start_hands, start_scores_before, nodes, name)
    if not isinstance(replayed, RoundResult):
        raise InvalidState(f"the last action{name} does not end the round")
    if replayed != result:
        fields = ("end", "finisher", "layout", "hands", "deductions", "scores")
        field = _first_difference(result, replayed, fields)
        if field is not None:
            value, expected = getattr(result, field), getattr(replayed, field)
            raise InvalidState(
                f"the result{name} gives {field} {value!r}; the rules give {expected!r}"
            )
        raise InvalidState(f"the result{name} does not match the replay of its history")
    return nodes, start_hands, drew

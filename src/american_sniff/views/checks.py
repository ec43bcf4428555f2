"""What a view or an event must satisfy to be one that legal play can give.

A view shows the whole of its round so far (its history), where the round
started (the previous round's result, or nothing in round 1), and what the
viewer holds now. That is enough to play the round again in public, one
action after another, and to ask of every derived key whether the play gives
it. :func:`~american_sniff.views.check_view` does so for every view the
reader reads (a player's, a spectator's, and the view an event carries into
the next round); :func:`~american_sniff.views.check_event` asks the same of
one event against the view before it, for :func:`~american_sniff.apply_event`.
Both raise :class:`~american_sniff.InvalidView` naming the first problem.

Each check comes from a rule (``RULES.md``, and ``docs/formats.md`` for the
voids); the list of what is checked is in
:func:`~american_sniff.views.check_view`'s docstring and in the view section
of ``docs/formats.md``.
"""

from __future__ import annotations

from collections.abc import Sequence

from .. import rules
from ..errors import InvalidView
from ..layout import TILE_VALUES, Layout, placed, placements_of
from ..moves import Draw, Move, Pass, Place
from ..state import Action, RoundEnd, RoundResult, action_node
from ..tiles import Tile
from .facts import fact_step, round_start_facts, seen_after
from .model import Node, PlayerView, SpectatorView, ViewEvent, ended_of, view_log

__all__ = [
    "check_event",
    "check_view",
]

#: How many tiles the set holds.
_SET_SIZE = rules.TILE_COUNT

#: The most one settlement can take from a side: the hands left hold at most
#: the set's 168 pips, each hand rounds up by at most 2, a side holds at most
#: two hands, and a deduction is a multiple of five: 170 (as the state's
#: checks use).
_MOST_DEDUCTED = 170


def legal_moves_of(
    hand: Sequence[Tile], drawn: Tile | None, layout: Layout, stock_size: int
) -> tuple[Move, ...]:
    """The legal moves of a seat holding ``hand`` (sorted), in the engine's order.

    The same rules as :func:`~american_sniff.legal_moves`: on the empty table
    any tile opens; right after drawing a tile that fits, only that tile's
    placements; else every placement of every tile (by tile, then by point),
    and failing one a draw while the stock has tiles, else a pass.
    """
    tiles = tuple(hand) if drawn is None else (drawn,)
    if layout.is_empty:
        return tuple(Place(tile) for tile in tiles)
    moves: list[Move] = [
        Place(tile, point) for tile in tiles if _fits(layout, tile) for point in layout.fits(tile)
    ]
    if moves:
        return tuple(moves)
    return (Draw(),) if stock_size > 0 else (Pass(),)


def _values(tile: Tile) -> int:
    """The mask of the two values ``tile`` shows."""
    mask: int = TILE_VALUES[tile.index]
    return mask


def _fits(layout: Layout, tile: Tile) -> bool:
    """Whether ``tile`` shows a value open on ``layout`` (never on the empty table)."""
    return bool(TILE_VALUES[tile.index] & layout.value_mask)


def _sorted_values(mask: int) -> list[int]:
    return [v for v in range(rules.MAX_PIPS + 1) if mask >> v & 1]


def _placed_as_claimed(
    layout: Layout, tile: Tile, move: Place, action: Action, where: str
) -> tuple[Layout, int]:
    """The table after ``move`` places ``tile``, and what it scores, as ``action`` claims them.

    :raises InvalidView: if the table refuses the placement, or the action
        claims another end sum or other points; ``where`` names it.
    """
    try:
        layout = layout.place(tile, move.at)
    except ValueError as exc:
        raise InvalidView(f"{where} ({move}) is illegal: {exc}") from None
    points = rules.placement_points(layout.end_sum)
    if action.end_sum != layout.end_sum or action.points != points:
        raise InvalidView(
            f"{where} claims end sum {action.end_sum} and {action.points} points; "
            f"the table gives {layout.end_sum} and {points}"
        )
    return layout, points


def _start_scores(view: SpectatorView, where: str) -> tuple[int, ...]:
    """The scores the view's round started at, after checking the round before it.

    Round 1 starts at zero and has no round before it. A later round starts
    where the previous round's settlement left the scores: every one below the
    target (nobody had won), a multiple of five, no lower than the
    settlements so far can take; its opener is the seat that went out, if one
    did.
    """
    players = view.players
    sides = rules.side_count(players)
    last = view.last_round
    if view.round < 1:
        raise InvalidView(f"{where}.round must be 1 or more, got {view.round}")
    if view.round == 1:
        if last is not None:
            raise InvalidView(f"{where}.last_round must be null in the first round")
        return (0,) * sides
    if last is None:
        raise InvalidView(f"{where}.last_round is null, but round {view.round} has one before it")
    _check_result(last, view, f"{where}.last_round")
    return last.scores


def _check_result(result: RoundResult, view: SpectatorView, where: str) -> None:
    """The previous round's result is one a round can end with, and leads to this round."""
    players = view.players
    if result.round != view.round - 1:
        raise InvalidView(f"{where}.round is {result.round}, not {view.round - 1}")
    domino = result.end is RoundEnd.DOMINO
    if domino != (result.finisher is not None):
        raise InvalidView(f"{where}: a finisher is named after a domino, and only then")
    if domino and view.opener != result.finisher:
        raise InvalidView(
            f"{where}: seat {result.finisher} went out, so it opens, not {view.opener}"
        )
    table = set(result.layout.tiles)
    held = [tile for hand in result.hands for tile in hand]
    if len(set(held)) != len(held) or table & set(held):
        raise InvalidView(
            f"{where}: a tile is revealed twice (in two hands, or a hand and the table)"
        )
    if domino and result.finisher is not None and result.hands[result.finisher]:
        raise InvalidView(f"{where}: seat {result.finisher} went out, so its hand is empty")
    if not domino and len(table) + len(held) != _SET_SIZE:
        raise InvalidView(
            f"{where}: a blocked round has an empty stock, so hands and table hold 28"
        )
    for seat, hand in enumerate(result.hands):
        if result.deductions[seat] != rules.round_hand(sum(tile.pips for tile in hand)):
            raise InvalidView(f"{where}.deductions[{seat}] is not its hand's pips rounded")
    before = list(result.scores)
    for seat, amount in enumerate(result.deductions):
        before[rules.side_of(players, seat)] += amount
    least = -(view.round - 1) * _MOST_DEDUCTED
    for side, score in enumerate(result.scores):
        if not rules.is_score(score) or before[side] >= view.target or score < least:
            raise InvalidView(
                f"{where}.scores[{side}] is {score}: scores are multiples of five, below the "
                f"target {view.target} before settlement, and no lower than {least} "
                f"after {view.round - 1} settlements"
            )
    history = result.history
    if history:
        _check_finished_history(history, result, players, f"{where}.history")
    if result.round == 1:
        _check_first_round_from_zero(result, before, players, where)
    ended = ended_of(view)
    if ended is not None and not view.history and type(ended.move) is Place:
        final = result.layout
        if ended.move.tile != final.tiles[-1] or ended.end_sum != final.end_sum:
            raise InvalidView(f"{where}: the last action is not the round's last placement")
        if ended.points != rules.placement_points(final.end_sum):
            raise InvalidView(f"{where}: the last action claims other points than its end sum")


def _check_first_round_from_zero(
    result: RoundResult, before: list[int], players: int, where: str
) -> None:
    """Round 1 started at zero: before its settlement, each side held what it scored in it.

    With the history shown, each side's points are known; with only the
    placements, their total is, and each side holds a share of it, none below 0.
    """
    scored = [0] * len(before)
    if result.history:
        for action in result.history:
            scored[rules.side_of(players, action.seat)] += action.points or 0
        if scored != before:
            raise InvalidView(
                f"{where}: round 1 starts at 0, so before its settlement the scores are the "
                f"points scored in it, {scored}, not {before}"
            )
        return
    total = 0
    layout = Layout.empty()
    for tile, key in reversed(_placements(result.layout)):
        layout = placed(layout, tile, key)
        total += rules.placement_points(layout.end_sum)
    if sum(before) != total or min(before) < 0:
        raise InvalidView(
            f"{where}: round 1 starts at 0, so before its settlement the sides share the "
            f"{total} points its placements scored, none below 0, not {before}"
        )


def _placements(layout: Layout) -> list[tuple[Tile, int | None]]:
    """The placements of ``layout``, newest first: each tile and the key of its point."""
    found = []
    node = placements_of(layout)
    while node is not None:
        tile, key, node = node
        found.append((tile, key))
    return found


def _check_finished_history(
    history: Sequence[Action], result: RoundResult, players: int, where: str
) -> None:
    """A finished round's history, as shown: in turn, legal on its table, claiming what it gives.

    It builds the round's table; each action is by the seat to move after the
    one before (the same seat after a draw, the next after a placement or a
    pass); each placement fits and claims its end sum and points; a domino
    ends with the finisher's placement.
    """
    layout = Layout.empty()
    turn = history[0].seat
    for index, action in enumerate(history):
        at = f"{where}[{index}]"
        move = action.move
        if action.seat != turn:
            raise InvalidView(f"{at} is by seat {action.seat}, but seat {turn} is to move")
        if type(move) is Place:
            try:
                layout = layout.place(move.tile, move.at)
            except ValueError as exc:
                raise InvalidView(f"{at} ({move}) is illegal: {exc}") from None
            points = rules.placement_points(layout.end_sum)
            if action.end_sum != layout.end_sum or action.points != points:
                raise InvalidView(f"{at} claims other end sum or points than the table gives")
        elif layout.is_empty:
            raise InvalidView(f"{at}: seat {action.seat} opens the round, so it must place")
        if type(move) is not Draw:
            turn = rules.next_seat(players, action.seat)
    if layout != result.layout:
        raise InvalidView(f"{where} does not build the round's table")
    if result.finisher is not None and (
        history[-1].seat != result.finisher or type(history[-1].move) is not Place
    ):
        raise InvalidView(f"{where}: seat {result.finisher} went out, so it placed last")


def check_view(view: SpectatorView, where: str = "$") -> None:  # noqa: PLR0915
    """Refuse ``view`` unless legal play can give it: its round is played again in public.

    What is checked, each from the rules:

    * **The round's start.** Round 1 has no round before it and starts at zero;
      a later round starts at the previous round's scores after settlement,
      which are multiples of five, below the target before settlement and no
      lower than 170 a settlement can take; its hands are disjoint, its
      deductions their pips rounded, the finisher's hand empty after a domino,
      hands and table holding all 28 tiles after a block; the seat that went out
      opens. Its history, when shown, is in turn, legal and claims what its
      table gives, builds its table, and ends with the finisher's placement;
      at a round's start the last action is its last placement.
    * **The history, action by action**, from the deal (7, 6 or 5 tiles each,
      the rest in the stock): each action is by the seat to move (the opener
      first; the same seat again after a draw; the next seat after a
      placement or a pass); the opening is a placement; a draw needs stock, a
      pass an empty one; each placement is legal on the table so far, with
      the end sum and points it gives; a seat known void in a value (see the
      voids) does not then place a tile it held showing it; nothing follows
      the placement that wins, and a placement that empties a hand without
      winning ends the round (its view is the next round's).
    * **The history builds the table shown**, exactly.
    * **Tile accounting:** the hand sizes and the stock size are what the deal
      and the history leave (so hands, stock and table hold 28); no tile
      twice.
    * **The viewer's own hand** (a player's view), played back from the hand
      shown: every tile it placed was in its hand, every tile it drew was
      neither held nor on the table, a tile it drew that fits is the one it
      places, and it drew or passed only holding no tile that fits. No other
      seat places a tile the viewer holds.
    * **The turn, the drawn tile and the legal moves** are the ones the play
      leaves: the legal moves of the hand on the table shown when the viewer
      is to move, else none.
    * **The voids** are exactly what the history shows (``docs/formats.md``),
      and the round is not left blocked by what they show.
    * **Scores and the winner:** the scores are the start's plus the points of
      the round's placements; a winner is the side whose last placement
      reached the target, and no side has reached it otherwise.
    * **The sequence number:** the number of actions in round 1; later, at
      least the round's actions, the previous round's (its history if shown,
      else its placements) and 5, 6 or 7 (one hand) for each round before.

    :raises InvalidView: naming the first problem.
    """
    players = view.players
    deal = rules.hand_size(players)
    start = _start_scores(view, where)
    scores = list(start)
    sizes = [deal] * players
    stock = _SET_SIZE - players * deal
    layout = Layout.empty()
    turn = view.opener
    winner: int | None = None
    viewer = view.viewer
    hand: set[Tile] | None = None
    history = view.history
    if isinstance(view, PlayerView):
        hand = _hand_at_start(view, history, where)
    seen = round_start_facts(players)
    log = None
    last_drawn: Tile | None = None  # the viewer's tile drawn this turn
    for index, action in enumerate(history):
        at = f"{where}.history[{index}]"
        seat, move = action.seat, action.move
        if winner is not None:
            raise InvalidView(f"{at}: the match was won by the action before; nothing follows")
        if seat != turn:
            raise InvalidView(f"{at} is by seat {seat}, but seat {turn} is to move")
        drew_this_turn = seen.current == seat and seen.draws > 0
        kind = type(move)
        if kind is Place:
            assert isinstance(move, Place)
            tile = move.tile
            if hand is not None:
                if seat == viewer:
                    if tile not in hand:
                        raise InvalidView(f"{at}: seat {seat} places {tile}, not in its hand")
                    if last_drawn is not None and _fits(layout, last_drawn) and tile != last_drawn:
                        raise InvalidView(f"{at}: seat {seat} drew {last_drawn}, which fits")
                    hand.discard(tile)
                elif tile in hand:
                    raise InvalidView(f"{at}: seat {seat} places {tile}, held by the viewer")
            if not drew_this_turn and _values(tile) & seen.voids[seat]:
                raise InvalidView(
                    f"{at}: seat {seat} is known to hold none of "
                    f"{_sorted_values(seen.voids[seat])}, so it cannot place {tile}"
                )
            layout, points = _placed_as_claimed(layout, tile, move, action, at)
            side = rules.side_of(players, seat)
            scores[side] += points
            sizes[seat] -= 1
            if scores[side] >= view.target:
                winner = side
            elif sizes[seat] == 0:
                raise InvalidView(f"{at} empties seat {seat}'s hand: the round ended there")
            else:
                turn = rules.next_seat(players, seat)
            last_drawn = None
        else:
            if layout.is_empty:
                raise InvalidView(f"{at}: seat {seat} opens the round, so it must place")
            if kind is Draw and stock == 0:
                raise InvalidView(f"{at}: seat {seat} draws from an empty stock")
            if kind is Pass and stock > 0:
                raise InvalidView(f"{at}: seat {seat} passes with {stock} tiles in the stock")
            if hand is not None and seat == viewer:
                fitting = [tile for tile in hand if _fits(layout, tile)]
                if fitting:
                    raise InvalidView(f"{at}: seat {seat} holds {fitting[0]}, which fits")
                if kind is Draw:
                    drawn = action.tile
                    if drawn is None or drawn in hand or drawn in layout:
                        raise InvalidView(f"{at}: seat {seat} draws {drawn}, already seen")
                    hand.add(drawn)
                    last_drawn = drawn
            if kind is Draw:
                stock -= 1
                sizes[seat] += 1
            else:
                turn = rules.next_seat(players, seat)
                last_drawn = None
        log = action_node(seat, move, None, None, 0, (), log)
        seen = fact_step(seen, log, layout)
    if layout != view.layout:
        raise InvalidView(f"{where}.history does not build the table shown")
    if tuple(sizes) != view.hand_sizes:
        raise InvalidView(
            f"{where}.hand_sizes are {list(view.hand_sizes)}; the history gives {sizes}"
        )
    if stock != view.stock_size:
        raise InvalidView(f"{where}.stock_size is {view.stock_size}; the history gives {stock}")
    if tuple(scores) != view.scores:
        raise InvalidView(f"{where}.scores are {list(view.scores)}; the history gives {scores}")
    if winner != view.winner:
        raise InvalidView(f"{where}.winner is {view.winner}; the history gives {winner}")
    if winner is not None:
        turn = history[-1].seat
    if turn != view.turn:
        raise InvalidView(f"{where}.turn is seat {view.turn}; the history gives seat {turn}")
    if seen.void_sets != view.voids:
        raise InvalidView(f"{where}.voids are not what the history shows")
    _check_seq(view, len(history), where)
    if isinstance(view, PlayerView):
        assert hand is not None
        if hand != set(view.hand):
            raise InvalidView(f"{where}.hand is not what the viewer's draws and placements leave")
        to_move = winner is None and turn == view.seat
        drawn = (
            last_drawn if to_move and last_drawn is not None and _fits(layout, last_drawn) else None
        )
        if view.drawn != drawn:
            raise InvalidView(f"{where}.drawn is {view.drawn}; the history gives {drawn}")
        moves = legal_moves_of(view.hand, drawn, layout, stock) if to_move else ()
        if view.legal_moves != moves:
            raise InvalidView(f"{where}.legal_moves are not the hand's on this table")
    if winner is None and stock == 0 and history:
        _check_not_blocked(view, seen.voids, where)


def _hand_at_start(view: PlayerView, history: Sequence[Action], where: str) -> set[Tile]:
    """The viewer's hand as dealt: the hand now, with the tiles it placed, less those it drew."""
    now = set(view.hand)
    if now & set(view.layout.tiles):
        raise InvalidView(f"{where}.hand holds a tile that is on the table")
    placed: set[Tile] = set()
    drew: set[Tile] = set()
    for action in history:
        if action.seat != view.seat:
            continue
        if type(action.move) is Place:
            placed.add(action.move.tile)
        elif action.tile is not None:
            drew.add(action.tile)
    start = (now | placed) - drew
    return start


def _check_seq(view: SpectatorView, actions: int, where: str) -> None:
    """The sequence number counts the match's actions (see ``check_view``)."""
    if view.round == 1:
        if view.seq != actions:
            raise InvalidView(f"{where}.seq is {view.seq}, but round 1 has had {actions} actions")
        return
    last = view.last_round
    assert last is not None
    shown = len(last.history)
    before = shown if shown else len(last.layout)
    least = actions + before + (view.round - 2) * rules.fewest_actions(view.players)
    if view.seq < least:
        raise InvalidView(f"{where}.seq is {view.seq}, but at least {least} actions led here")


def _check_not_blocked(view: SpectatorView, voids: tuple[int, ...], where: str) -> None:
    """With the stock empty, some seat may still place: else the round ended blocked."""
    open_values = view.layout.value_mask
    for seat in range(view.players):
        if isinstance(view, PlayerView) and seat == view.seat:
            if any(_fits(view.layout, tile) for tile in view.hand):
                return
        elif open_values & ~voids[seat]:
            return
    raise InvalidView(f"{where}: the stock is empty and no seat can place: the round was blocked")


def check_event(view: SpectatorView, event: ViewEvent) -> None:
    """Refuse ``event`` unless it can follow ``view``: what ``apply_event`` checks.

    The match goes on; the actor is the seat to move; an opening is a
    placement; a draw needs stock and a pass an empty one; a seat that just
    drew a tile that fits places it; a draw shows its tile to its own seat
    only, a tile neither held nor on the table; a placement is legal on the
    table shown, of a tile the viewer does not hold unless it is the viewer's
    own, with the end sum and points the table gives and the scores that
    follow; a winner is the side that reached the target; an action that
    empties a hand without winning ends the round (the event carries the next
    round: the round after, at the event's ``seq``, after the table the action
    leaves, settling the scores it leaves, revealing the viewer's hand as it
    leaves it, and a view :func:`check_view` accepts). If the round goes on,
    the turn, voids, drawn tile and legal moves are what the action leaves.

    :raises InvalidView: naming the first problem.
    """
    check_event_on(view, event, event_log(view, event))


def event_log(view: SpectatorView, event: ViewEvent) -> Node:
    """The log the view after ``event`` holds: the event's action on the view's log."""
    action = event.action
    return action_node(
        action.seat,
        action.move,
        action.tile,
        action.end_sum,
        action.points,
        action.scores,
        view_log(view),
    )


def check_event_on(view: SpectatorView, event: ViewEvent, log: Node) -> Layout:  # noqa: PLR0915
    """:func:`check_event`, where ``log`` is the log the view after the event will hold.

    It returns the table after the event.

    What is known after the action is kept with ``log`` (see
    :mod:`~american_sniff.views.facts`), so that applying events one after
    another costs the same at any point of a round.
    """
    action = event.action
    seat, move = action.seat, action.move
    players = view.players
    if view.winner is not None:
        raise InvalidView("the match is over: no event follows it")
    if not 0 <= seat < players:
        raise InvalidView(f"the event's action is by seat {seat}, not a seat of the match")
    if seat != view.turn:
        raise InvalidView(f"the event's action is by seat {seat}, but seat {view.turn} is to move")
    viewer = view.viewer
    hand = view.hand if isinstance(view, PlayerView) else ()
    drawn = view.drawn if isinstance(view, PlayerView) else None
    layout = view.layout
    scores = list(view.scores)
    kind = type(move)
    if kind is not Place and (action.end_sum is not None or action.points):
        raise InvalidView("a draw or a pass has no end sum and no points")
    if kind is Place:
        assert isinstance(move, Place)
        tile = move.tile
        if seat == viewer and tile not in hand:
            raise InvalidView(f"seat {seat} places {tile}, which is not in its hand")
        if seat != viewer and tile in hand:
            raise InvalidView(f"seat {seat} places {tile}, which the viewer holds")
        if drawn is not None and tile != drawn:
            raise InvalidView(f"seat {seat} just drew {drawn}, which fits: it must place it")
        if action.tile is not None:
            raise InvalidView("a placement shows no drawn tile")
        layout, points = _placed_as_claimed(layout, tile, move, action, "the event's placement")
        scores[rules.side_of(players, seat)] += points
    else:
        if layout.is_empty:
            raise InvalidView(f"seat {seat} opens the round, so it must place")
        if drawn is not None:
            raise InvalidView(f"seat {seat} just drew {drawn}, which fits: it must place it")
        stock = view.stock_size
        if kind is Draw and stock <= 0:
            raise InvalidView(f"seat {seat} draws from an empty stock")
        if kind is Pass and stock > 0:
            raise InvalidView(f"seat {seat} passes with {stock} tiles in the stock")
        if kind is Draw and (action.tile is not None) != (seat == viewer):
            raise InvalidView("a draw shows its tile to the seat that drew it, and only to it")
        if seat == viewer and any(_fits(layout, tile) for tile in hand):
            raise InvalidView(f"seat {seat} holds a tile that fits, so it must place")
        if action.tile is not None and (action.tile in hand or action.tile in layout):
            raise InvalidView(f"seat {seat} draws {action.tile}, which is already seen")
    if tuple(scores) != action.scores:
        raise InvalidView(
            f"the event's scores are {list(action.scores)}; the action gives {scores}"
        )
    won = next((s for s, score in enumerate(scores) if score >= view.target), None)
    if won != action.winner:
        raise InvalidView(f"the event's winner is {action.winner}; the scores give {won}")
    emptied = kind is Place and view.hand_sizes[seat] == 1
    if emptied and won is None and event.next_round is None:
        raise InvalidView(f"seat {seat} placed its last tile: the event must start the next round")
    if event.next_round is not None:
        _check_next_round(view, event, layout, won)
        return layout
    _check_after(view, event, layout, won, log)
    return layout


def _check_next_round(
    view: SpectatorView, event: ViewEvent, layout: Layout, won: int | None
) -> None:
    """An event that ends the round carries the next round's first view, which follows it."""
    following = event.next_round
    assert following is not None
    if won is not None:
        raise InvalidView("the action won the match: no round follows it")
    if following.round != view.round + 1 or following.seq != event.seq:
        raise InvalidView("the event's next round is not the round after the view's, at its seq")
    last = following.last_round
    if last is None or last.layout != layout:
        raise InvalidView("the event's next round does not follow the table the action leaves")
    players = view.players
    before = list(last.scores)
    for seat, amount in enumerate(last.deductions):
        before[rules.side_of(players, seat)] += amount
    if tuple(before) != event.action.scores:
        raise InvalidView("the event's next round settles other scores than the action leaves")
    if isinstance(view, PlayerView):
        action = event.action
        hand = set(view.hand)
        if type(action.move) is Place and action.seat == view.seat:
            hand.discard(action.move.tile)
        elif action.tile is not None:
            hand.add(action.tile)
        if set(last.hands[view.seat]) != hand:
            raise InvalidView("the event's next round reveals another hand than the viewer's")
    check_view(following, "the event's next_round")


def _check_after(
    view: SpectatorView, event: ViewEvent, layout: Layout, won: int | None, log: Node
) -> None:
    """Within a round: the turn, voids, drawn tile and legal moves the action leaves."""
    action = event.action
    seat, move = action.seat, action.move
    players = view.players
    turn = seat if won is not None or type(move) is Draw else rules.next_seat(players, seat)
    if event.turn != turn:
        raise InvalidView(f"the event gives the turn to seat {event.turn}; the action to {turn}")
    viewer = players if view.viewer is None else view.viewer
    if seen_after(log, players, layout, viewer).void_sets != event.voids:
        raise InvalidView("the event's voids are not what the action shows")
    if not isinstance(view, PlayerView):
        if event.drawn is not None or event.legal_moves:
            raise InvalidView("a spectator's event has no drawn tile and no legal moves")
        return
    hand = list(view.hand)
    if type(move) is Place and seat == view.seat:
        hand.remove(move.tile)
    elif type(move) is Draw and action.tile is not None:
        hand = sorted((*hand, action.tile), key=lambda tile: tile.index)
    stock = view.stock_size - (type(move) is Draw)
    to_move = won is None and turn == view.seat
    tile = action.tile
    drawn = (
        tile
        if to_move and tile is not None and type(move) is Draw and _fits(layout, tile)
        else None
    )
    if event.drawn != drawn:
        raise InvalidView(f"the event's drawn tile is {event.drawn}; the action gives {drawn}")
    moves = legal_moves_of(hand, drawn, layout, stock) if to_move else ()
    if event.legal_moves != moves:
        raise InvalidView("the event's legal moves are not the viewer's after the action")

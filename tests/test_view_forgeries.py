"""Forged views and events: each refusal branch of the view reader and its checks.

Every case starts from a genuine view (or event) that play gives, changes the
one field a check looks at to a value no legal play can give, and expects
:class:`~american_sniff.InvalidView` naming the problem.
"""

from __future__ import annotations

import copy
import functools
import json
import random
from collections.abc import Callable
from typing import Any

import attrs
import pytest

from american_sniff import (
    Draw,
    InvalidView,
    MatchState,
    Pass,
    Place,
    PlayerView,
    SpectatorView,
    ViewEvent,
    apply,
    apply_event,
    event_for,
    legal_moves,
    new_match,
    spectator_view,
    view_for,
)
from american_sniff.tiles import ALL_TILES, Tile
from american_sniff.views import check_event, event_from_json, view_from_json

Doc = dict[str, Any]
Mutate = Callable[[Doc], None]


# -- genuine play --------------------------------------------------------------------------


@functools.cache
def _match(players: int, seed: int) -> tuple[MatchState, ...]:
    """Every state of one random match, from the deal to its end."""
    rng = random.Random(seed)
    states = [new_match(players, seed=seed)]
    while not states[-1].is_over:
        states.append(apply(states[-1], rng.choice(legal_moves(states[-1]))))
    return tuple(states)


def _pairs(players: int = 2, seeds: range = range(1, 6)) -> list[tuple[MatchState, MatchState]]:
    """Every (before, after) pair of consecutive states of a few matches."""
    return [
        (states[i - 1], states[i])
        for seed in seeds
        for states in [_match(players, seed)]
        for i in range(1, len(states))
    ]


def _first(want: Callable[[MatchState], bool], players: int = 2) -> MatchState:
    return next(state for seed in range(1, 40) for state in _match(players, seed) if want(state))


def _doc(view: SpectatorView) -> Doc:
    doc: Doc = json.loads(view.to_json())
    return doc


def _mid_round() -> MatchState:
    """Round 1, a few placements in, seat 0 not to move."""
    return _first(
        lambda s: s.info.round == 1 and len(s.layout) >= 4 and s.turn != 0 and s.stock_size > 0
    )


def _viewer_to_move() -> MatchState:
    """Round 1, seat 0 to move with a tile that fits, after it placed before."""
    return _first(
        lambda s: (
            s.info.round == 1
            and s.turn == 0
            and s.stock_size > 0
            and len(s.layout) >= 4
            and any(s.layout.fits(t) for t in s.hands[0])
        )
    )


def _round_two() -> MatchState:
    """Round 2, a few actions in, after a round 1 that ended with a domino."""
    return _first(
        lambda s: (
            s.info.round == 2
            and len(s.history) >= 2
            and view_for(s, 0).last_round is not None
            and view_for(s, 0).last_round.finisher is not None  # type: ignore[union-attr]
        )
    )


def _round_two_start() -> MatchState:
    """The first state of round 2, after a domino: its last action is the round's last placement."""
    return _first(
        lambda s: (
            s.info.round == 2
            and not s.history
            and view_for(s, 0).last_round is not None
            and view_for(s, 0).last_round.finisher is not None  # type: ignore[union-attr]
        )
    )


def _mid() -> Doc:
    return _doc(view_for(_mid_round(), 0))


def _spectator() -> Doc:
    return _doc(spectator_view(_mid_round()))


def _mover() -> Doc:
    return _doc(view_for(_viewer_to_move(), 0))


def _r2() -> Doc:
    return _doc(view_for(_round_two(), 0, last_round_history=True))


def _r2_start() -> Doc:
    return _doc(view_for(_round_two_start(), 0))


def _read(doc: Doc) -> SpectatorView:
    return view_from_json(json.dumps(doc))


def _action(seat: int, move: str, end_sum: int | None = None, points: int | None = None) -> Doc:
    return {"seat": seat, "move": move, "tile": None, "end_sum": end_sum, "points": points}


def _append(doc: Doc, action: Doc) -> None:
    """Add ``action`` to the history, as the view's last action (the rest is left as it was)."""
    doc["history"].append(action)
    doc["last_action"] = dict(action)


def _set(key: str, value: object) -> Mutate:
    def mutate(doc: Doc) -> None:
        doc[key] = value

    return mutate


def _set_in(key: str, inner: str, value: object) -> Mutate:
    def mutate(doc: Doc) -> None:
        doc[key][inner] = value

    return mutate


# -- the reader's own checks: the document's keys against each other -----------------------


def _table_placement_is_a_draw(doc: Doc) -> None:
    doc["table"]["placements"][1] = "draw"


def _table_placement_does_not_fit(doc: Doc) -> None:
    doc["table"]["placements"][1] = "[6|6] on " + doc["table"]["placements"][0].split()[0] + " low"


def _table_tile_bad(doc: Doc) -> None:
    doc["table"]["placements"][0] = "[7|7] opens"


def _seen_draw(doc: Doc) -> None:
    """Show the tile of another seat's draw (the viewer is seat 0)."""
    _append(doc, {**_action(doc["turn"], "draw"), "tile": "[0|0]"})


def _hand_reversed(doc: Doc) -> None:
    doc["hand"].reverse()


def _spectator_hand(doc: Doc) -> None:
    doc["hand"] = []


def _last_action_null(doc: Doc) -> None:
    doc["last_action"] = None


def _last_action_forged(doc: Doc) -> None:
    doc["last_action"] = {**doc["last_action"], "seat": 1 - doc["last_action"]["seat"]}


def _last_action_at_the_start(doc: Doc) -> None:
    doc["last_action"] = _action(1, "[0|0] opens", 0, 0)


def _history_seat_out_of_range(doc: Doc) -> None:
    doc["history"][0]["seat"] = 7


def _last_round_end(doc: Doc) -> None:
    doc["last_round"]["end"] = "resigned"


def _last_round_deductions_count(doc: Doc) -> None:
    doc["last_round"]["deductions"].append(0)


def _last_round_scores_count(doc: Doc) -> None:
    doc["last_round"]["scores"].append(0)


def _last_round_dealt_from(doc: Doc) -> None:
    doc["last_round"]["dealt_from"] = "shuffle"


def _last_round_hand_tile(doc: Doc) -> None:
    hands = doc["last_round"]["hands"]
    seat = next(s for s, hand in enumerate(hands) if hand)
    hands[seat][0] = "[9|9]"


def _last_round_placement(doc: Doc) -> None:
    doc["last_round"]["placements"][0] = "pass"


READER_CASES: list[tuple[str, Callable[[], Doc], Mutate, str]] = [
    ("players", _mid, _set("players", 5), "players must be 2, 3 or 4, got 5"),
    ("scores per side", _mid, _set("scores", [0, 0, 0]), "scores must hold one integer per side"),
    ("table placement not a placement", _mid, _table_placement_is_a_draw, "is not a placement"),
    ("table placement illegal", _mid, _table_placement_does_not_fit, "is illegal"),
    ("table tile", _mid, _table_tile_bad, "placements[0]: not a tile"),
    ("hand sizes", _mid, _set("hand_sizes", [7]), "hand_sizes must hold 2 integers"),
    ("negative round", _mid, _set("round", -1), "round must not be negative, got -1"),
    ("negative stock", _mid, _set("stock_size", -1), "stock_size must not be negative"),
    ("voids per seat", _mid, _set("voids", [[]]), "voids must hold 2 lists, one per seat"),
    ("voids order", _mid, _set("voids", [[3, 1], []]), "distinct values from 0 to 6"),
    ("target", _mid, _set("target", 100), "target is 250 with 2 players"),
    ("seat", _mid, _set("seat", 2), "seat must be a seat from 0 to 1, got 2"),
    ("hand bad tile", _mid, _set("hand", ["[0|9]"]), "hand[0]: '[0|9]' is not a tile"),
    ("hand unsorted", _mid, _hand_reversed, "hand must be distinct tiles, sorted"),
    ("hand null", _mid, _set("hand", None), "a player's view has a hand, legal moves and previews"),
    ("drawn bad tile", _mid, _set("drawn", "[x|y]"), "drawn: '[x|y]' is not a tile"),
    ("legal move bad", _mid, _set("legal_moves", ["jump"]), "legal_moves[0]: not a move"),
    ("spectator hand", _spectator, _spectator_hand, "hand must be null in a spectator's view"),
    ("a draw shown to another seat", _mid, _seen_draw, "must be null (hidden from this viewer)"),
    ("history seat", _mid, _history_seat_out_of_range, "seat must be from 0 to 1, got 7"),
    ("last action null", _mid, _last_action_null, "last_action is null, but an action led"),
    ("last action forged", _mid, _last_action_forged, "last_action does not match the history"),
    ("last round end", _r2, _last_round_end, "end must be 'domino' or 'blocked'"),
    ("last round deductions", _r2, _last_round_deductions_count, "one entry per seat"),
    ("last round scores", _r2, _last_round_scores_count, "scores must hold one integer per side"),
    ("last round dealt from", _r2, _last_round_dealt_from, "dealt_from must be 'seed' or 'deal'"),
    ("last round hand tile", _r2, _last_round_hand_tile, "last_round.hands["),
    ("last round placement", _r2, _last_round_placement, "is not a placement"),
]


@pytest.mark.parametrize(
    ("make", "mutate", "message"),
    [pytest.param(make, mutate, message, id=name) for name, make, mutate, message in READER_CASES],
)
def test_a_forged_document_is_refused_by_the_reader(
    make: Callable[[], Doc], mutate: Mutate, message: str
) -> None:
    """Keys that disagree with the rest of the document are refused, named."""
    doc = make()
    _read(copy.deepcopy(doc))  # the genuine view is read
    mutate(doc)
    with pytest.raises(InvalidView) as info:
        _read(doc)
    assert message in str(info.value)


def test_a_last_action_without_one_before_it_is_refused() -> None:
    """At the match's start no action led to the view."""
    doc = _doc(view_for(new_match(2, seed=1), 0))
    doc["last_action"] = _action(1, "[0|0] opens", 0, 0)
    with pytest.raises(InvalidView, match="last_action is given, but no action led"):
        _read(doc)


# -- the rules' checks: the round played again in public -----------------------------------


def _finisher(doc: Doc) -> int:
    finisher: int = doc["last_round"]["finisher"]
    return finisher


def _no_finisher(doc: Doc) -> None:
    doc["last_round"]["finisher"] = None


def _other_finisher(doc: Doc) -> None:
    doc["last_round"]["finisher"] = 1 - _finisher(doc)


def _tile_twice(doc: Doc) -> None:
    hand = doc["last_round"]["hands"][1 - _finisher(doc)]
    hand.append(doc["last_round"]["placements"][0].split()[0])


def _finisher_holds(doc: Doc) -> None:
    hands = doc["last_round"]["hands"]
    hands[_finisher(doc)].append(hands[1 - _finisher(doc)].pop())


def _blocked_with_stock(doc: Doc) -> None:
    doc["last_round"]["end"] = "blocked"
    doc["last_round"]["finisher"] = None


def _deduction(doc: Doc) -> None:
    doc["last_round"]["deductions"][0] += 5


def _odd_score(doc: Doc) -> None:
    doc["last_round"]["scores"][0] += 1


def _finished_history_seat(doc: Doc) -> None:
    doc["last_round"]["history"][1]["seat"] = doc["last_round"]["history"][0]["seat"]


def _finished_history_illegal(doc: Doc) -> None:
    history = doc["last_round"]["history"]
    history[1] = {**history[1], "move": history[0]["move"]}


def _finished_history_opens_with_a_pass(doc: Doc) -> None:
    history = doc["last_round"]["history"]
    history[0] = _action(history[0]["seat"], "pass")


def _finished_history_short(doc: Doc) -> None:
    history = doc["last_round"]["history"]
    history.pop()
    history.pop()


def _finished_history_end_sum(doc: Doc) -> None:
    history = doc["last_round"]["history"]
    history[0]["end_sum"] += 1


def _finished_history_draw_last(doc: Doc) -> None:
    seat = 1 - _finisher(doc)
    tile = None if seat != 0 else "[0|0]"
    doc["last_round"]["history"].append({**_action(seat, "draw"), "tile": tile})


def _start_end_sum(doc: Doc) -> None:
    doc["last_action"]["end_sum"] += 1


def _start_points(doc: Doc) -> None:
    doc["last_action"]["points"] += 5


LAST_ROUND_CASES: list[tuple[str, Callable[[], Doc], Mutate, str]] = [
    ("round zero", _mid, _set("round", 0), "round must be 1 or more, got 0"),
    ("first round after a round", _r2, _set("round", 1), "last_round must be null in the first"),
    ("second round from nothing", _mid, _set("round", 2), "last_round is null, but round 2"),
    ("last round number", _r2, _set_in("last_round", "round", 2), "last_round.round is 2, not 1"),
    ("domino without finisher", _r2, _no_finisher, "a finisher is named after a domino"),
    ("finisher does not open", _r2, _other_finisher, "went out, so it opens"),
    ("tile revealed twice", _r2, _tile_twice, "a tile is revealed twice"),
    ("finisher holds a tile", _r2, _finisher_holds, "went out, so its hand is empty"),
    ("blocked with stock left", _r2, _blocked_with_stock, "a blocked round has an empty stock"),
    ("deduction", _r2, _deduction, "deductions[0] is not its hand's pips rounded"),
    ("score not a multiple of five", _r2, _odd_score, "scores are multiples of five"),
    ("finished history out of turn", _r2, _finished_history_seat, "is by seat"),
    ("finished history illegal", _r2, _finished_history_illegal, "is illegal"),
    ("finished history opens with a pass", _r2, _finished_history_opens_with_a_pass, "must place"),
    ("finished history short", _r2, _finished_history_short, "does not build the round's table"),
    ("finished history end sum", _r2, _finished_history_end_sum, "claims other end sum"),
    ("finished history draw last", _r2, _finished_history_draw_last, "so it placed last"),
    ("round start end sum", _r2_start, _start_end_sum, "not the round's last placement"),
    ("round start points", _r2_start, _start_points, "claims other points than its end sum"),
]


@pytest.mark.parametrize(
    ("make", "mutate", "message"),
    [pytest.param(m, f, s, id=name) for name, m, f, s in LAST_ROUND_CASES],
)
def test_a_round_that_does_not_start_where_play_leaves_it_is_refused(
    make: Callable[[], Doc], mutate: Mutate, message: str
) -> None:
    """The previous round's result must be one a round ends with, leading to this round."""
    doc = make()
    _read(copy.deepcopy(doc))
    mutate(doc)
    with pytest.raises(InvalidView) as info:
        _read(doc)
    assert message in str(info.value)


# -- the round's history, played again ----------------------------------------------------


def _placement_of(view: SpectatorView, tile: Tile) -> Doc:
    """The action placing ``tile`` (which fits) on the view's table, by the seat to move."""
    layout = view.layout.place(tile, view.layout.fits(tile)[0])
    move = Place(tile, view.layout.fits(tile)[0])
    end_sum = layout.end_sum
    points = end_sum if end_sum % 5 == 0 else 0
    return _action(view.turn, str(move), end_sum, points)


def _won() -> Doc:
    return _doc(spectator_view(_first(lambda s: s.is_over)))


def _after_the_win(doc: Doc) -> None:
    _append(doc, _action(doc["last_action"]["seat"], "pass"))


def _viewer_places_twice(doc: Doc) -> None:
    mine = next(a for a in doc["history"] if a["seat"] == 0 and a["move"] != "draw")
    _append(doc, {**mine})


def _other_places_a_held_tile() -> Doc:
    view = view_for(_first(lambda s: s.turn == 1 and bool(s.history) and _holds_fit(s, 0)), 0)
    doc = _doc(view)
    tile = next(t for t in view.hand if view.layout.fits(t))
    _append(doc, _placement_of(view, tile))
    return doc


def _holds_fit(state: MatchState, seat: int) -> bool:
    return any(state.layout.fits(t) for t in state.hands[seat])


def _draws_holding_a_fit(doc: Doc) -> None:
    _append(doc, {**_action(0, "draw"), "tile": "[0|0]"})


def _end_sum_claim(doc: Doc) -> None:
    doc["history"][-1]["end_sum"] += 1
    doc["last_action"] = dict(doc["history"][-1])


def _pass_with_stock(doc: Doc) -> None:
    _append(doc, _action(doc["turn"], "pass"))


def _history_dropped(doc: Doc) -> None:
    doc["history"].pop()
    doc["last_action"] = dict(doc["history"][-1])


def _stock(doc: Doc) -> None:
    doc["stock_size"] -= 1


def _hand_size(doc: Doc) -> None:
    doc["hand_sizes"][1] += 1


def _turn(doc: Doc) -> None:
    doc["turn"] = 1 - doc["turn"]


def _drawn(doc: Doc) -> None:
    doc["drawn"] = doc["hand"][0]


def _legal_moves_dropped(doc: Doc) -> None:
    doc["legal_moves"].pop()
    doc["previews"].pop()


def _emptied_hand() -> Doc:
    """The view before a placement that ended round 1, with that placement added."""
    before, after = next(
        (b, a)
        for b, a in _pairs()
        if b.info.round == 1
        and a.info.round == 2
        and b.history
        and type(event_for(a, None).action.move) is Place
    )
    doc = _doc(spectator_view(before))
    action = event_for(after, None).action
    _append(doc, _action(action.seat, str(action.move), action.end_sum, action.points or 0))
    return doc


def _draw_from_empty() -> Doc:
    state = _first(lambda s: s.stock_size == 0 and bool(s.history) and not s.is_over)
    doc = _doc(spectator_view(state))
    _append(doc, _action(state.turn, "draw"))
    return doc


def _drew_a_fit_placed_another() -> Doc:
    state = _first(
        lambda s: s.turn == 0 and view_for(s, 0).drawn is not None and len(s.hands[0]) > 1
    )
    view = view_for(state, 0)
    doc = _doc(view)
    other = next(t for t in view.hand if t != view.drawn)
    assert view.drawn is not None
    point = view.layout.fits(view.drawn)[0]
    _append(doc, _action(0, str(Place(other, point)), 0, 0))
    return doc


def _void_placement() -> Doc:
    """A seat known void in a value places a tile showing it, a turn later."""
    for before, _after in _pairs(seeds=range(1, 30)):
        view = spectator_view(before)
        if not view.history or view.history[-1].seat == view.turn:
            continue
        void = view.voids[view.turn]
        table = set(view.layout.tiles)
        for tile in ALL_TILES:
            if tile in table or not view.layout.fits(tile):
                continue
            if tile.low in void or tile.high in void:
                doc = _doc(view)
                _append(doc, _placement_of(view, tile))
                return doc
    raise AssertionError("no seat void in a value it could show")


def _placed_again(doc: Doc) -> None:
    first = doc["history"][0]
    _append(doc, _action(doc["turn"], first["move"], first["end_sum"], first["points"]))


def _out_of_turn(doc: Doc) -> None:
    _append(doc, _action(1 - doc["turn"], "pass"))


def _scores(doc: Doc) -> None:
    doc["scores"][1] += 5


def _viewer_must_draw() -> MatchState:
    return _first(
        lambda s: (
            s.turn == 0
            and s.stock_size > 0
            and bool(s.history)
            and not _holds_fit(s, 0)
            and view_for(s, 0).drawn is None
        )
    )


def _draws_a_table_tile() -> Doc:
    """The viewer draws a tile another seat placed: it is on the table."""
    doc = _doc(view_for(_viewer_must_draw(), 0))
    theirs = next(a for a in doc["history"] if a["seat"] != 0 and a["move"] not in ("draw", "pass"))
    _append(doc, {**_action(0, "draw"), "tile": theirs["move"].split()[0]})
    return doc


def _draw_forged_to_another_tile() -> Doc:
    """The viewer's last draw shows a tile it does not hold (nor any seat placed)."""
    for state in (s for seed in range(1, 40) for s in _match(2, seed)):
        if state.turn != 0 or not state.history or state.info.round != 1:
            continue
        last = state.history[-1]
        if last.seat != 0 or type(last.move) is not Draw:
            continue
        view = view_for(state, 0)
        if view.drawn is not None:
            continue
        other = next(
            t
            for t in ALL_TILES
            if t not in view.hand and t not in set(view.layout.tiles) and not view.layout.fits(t)
        )
        doc = _doc(view)
        doc["history"][-1]["tile"] = str(other)
        doc["last_action"] = dict(doc["history"][-1])
        return doc
    raise AssertionError("no draw of a tile that does not fit")


def _blocked() -> Doc:
    """With the stock empty, every seat passes in turn: the round is left blocked."""
    state = _first(lambda s: s.stock_size == 0 and bool(s.history) and not s.is_over)
    view = spectator_view(state)
    doc = _doc(view)
    open_values = {v for v in range(7) if view.layout.value_mask >> v & 1}
    for _ in range(view.players):
        seat = doc["turn"]
        _append(doc, _action(seat, "pass"))
        doc["seq"] += 1
        doc["turn"] = (seat + 1) % view.players
        doc["voids"][seat] = sorted(set(doc["voids"][seat]) | open_values)
    return doc


HISTORY_CASES: list[tuple[str, Callable[[], Doc], Mutate, str]] = [
    ("action after the win", _won, _after_the_win, "the match was won by the action before"),
    ("viewer places a tile twice", _mover, _viewer_places_twice, "not in its hand"),
    ("draws holding a fit", _mover, _draws_holding_a_fit, "which fits"),
    ("claimed end sum", _mid, _end_sum_claim, "the table gives"),
    ("a table tile placed again", _mid, _placed_again, "is already on the table"),
    ("out of turn", _spectator, _out_of_turn, "is to move"),
    ("scores", _mid, _scores, "the history gives"),
    ("pass with stock", _spectator, _pass_with_stock, "passes with"),
    ("history does not build the table", _mid, _history_dropped, "does not build the table"),
    ("stock size", _mid, _stock, "stock_size is"),
    ("hand size", _mid, _hand_size, "hand_sizes are"),
    ("turn", _mid, _turn, "turn is seat"),
    ("drawn", _mid, _drawn, "drawn is"),
    ("legal moves", _mover, _legal_moves_dropped, "legal_moves are not the hand's"),
]


def _none(doc: Doc) -> None:
    return None


BUILT_CASES: list[tuple[str, Callable[[], Doc], str]] = [
    ("another seat places a held tile", _other_places_a_held_tile, "held by the viewer"),
    ("placement empties a hand", _emptied_hand, "the round ended there"),
    ("draw from an empty stock", _draw_from_empty, "draws from an empty stock"),
    ("drew a fit, placed another", _drew_a_fit_placed_another, "which fits"),
    ("void seat places the value", _void_placement, "is known to hold none of"),
    ("viewer draws a tile on the table", _draws_a_table_tile, "already seen"),
    ("viewer's draw forged", _draw_forged_to_another_tile, "hand is not what the viewer's draws"),
    ("blocked", _blocked, "no seat can place: the round was blocked"),
]


@pytest.mark.parametrize(
    ("make", "mutate", "message"),
    [pytest.param(m, f, s, id=name) for name, m, f, s in HISTORY_CASES]
    + [pytest.param(m, _none, s, id=name) for name, m, s in BUILT_CASES],
)
def test_a_history_that_play_cannot_give_is_refused(
    make: Callable[[], Doc], mutate: Mutate, message: str
) -> None:
    """The round played again in public refuses what its rules forbid."""
    doc = make()
    mutate(doc)
    with pytest.raises(InvalidView) as info:
        _read(doc)
    assert message in str(info.value)


# -- events --------------------------------------------------------------------------------


def _pair(
    want: Callable[[MatchState, MatchState, ViewEvent], bool], seat: int | None = 0
) -> tuple[SpectatorView, ViewEvent]:
    """A genuine view and the event that follows it, the first that ``want`` accepts."""
    for before, after in _pairs(seeds=range(1, 30)):
        event = event_for(after, seat)
        if want(before, after, event):
            view = view_for(before, seat)
            assert apply_event(view, event) == view_for(after, seat)
            return view, event
    raise AssertionError("no such event")


def _kind(kind: type) -> Callable[[MatchState, MatchState, ViewEvent], bool]:
    def want(before: MatchState, after: MatchState, event: ViewEvent) -> bool:
        return (
            type(event.action.move) is kind
            and before.info.round == after.info.round
            and bool(before.history)
            and not after.is_over
        )

    return want


def _by(kind: type, seat: int) -> Callable[[MatchState, MatchState, ViewEvent], bool]:
    def want(before: MatchState, after: MatchState, event: ViewEvent) -> bool:
        return _kind(kind)(before, after, event) and event.action.seat == seat

    return want


def _ends_round(before: MatchState, after: MatchState, event: ViewEvent) -> bool:
    return event.next_round is not None and type(event.action.move) is Place


def _wins(before: MatchState, after: MatchState, event: ViewEvent) -> bool:
    return after.is_over


def _must_draw(before: MatchState, after: MatchState, event: ViewEvent) -> bool:
    return _by(Draw, 0)(before, after, event) and view_for(before, 0).drawn is None


def _just_drew_a_fit(before: MatchState, after: MatchState, event: ViewEvent) -> bool:
    return view_for(before, 0).drawn is not None and event.action.seat == 0


def _action_of(event: ViewEvent, **changes: Any) -> ViewEvent:
    return attrs.evolve(event, action=attrs.evolve(event.action, **changes))


def _not_held(view: SpectatorView) -> Tile:
    held = set(view.hand) if isinstance(view, PlayerView) else set()
    return next(t for t in ALL_TILES if t not in held and t not in set(view.layout.tiles))


def _forge_after_win() -> tuple[SpectatorView, ViewEvent]:
    _, event = _pair(_wins, None)
    over = spectator_view(_first(lambda s: s.is_over))
    return over, attrs.evolve(event, seq=over.seq + 1)


def _forge_seat() -> tuple[SpectatorView, ViewEvent]:
    view, event = _pair(_kind(Draw), None)
    return view, _action_of(event, seat=5)


def _forge_not_in_hand() -> tuple[SpectatorView, ViewEvent]:
    view, event = _pair(_by(Place, 0))
    move = event.action.move
    assert isinstance(move, Place)
    return view, _action_of(event, move=Place(_not_held(view), move.at))


def _forge_other_than_drawn() -> tuple[SpectatorView, ViewEvent]:
    view, event = _pair(_just_drew_a_fit)
    assert isinstance(view, PlayerView)
    assert view.drawn is not None
    other = next(t for t in view.hand if t != view.drawn)
    return view, _action_of(event, move=Place(other, view.layout.fits(view.drawn)[0]))


def _forge_draw_after_a_fit() -> tuple[SpectatorView, ViewEvent]:
    view, event = _pair(_just_drew_a_fit)
    return view, _action_of(event, move=Draw(), tile=_not_held(view), end_sum=None, points=0)


def _forge_placement_shows_a_tile() -> tuple[SpectatorView, ViewEvent]:
    view, event = _pair(_kind(Place), None)
    return view, _action_of(event, tile=_not_held(view))


def _forge_illegal_placement() -> tuple[SpectatorView, ViewEvent]:
    view, event = _pair(_kind(Place), None)
    move = event.action.move
    assert isinstance(move, Place)
    return view, _action_of(event, move=Place(view.layout.tiles[0], move.at))


def _forge_opening_draw() -> tuple[SpectatorView, ViewEvent]:
    _, event = _pair(_kind(Draw), None)
    start = spectator_view(new_match(2, seed=1))
    action = attrs.evolve(event.action, seat=start.turn, scores=start.scores)
    return start, attrs.evolve(event, seq=1, action=action)


def _forge_pass_with_stock() -> tuple[SpectatorView, ViewEvent]:
    view, event = _pair(_kind(Draw), None)
    return view, _action_of(event, move=Pass())


def _forge_draw_shown_to_spectator() -> tuple[SpectatorView, ViewEvent]:
    view, event = _pair(_kind(Draw), None)
    return view, _action_of(event, tile=_not_held(view))


def _forge_draw_holding_a_fit() -> tuple[SpectatorView, ViewEvent]:
    view, event = _pair(_by(Place, 0))
    return view, _action_of(event, move=Draw(), tile=_not_held(view), end_sum=None, points=0)


def _forge_draw_seen_tile() -> tuple[SpectatorView, ViewEvent]:
    view, event = _pair(_must_draw)
    assert isinstance(view, PlayerView)
    return view, _action_of(event, tile=view.hand[0])


def _forge_draw_with_points() -> tuple[SpectatorView, ViewEvent]:
    view, event = _pair(_kind(Draw), None)
    return view, _action_of(event, end_sum=5, points=5)


def _forge_scores() -> tuple[SpectatorView, ViewEvent]:
    view, event = _pair(_kind(Draw), None)
    return view, _action_of(event, scores=(5, 0))


def _forge_winner() -> tuple[SpectatorView, ViewEvent]:
    view, event = _pair(_kind(Draw), None)
    return view, _action_of(event, winner=0)


def _forge_no_next_round() -> tuple[SpectatorView, ViewEvent]:
    view, event = _pair(_ends_round, None)
    return view, attrs.evolve(event, next_round=None)


def _forge_round_after_a_win() -> tuple[SpectatorView, ViewEvent]:
    view, event = _pair(_wins, None)
    _, ending = _pair(_ends_round, None)
    return view, attrs.evolve(event, next_round=ending.next_round)


def _next_round(event: ViewEvent, **changes: Any) -> ViewEvent:
    assert event.next_round is not None
    return attrs.evolve(event, next_round=attrs.evolve(event.next_round, **changes))


def _last_round(event: ViewEvent, **changes: Any) -> ViewEvent:
    assert event.next_round is not None
    assert event.next_round.last_round is not None
    return _next_round(event, last_round=event.next_round.last_round.evolve(**changes))


def _forge_next_round_number() -> tuple[SpectatorView, ViewEvent]:
    view, event = _pair(_ends_round, None)
    assert event.next_round is not None
    return view, _next_round(event, round=event.next_round.round + 1)


def _forge_next_round_table() -> tuple[SpectatorView, ViewEvent]:
    view, event = _pair(_ends_round, None)
    return view, _last_round(event, layout=view.layout)


def _forge_next_round_scores() -> tuple[SpectatorView, ViewEvent]:
    view, event = _pair(_ends_round, None)
    last = event.next_round.last_round  # type: ignore[union-attr]
    assert last is not None
    return view, _last_round(event, scores=tuple(s + 5 for s in last.scores))


def _forge_next_round_hand() -> tuple[SpectatorView, ViewEvent]:
    view, event = _pair(_ends_round)
    last = event.next_round.last_round  # type: ignore[union-attr]
    assert last is not None
    hands = list(last.hands)
    hands[0], hands[1] = hands[1], hands[0]
    return view, _last_round(event, hands=tuple(hands))


def _forge_spectator_drawn() -> tuple[SpectatorView, ViewEvent]:
    view, event = _pair(_kind(Place), None)
    return view, attrs.evolve(event, drawn=_not_held(view))


def _forge_drawn() -> tuple[SpectatorView, ViewEvent]:
    view, event = _pair(_kind(Place))
    return view, attrs.evolve(event, drawn=_not_held(view))


def _forge_turn() -> tuple[SpectatorView, ViewEvent]:
    view, event = _pair(_kind(Place), None)
    return view, attrs.evolve(event, turn=event.action.seat)


def _forge_voids() -> tuple[SpectatorView, ViewEvent]:
    view, event = _pair(_kind(Place), None)
    return view, attrs.evolve(event, voids=(frozenset(range(7)), frozenset()))


def _forge_legal_moves() -> tuple[SpectatorView, ViewEvent]:
    view, event = _pair(_kind(Place))
    return view, attrs.evolve(event, legal_moves=(Pass(),))


EVENT_CASES: list[tuple[str, Callable[[], tuple[SpectatorView, ViewEvent]], str]] = [
    ("after the win", _forge_after_win, "the match is over"),
    ("seat out of range", _forge_seat, "not a seat of the match"),
    ("viewer places a tile it lacks", _forge_not_in_hand, "which is not in its hand"),
    ("placed other than the fit drawn", _forge_other_than_drawn, "which fits: it must place it"),
    ("draws after drawing a fit", _forge_draw_after_a_fit, "which fits: it must place it"),
    ("placement shows a tile", _forge_placement_shows_a_tile, "a placement shows no drawn tile"),
    ("illegal placement", _forge_illegal_placement, "is illegal"),
    ("opening draw", _forge_opening_draw, "opens the round, so it must place"),
    ("pass with stock", _forge_pass_with_stock, "passes with"),
    ("draw shown to a spectator", _forge_draw_shown_to_spectator, "only to it"),
    ("draw holding a fit", _forge_draw_holding_a_fit, "holds a tile that fits"),
    ("draw of a seen tile", _forge_draw_seen_tile, "which is already seen"),
    ("draw with points", _forge_draw_with_points, "no end sum and no points"),
    ("scores", _forge_scores, "the event's scores are"),
    ("winner", _forge_winner, "the event's winner is 0"),
    ("emptied hand, no next round", _forge_no_next_round, "must start the next round"),
    ("next round after a win", _forge_round_after_a_win, "no round follows it"),
    ("next round number", _forge_next_round_number, "not the round after the view's"),
    ("next round table", _forge_next_round_table, "the table the action leaves"),
    ("next round scores", _forge_next_round_scores, "settles other scores"),
    ("next round hand", _forge_next_round_hand, "reveals another hand"),
    ("spectator's drawn tile", _forge_spectator_drawn, "no drawn tile and no legal moves"),
    ("drawn tile", _forge_drawn, "the event's drawn tile is"),
    ("turn", _forge_turn, "gives the turn to seat"),
    ("voids", _forge_voids, "voids are not what the action shows"),
    ("legal moves", _forge_legal_moves, "legal moves are not the viewer's"),
]


@pytest.mark.parametrize(
    ("forge", "message"), [pytest.param(f, s, id=name) for name, f, s in EVENT_CASES]
)
def test_an_event_that_cannot_follow_the_view_is_refused(
    forge: Callable[[], tuple[SpectatorView, ViewEvent]], message: str
) -> None:
    """apply_event and check_event refuse it, naming the problem; the view is unchanged."""
    view, event = forge()
    before = copy.deepcopy(view)
    with pytest.raises(InvalidView) as info:
        check_event(view, event)
    assert message in str(info.value)
    with pytest.raises(InvalidView) as again:
        apply_event(view, event)
    assert str(again.value) == str(info.value)
    assert view == before


# -- the event reader ----------------------------------------------------------------------


def _event_doc(event: ViewEvent) -> Doc:
    doc: Doc = json.loads(event.to_json())
    return doc


def _round_end_doc() -> Doc:
    return _event_doc(_pair(_ends_round)[1])


def _draw_doc() -> Doc:
    return _event_doc(_pair(_kind(Draw), None)[1])


def _other_viewers_next_round(doc: Doc) -> None:
    _, event = _pair(_ends_round, 1)
    assert event.next_round is not None
    doc["next_round"] = json.loads(event.next_round.to_json())


def _one_void_list(doc: Doc) -> None:
    doc["voids"] = [[]]


def _three_scores(doc: Doc) -> None:
    doc["scores"] = [0, 0, 0]


def _action_seat(doc: Doc) -> None:
    doc["action"]["seat"] = 9


EVENT_READER_CASES: list[tuple[str, Callable[[], Doc], Mutate, str]] = [
    ("voids per seat", _draw_doc, _one_void_list, "voids must hold one list per seat, got 1"),
    ("next round viewer", _round_end_doc, _other_viewers_next_round, "for another viewer"),
    ("scores per side", _draw_doc, _three_scores, "the scores must hold one integer per side"),
    ("action seat", _draw_doc, _action_seat, "seat must be from 0 to 1, got 9"),
    ("negative seq", _draw_doc, _set("seq", -3), "seq must not be negative, got -3"),
    ("turn", _draw_doc, _set("turn", 4), "turn must be a seat from 0 to 1, got 4"),
    ("drawn tile", _draw_doc, _set("drawn", "[6|7]"), "drawn: '[6|7]' is not a tile"),
    (
        "legal move",
        _draw_doc,
        _set("legal_moves", ["[0|0] sideways"]),
        "legal_moves[0]: not a move",
    ),
    ("next round seat", _round_end_doc, _set_in("next_round", "seat", 5), "next_round.seat"),
]


@pytest.mark.parametrize(
    ("make", "mutate", "message"),
    [pytest.param(m, f, s, id=name) for name, m, f, s in EVENT_READER_CASES],
)
def test_a_forged_event_document_is_refused_by_the_reader(
    make: Callable[[], Doc], mutate: Mutate, message: str
) -> None:
    """The event reader names what in the document is wrong."""
    doc = make()
    event_from_json(json.dumps(doc))  # the genuine event is read
    mutate(doc)
    with pytest.raises(InvalidView) as info:
        event_from_json(json.dumps(doc))
    assert message in str(info.value)


@pytest.mark.parametrize(
    ("read", "what"), [(view_from_json, "the view"), (event_from_json, "the event")]
)
def test_a_document_that_is_no_object_is_refused(read: Callable[[str], object], what: str) -> None:
    """A view or an event is a JSON object."""
    with pytest.raises(InvalidView, match=f"{what} must be a JSON object, got list"):
        read("[]")


def test_genuine_views_with_an_empty_stock_are_read_back() -> None:
    """The blocked-round check refuses no view play gives: passes and empty stocks are read."""
    states = [
        s
        for seed in range(1, 12)
        for s in _match(2, seed)
        if s.stock_size == 0 and s.history and not s.is_over
    ]
    assert any(type(a.move) is Pass for s in states for a in s.history)
    for state in states:
        for seat in (0, 1, None):
            view = view_for(state, seat)
            assert view_from_json(view.to_json()) == view

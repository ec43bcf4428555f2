"""Views and events checked like states: what no legal play can give is refused."""

from __future__ import annotations

import itertools
import json
import random
from collections.abc import Callable
from typing import Any

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

from american_sniff import (
    Action,
    Draw,
    InvalidView,
    MatchState,
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
from american_sniff.views import view_from_json

Doc = dict[str, Any]


def _play(players: int, seed: int, steps: int) -> list[MatchState]:
    rng = random.Random(seed)
    states = [new_match(players, seed=seed)]
    while not states[-1].is_over and len(states) <= steps:
        states.append(apply(states[-1], rng.choice(legal_moves(states[-1]))))
    return states


def _doc(view: SpectatorView) -> Doc:
    doc: Doc = json.loads(view.to_json())
    return doc


def _read(doc: Doc) -> SpectatorView:
    return view_from_json(json.dumps(doc))


def _first(states: list[MatchState], want: Callable[[MatchState], bool]) -> MatchState:
    return next(state for state in states if want(state))


# -- the forged views the adversarial test found -------------------------------------------


def _mid_round(players: int = 2, seed: int = 3) -> MatchState:
    """A round-1 state a few actions in, with the seat 0 not to move."""
    return _first(
        _play(players, seed, 200),
        lambda s: s.info.round == 1 and len(s.layout) >= 3 and s.turn != 0 and bool(s.history),
    )


def test_a_hand_tile_also_on_the_table_is_refused() -> None:
    """A tile cannot be both in the viewer's hand and on the table."""
    view = view_for(_mid_round(), 0)
    doc = _doc(view)
    hand = [*doc["hand"][1:], str(view.layout.tiles[0])]
    doc["hand"] = sorted(hand, key=lambda t: (int(t[1]), int(t[3])))
    with pytest.raises(InvalidView, match="hand"):
        _read(doc)


def test_a_history_that_does_not_build_the_table_is_refused() -> None:
    """The history's placements, played again, must give exactly the table shown."""
    state = _mid_round()
    doc = _doc(view_for(state, 0))
    first = doc["history"][0]
    doc["history"][0] = {**first, "move": "draw", "tile": None, "end_sum": None, "points": None}
    with pytest.raises(InvalidView, match="history"):
        _read(doc)


def test_every_seat_void_in_every_value_is_refused() -> None:
    """The voids are exactly what the history shows: nothing shows every value missing."""
    doc = _doc(view_for(_mid_round(), 0))
    doc["voids"] = [list(range(7))] * 2
    with pytest.raises(InvalidView, match="voids"):
        _read(doc)


def test_seq_zero_after_nine_actions_is_refused() -> None:
    """In round 1 the sequence number is the number of actions."""
    state = _first(_play(2, 5, 200), lambda s: s.info.round == 1 and len(s.history) == 9)
    doc = _doc(view_for(state, 0))
    doc["seq"] = 0
    with pytest.raises(InvalidView, match="seq"):
        _read(doc)


def test_a_winner_below_the_target_is_refused() -> None:
    """A winner is the side whose placement reached the target."""
    doc = _doc(view_for(_mid_round(), 0))
    doc["winner"] = 0
    with pytest.raises(InvalidView, match="winner"):
        _read(doc)


def test_a_spectators_forged_view_is_refused_too() -> None:
    """The spectator's reader runs the same checks."""
    doc = _doc(spectator_view(_mid_round()))
    doc["stock_size"] += 1
    with pytest.raises(InvalidView, match="stock_size"):
        SpectatorView.from_json(json.dumps(doc))


def test_a_later_round_must_start_where_the_last_one_ended() -> None:
    """The round's scores are the previous round's plus this round's placements."""
    state = _first(_play(2, 7, 2000), lambda s: s.info.round >= 2 and len(s.history) >= 2)
    doc = _doc(view_for(state, 0))
    doc["last_round"]["scores"][0] -= 5
    with pytest.raises(InvalidView):
        _read(doc)


# -- forged events -------------------------------------------------------------------------


def _draw_event(view: SpectatorView, seat: int) -> ViewEvent:
    return ViewEvent(
        viewer=view.viewer,
        seq=view.seq + 1,
        action=Action(seat, Draw(), None, None, 0, view.scores),
        turn=seat,
        drawn=None,
        legal_moves=(),
        voids=view.voids,
        next_round=None,
    )


def test_forged_draws_never_take_the_stock_below_zero() -> None:
    """Draws by the seat to move are refused once the stock is empty (and sooner if forged)."""
    view = spectator_view(_mid_round())
    refused = False
    for _ in range(40):
        try:
            view = apply_event(view, _draw_event(view, view.turn))
        except InvalidView:
            refused = True
            break
        assert view.stock_size >= 0
    assert refused
    assert view.stock_size >= 0


def test_a_draw_from_an_empty_stock_is_refused() -> None:
    """A draw needs stock."""
    view = spectator_view(_mid_round())
    view = attrs.evolve(view, stock_size=0)
    with pytest.raises(InvalidView, match="empty stock"):
        apply_event(view, _draw_event(view, view.turn))


def _viewer_tile_fits(state: MatchState) -> bool:
    return (
        state.turn != 0
        and any(state.layout.fits(t) for t in state.hands[0])
        and bool(state.history)
    )


def _place_event(view: PlayerView, seat: int, place: Place) -> ViewEvent:
    layout = view.layout.place(place.tile, place.at)
    return ViewEvent(
        viewer=view.viewer,
        seq=view.seq + 1,
        action=Action(seat, place, None, layout.end_sum, 0, view.scores),
        turn=(seat + 1) % view.players,
        drawn=None,
        legal_moves=(),
        voids=view.voids,
        next_round=None,
    )


def test_no_seat_places_a_tile_the_viewer_holds() -> None:
    """Another seat cannot place a tile still in the viewer's hand; the view is unchanged."""
    state = _first(_play(2, 11, 300), _viewer_tile_fits)
    view = view_for(state, 0)
    tile = next(t for t in view.hand if view.layout.fits(t))
    event = _place_event(view, state.turn, Place(tile, view.layout.fits(tile)[0]))
    with pytest.raises(InvalidView, match="viewer holds"):
        apply_event(view, event)
    assert view == view_for(state, 0)


def test_the_actor_must_be_the_seat_to_move() -> None:
    """An action by a seat whose turn it is not is refused."""
    state = _mid_round()
    view = spectator_view(state)
    with pytest.raises(InvalidView, match="to move"):
        apply_event(view, _draw_event(view, (view.turn + 1) % view.players))


def test_a_placement_must_score_what_the_rules_give() -> None:
    """The points of a placement are the table's sum if a positive multiple of five, else 0."""
    states = _play(2, 13, 300)
    index = next(
        i
        for i in range(1, len(states))
        if type(event_for(states[i], None).action.move) is Place
        and event_for(states[i], None).next_round is None
        and states[i].history
        and len(states[i].history) > 1
    )
    before, after = states[index - 1], states[index]
    event = event_for(after, None)
    view = spectator_view(before)
    action = event.action
    forged = attrs.evolve(event, action=attrs.evolve(action, points=action.points + 5))
    with pytest.raises(InvalidView, match="points"):
        apply_event(view, forged)
    assert apply_event(view, event) == spectator_view(after)


def test_apply_event_refusals_are_invalid_view_and_value_error() -> None:
    """The documented error: InvalidView, a ValueError (as apply_event raised before)."""
    states = _play(2, 1, 3)
    with pytest.raises(ValueError, match="expects 1") as info:
        apply_event(view_for(states[0], 0), event_for(states[2], 0))
    assert isinstance(info.value, InvalidView)


# -- real play accepted, single-field mutants refused ----------------------------------------


def _toggle_void(doc: Doc, rng: random.Random) -> bool:
    seat = rng.randrange(doc["players"])
    value = rng.randrange(7)
    values = set(doc["voids"][seat]) ^ {value}
    doc["voids"][seat] = sorted(values)
    return True


def _bump(key: str, by: int) -> Callable[[Doc, random.Random], bool]:
    def mutate(doc: Doc, rng: random.Random) -> bool:
        doc[key] += by
        return True

    return mutate


def _hand_size(doc: Doc, rng: random.Random) -> bool:
    seat = rng.randrange(doc["players"])
    doc["hand_sizes"][seat] += rng.choice((-1, 1))
    return bool(doc["hand_sizes"][seat] >= 0)


def _score(doc: Doc, rng: random.Random) -> bool:
    doc["scores"][rng.randrange(len(doc["scores"]))] += rng.choice((-5, 5))
    return True


def _winner(doc: Doc, rng: random.Random) -> bool:
    if doc["winner"] is not None:
        doc["winner"] = None
    else:
        doc["winner"] = rng.randrange(len(doc["scores"]))
    return True


def _turn(doc: Doc, rng: random.Random) -> bool:
    doc["turn"] = (doc["turn"] + rng.randrange(1, doc["players"])) % doc["players"]
    return True


def _seq(doc: Doc, rng: random.Random) -> bool:
    if doc["round"] == 1:
        doc["seq"] += rng.choice((-1, 1))
    else:
        doc["seq"] = len(doc["history"]) - 1
    return bool(doc["seq"] >= 0)


def _drop_first_action(doc: Doc, rng: random.Random) -> bool:
    if not doc["history"]:
        return False
    del doc["history"][0]
    return True


def _action_seat(doc: Doc, rng: random.Random) -> bool:
    if not doc["history"]:
        return False
    action = rng.choice(doc["history"])
    action["seat"] = (action["seat"] + rng.randrange(1, doc["players"])) % doc["players"]
    if doc["last_action"] is not None and action == doc["history"][-1]:
        doc["last_action"] = dict(action)
    return True


def _end_sum(doc: Doc, rng: random.Random) -> bool:
    placed = [a for a in doc["history"][:-1] if a["end_sum"] is not None]
    if not placed:
        return False
    rng.choice(placed)["end_sum"] += 1
    return True


def _hand_from_table(doc: Doc, rng: random.Random) -> bool:
    if not doc["hand"] or not doc["table"]["placements"]:
        return False
    tile = rng.choice(doc["table"]["placements"])[:5]
    doc["hand"] = sorted({*doc["hand"][1:], tile}, key=lambda t: (int(t[1]), int(t[3])))
    return bool(len(doc["hand"]) == len(set(doc["hand"])) == doc["hand_sizes"][doc["seat"]])


def _legal_moves(doc: Doc, rng: random.Random) -> bool:
    if not doc["legal_moves"]:
        return False
    doc["legal_moves"].pop()
    doc["previews"].pop()
    return True


def _last_round_claim(doc: Doc, rng: random.Random) -> bool:
    last = doc["last_round"]
    if last is None or not last["history"]:
        return False
    placed = [a for a in last["history"] if a["end_sum"] is not None]
    action = rng.choice(placed)
    action[rng.choice(("end_sum", "points"))] += 5
    return True


_MUTATIONS: dict[str, Callable[[Doc, random.Random], bool]] = {
    "voids": _toggle_void,
    "stock_up": _bump("stock_size", 1),
    "stock_down": _bump("stock_size", -1),
    "hand_size": _hand_size,
    "score": _score,
    "winner": _winner,
    "turn": _turn,
    "seq": _seq,
    "drop_first_action": _drop_first_action,
    "action_seat": _action_seat,
    "end_sum": _end_sum,
    "hand_from_table": _hand_from_table,
    "legal_moves": _legal_moves,
    "last_round_claim": _last_round_claim,
}


@given(
    st.sampled_from([2, 3, 4]),
    st.integers(0, 2**32),
    st.integers(0, 400),
    st.sampled_from(sorted(_MUTATIONS)),
    st.integers(0, 2**16),
)
def test_real_views_are_read_and_their_single_field_mutants_refused(
    players: int, seed: int, steps: int, mutation: str, pick: int
) -> None:
    """Every view of real play reads back; one field changed against the rules is refused.

    The oracle is the view rebuilt from the state: a mutant the reader
    accepted would have to be that very view, which it is not.
    """
    state = _play(players, seed, steps)[-1]
    rng = random.Random(pick)
    for seat in (*range(players), None):
        view = view_for(state, seat, last_round_history=rng.random() < 0.5)
        doc = _doc(view)
        assert _read(doc) == view
        if seat is None and mutation in ("hand_from_table", "legal_moves"):
            continue
        mutant = json.loads(json.dumps(doc))
        if not _MUTATIONS[mutation](mutant, rng) or mutant == doc:
            continue
        try:
            read = _read(mutant)
        except InvalidView:
            continue
        assert read == view, (mutation, seat)
        pytest.fail(f"a {mutation} mutant of seat {seat}'s view was accepted")


def _event_mutants(event: ViewEvent, view: SpectatorView, rng: random.Random) -> list[ViewEvent]:
    action = event.action
    players = view.players
    other = (action.seat + rng.randrange(1, players)) % players
    mutants = [
        attrs.evolve(event, action=attrs.evolve(action, seat=other)),
        attrs.evolve(event, action=attrs.evolve(action, points=action.points + 5)),
        attrs.evolve(
            event,
            action=attrs.evolve(
                action, scores=tuple(s + 5 * (i == 0) for i, s in enumerate(action.scores))
            ),
        ),
        attrs.evolve(event, turn=(event.turn + rng.randrange(1, players)) % players),
        attrs.evolve(
            event,
            voids=tuple(v ^ {rng.randrange(7)} if i == 0 else v for i, v in enumerate(event.voids)),
        ),
        attrs.evolve(
            event, action=attrs.evolve(action, winner=0 if action.winner is None else None)
        ),
    ]
    if action.end_sum is not None:
        mutants.append(attrs.evolve(event, action=attrs.evolve(action, end_sum=action.end_sum + 1)))
    if isinstance(view, PlayerView) and view.hand and action.seat != view.seat:
        tile = rng.choice(view.hand)
        mutants.append(attrs.evolve(event, action=attrs.evolve(action, move=Place(tile))))
    if event.legal_moves:
        mutants.append(attrs.evolve(event, legal_moves=event.legal_moves[:-1]))
    return mutants


@given(
    st.sampled_from([2, 3, 4]), st.integers(0, 2**32), st.integers(1, 300), st.integers(0, 2**16)
)
def test_real_events_apply_and_their_mutants_never_contradict_the_rebuilt_view(
    players: int, seed: int, steps: int, pick: int
) -> None:
    """Every real event applies; a mutant is refused (view unchanged) or gives the rebuilt view."""
    states = _play(players, seed, steps)
    rng = random.Random(pick)
    for before, after in list(itertools.pairwise(states))[-6:]:
        for seat in (*range(players), None):
            view = view_for(before, seat)
            event = event_for(after, seat)
            rebuilt = view_for(after, seat)
            assert apply_event(view, event) == rebuilt
            for mutant in _event_mutants(event, view, rng):
                if mutant == event:
                    continue
                try:
                    got = apply_event(view, mutant)
                except InvalidView:
                    assert view == view_for(before, seat)
                    continue
                assert got == rebuilt, (seat, mutant)

"""The state reader and the view reader agree on what play can give (issue 42).

A view is written from a loaded state, so every save the state reader accepts
must give views the view reader accepts, and a forgery the state reader
refuses must not pass as a view: round 1 starts at zero in both, the count of
earlier actions has one floor, and a sequence number stays within 2**53 - 1.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from american_sniff import (
    ALL_TILES,
    Deal,
    InvalidState,
    InvalidView,
    MatchState,
    apply,
    legal_moves,
    new_match,
)
from american_sniff.rules import fewest_actions, hand_size
from american_sniff.views import spectator_view, view_for, view_from_json

Doc = dict[str, Any]


def _round_two(players: int, seed: int) -> MatchState:
    """The first state of round 2 after a round 1 in which both sides scored, by random play."""
    for play in range(200):
        chooser = random.Random(play)
        state = new_match(players, seed=seed)
        while state.round == 1:
            state = apply(state, chooser.choice(legal_moves(state)))
        last = state.last_round
        if state.winner is None and last is not None and len(set(last.scores)) > 1:
            return state
    raise AssertionError("no play gave such a round 1")


@pytest.mark.parametrize("history", [True, False])
@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_view_whose_round_one_ended_higher_for_one_side_is_refused(
    players: int, history: bool
) -> None:
    """Round 1 ended 100 points higher for one side: no play gives it, as the state reader says."""
    state = _round_two(players, 7 + players)
    for seat in (0, None):
        view = (
            spectator_view(state, last_round_history=history)
            if seat is None
            else view_for(state, seat, last_round_history=history)
        )
        doc: Doc = json.loads(view.to_json())
        view_from_json(json.dumps(doc))  # as written
        side = max(range(len(doc["scores"])), key=lambda s: doc["scores"][s])
        doc["last_round"]["scores"][side] += 100
        doc["scores"][side] += 100
        with pytest.raises(InvalidView, match="round 1 starts at 0"):
            view_from_json(json.dumps(doc))
    saved: Doc = json.loads(state.to_json())
    saved["last_round"]["scores"][side] += 100
    saved["scores"][side] += 100
    with pytest.raises(InvalidState):
        MatchState.from_json(json.dumps(saved))


def _given_match(players: int) -> MatchState:
    """A state of round 2, some actions in, of a match dealt from given deals (openers named)."""
    chooser = random.Random(players)
    deals = []
    for _ in range(3):
        tiles = list(ALL_TILES)
        chooser.shuffle(tiles)
        size = hand_size(players)
        hands = [tiles[s * size : (s + 1) * size] for s in range(players)]
        deals.append(Deal(hands, tiles[players * size :], chooser.randrange(players)))
    for play in range(100):
        chooser = random.Random(play)
        state = new_match(players, seed=5, deals=deals)
        while state.winner is None and (state.round == 1 or len(state.history) < 8):
            state = apply(state, chooser.choice(legal_moves(state)))
        if state.round == 2 and state.winner is None:
            return state
    raise AssertionError("no play reached round 2")


def _relabelled(state: MatchState, number: int, actions_before: int) -> Doc:
    doc: Doc = json.loads(state.to_json())
    doc["round"] = number
    doc["last_round"]["round"] = number - 1
    doc["actions_before"] = actions_before
    return doc


def _views_read(state: MatchState) -> None:
    """Every view of ``state`` the library writes, its own reader reads."""
    for seat in (*range(state.players), None):
        view = spectator_view(state) if seat is None else view_for(state, seat)
        view_from_json(view.to_json())


@pytest.mark.parametrize("players", [2, 3, 4])
def test_actions_before_has_the_view_readers_floor(players: int) -> None:
    """A hand's worth of actions for each round before the previous: below it, both refuse."""
    state = _given_match(players)
    previous = state.info.actions_before
    floor = previous + 3 * fewest_actions(players)  # round 5: rounds 1 to 3 before round 4
    for count in (previous + 3, floor - 1):  # one action a round, as the state reader allowed
        doc = _relabelled(state, 5, count)
        with pytest.raises(InvalidState, match="actions_before is"):
            MatchState.from_json(json.dumps(doc))
        view: Doc = json.loads(view_for(state, 0, last_round_history=True).to_json())
        view["round"], view["last_round"]["round"] = 5, 4
        view["seq"] = count + len(state.history)
        with pytest.raises(InvalidView, match="seq is"):
            view_from_json(json.dumps(view))
    loaded = MatchState.from_json(json.dumps(_relabelled(state, 5, floor)))
    _views_read(loaded)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_no_loaded_state_writes_a_seq_beyond_2_53(players: int) -> None:
    """A state whose round could take its views' seq past 2**53 - 1 is refused at load."""
    state = _given_match(players)
    number = 2**53 // 50
    doc = _relabelled(state, number, 2**53 - 1 - len(state.history) + 1)  # seq 2**53 now
    with pytest.raises(InvalidState, match="actions_before must be"):
        MatchState.from_json(json.dumps(doc))
    doc = _relabelled(state, number, 2**53 - 1 - 4 * len(ALL_TILES))  # the round fits
    loaded = MatchState.from_json(json.dumps(doc))
    _views_read(loaded)
    while loaded.round == number:  # every state of the round writes views the reader reads
        loaded = apply(loaded, legal_moves(loaded)[0])
        if loaded.round == number:
            _views_read(loaded)

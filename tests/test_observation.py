"""Observations of a view: american_sniff.observation."""

from __future__ import annotations

import random

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

from american_sniff import (
    COMPILED,
    Draw,
    MatchState,
    Pass,
    Place,
    apply,
    legal_moves,
    new_match,
    view_for,
)
from american_sniff.actions import POINTS
from american_sniff.observation import (
    OBSERVATION_BOUNDS,
    OBSERVATION_FIELDS,
    OBSERVATION_SIZE,
    SCALE_CLIPS,
    SCALE_DIVISORS,
    SCALED_BOUNDS,
    RoundFacts,
    action_slots,
    encode,
    encode_information_state,
    encode_list,
    encode_state,
    information_state,
    information_state_size,
    observation_string,
    scaled,
    segment,
)
from american_sniff.tiles import ALL_TILES
from strategies import mid_match_states


def _reshuffled(state: MatchState, seat: int, rng: random.Random) -> MatchState:
    """``state`` with the tiles hidden from ``seat`` dealt again to the other hands and the stock.

    Every hand keeps its size; a tile another seat has just drawn and must
    place stays in its hand.
    """
    keep = state.drawn if state.turn != seat else None
    pool = [
        t for s, hand in enumerate(state.hands) if s != seat for t in hand if t is not keep
    ] + list(state.stock)
    rng.shuffle(pool)
    hands = []
    for s, hand in enumerate(state.hands):
        if s == seat:
            hands.append(hand)
            continue
        size = len(hand) - (keep is not None and keep in hand)
        mine, pool = pool[:size], pool[size:]
        if keep is not None and keep in hand:
            mine.append(keep)
        hands.append(tuple(sorted(mine)))
    deck = state.info.deck[: state.drawn_count] + tuple(pool)
    return state.evolve(hands=tuple(hands), info=state.info.evolve(deck=deck))


@given(mid_match_states(), st.integers(0, 3), st.randoms(use_true_random=False))
def test_states_with_the_same_view_encode_the_same(
    state: MatchState, seat: int, rng: random.Random
) -> None:
    """Dealing the hidden tiles out again changes no view, so no observation or string."""
    seat %= state.players
    other = _reshuffled(state, seat, rng)
    view, other_view = view_for(state, seat), view_for(other, seat)
    assert view == other_view
    assert encode(view) == encode(other_view)
    assert information_state(view) == information_state(other_view)
    assert observation_string(view) == observation_string(other_view)


def test_reshuffling_does_change_the_hidden_tiles() -> None:
    """The helper above really moves hidden tiles (else the test would prove nothing)."""
    state = new_match(4, seed=5)
    other = _reshuffled(state, 0, random.Random(1))
    assert other.hands[0] == state.hands[0]
    assert other.hands[1:] != state.hands[1:]
    everything = [t for h in other.hands for t in h] + list(other.stock)
    assert sorted(everything) == list(ALL_TILES)


def test_fields_add_up_to_the_size() -> None:
    """The segments cover the vector exactly."""
    assert sum(size for _, size in OBSERVATION_FIELDS) == OBSERVATION_SIZE == 375
    assert len({name for name, _ in OBSERVATION_FIELDS}) == len(OBSERVATION_FIELDS)


@given(mid_match_states(), st.integers(0, 3))
def test_segments_say_what_the_view_says(state: MatchState, seat: int) -> None:
    """Each segment holds what the docs say, read back from the view."""
    seat %= state.players
    view = view_for(state, seat)
    obs = encode(view)
    n = view.players
    assert len(obs) == OBSERVATION_SIZE
    assert all(type(x) is int for x in obs)
    low, high = OBSERVATION_BOUNDS
    assert all(lo <= x <= hi for lo, x, hi in zip(low, obs, high, strict=True))
    assert [t for t in ALL_TILES if segment(obs, "hand")[t.index]] == list(view.hand)
    drawn = [t for t in ALL_TILES if segment(obs, "drawn")[t.index]]
    assert drawn == ([] if view.drawn is None else [view.drawn])
    played = segment(obs, "played")
    for action in view.history:
        if isinstance(action.move, Place):
            k = (action.seat - seat) % n
            assert played[k * 28 + action.move.tile.index] == 1
    assert sum(played) == len(view.layout)
    opened = [POINTS[p] for p in range(70) if segment(obs, "open")[p]]
    assert opened == list(view.layout.points())
    assert sum(segment(obs, "counts")) == view.layout.end_sum == segment(obs, "end_sum")[0]
    assert sum(segment(obs, "values")) == len(opened)
    sniff = segment(obs, "sniff")
    assert sum(sniff) == (view.layout.sniff is not None)
    sizes = segment(obs, "hand_sizes")
    assert sizes[:n] == tuple(view.hand_sizes[(seat + k) % n] for k in range(n))
    assert sizes[n:] == (0,) * (4 - n)
    assert segment(obs, "stock") == (view.stock_size,)
    voids = segment(obs, "voids")
    for k in range(n):
        known = {v for v in range(7) if voids[7 * k + v]}
        assert known == view.voids[(seat + k) % n]
    assert sum(segment(obs, "scores")) == sum(view.scores)
    assert segment(obs, "target") == (view.target,)
    assert segment(obs, "players")[n - 2] == 1
    assert sum(segment(obs, "turn")) == (view.winner is None)
    if view.winner is None:
        assert segment(obs, "turn")[(view.turn - seat) % n] == 1
    assert segment(obs, "opener")[(view.opener - seat) % n] == 1
    assert segment(obs, "round") == (view.round,)
    assert sum(segment(obs, "winner")) == (view.winner is not None)


def test_relative_seats_put_the_viewer_first() -> None:
    """Each seat sees its own score first; partners share the score slot."""
    state = new_match(4, seed=9)
    rng = random.Random(2)
    while state.scores == (0, 0):
        state = apply(state, rng.choice(legal_moves(state)))
    for seat in range(4):
        scores = segment(encode(view_for(state, seat)), "scores")
        mine, theirs = state.scores[seat % 2], state.scores[1 - seat % 2]
        assert scores == (mine, theirs, 0)


def test_different_hands_encode_differently() -> None:
    """The encoding tells the seats' views apart."""
    state = new_match(3, seed=4)
    observations = {encode(view_for(state, seat)) for seat in range(3)}
    strings = {information_state(view_for(state, seat)) for seat in range(3)}
    assert len(observations) == len(strings) == 3


def test_the_information_state_grows_with_the_history() -> None:
    """Each action adds to the information state string; other seats' draws stay hidden."""
    state = new_match(2, seed=11)
    seen = set()
    while state.round == 1 and state.winner is None:
        text = information_state(view_for(state, 0))
        assert text not in seen
        seen.add(text)
        for tile in state.hands[1]:
            assert f"draw {tile}" not in text
        state = apply(state, legal_moves(state)[0])


def test_bad_arguments() -> None:
    """Anything but a view, or an unknown segment, is refused clearly.

    In the compiled build (where the views package and observation.py are
    compiled) mypyc's own check refuses a wrong argument first, with its own
    TypeError that names the class expected.
    """
    state = new_match(2, seed=1)
    refusal = "PlayerView object expected" if COMPILED else "needs a PlayerView"
    for function in (encode, information_state, observation_string):
        with pytest.raises(TypeError, match=refusal):
            function(state)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="no segment is named 'hands'"):
        segment(encode(view_for(state, 0)), "hands")


@pytest.mark.sweep
def test_encoding_from_the_state_and_facts_is_the_views_encoding() -> None:
    """encode_state, with facts advanced action by action, is encode(view_for) at every step.

    Every seat, every step of random matches for 2, 3 and 4 players, rounds
    ended by a domino and by a block alike; RoundFacts.start from the history
    gives the same facts.
    """
    rng = random.Random(23)
    compared = 0
    for match in range(18):
        players = 2 + match % 3
        state = new_match(players, seed=rng.getrandbits(64))
        facts = RoundFacts.start(state)
        while True:
            for seat in range(players):
                expected = encode(view_for(state, seat))
                assert encode_state(state, seat, facts) == expected
                floats = encode_list(state, seat, facts, 1.0)
                assert floats == list(expected)
                assert all(type(x) is float for x in floats)
                compared += 1
            if rng.random() < 0.1:
                assert RoundFacts.start(state) == facts
            if state.winner is not None:
                break
            move = rng.choice(legal_moves(state))
            after = apply(state, move)
            facts = facts.after(state, move, after)
            state = after
    assert compared > 18 * 500


def test_facts_of_another_round_are_refused() -> None:
    """encode_state refuses facts that cannot be the state's, and bad arguments."""
    state = new_match(2, seed=4)
    facts = RoundFacts.start(state)
    with pytest.raises(ValueError, match="round 2"):
        encode_state(state, 0, attrs.evolve(facts, round=2))
    with pytest.raises(ValueError, match="3 players"):
        encode_state(state, 0, RoundFacts(1, (0, 0, 0), (0, 0, 0)))
    with pytest.raises(ValueError, match="seat"):
        encode_state(state, 2, facts)
    with pytest.raises(TypeError, match="MatchState"):
        encode_state("state", 0, facts)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="RoundFacts"):
        encode_state(state, 0, "facts")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="MatchState"):
        RoundFacts.start("state")  # type: ignore[arg-type]


def test_the_information_state_vector_tells_apart_histories_with_one_observation() -> None:
    """Two orders of the same placements give one observation and two information-state vectors."""
    state = new_match(2, seed=3)
    pairs = []

    def walk(state: MatchState, depth: int) -> None:
        if depth == 4:
            pairs.append(view_for(state, 0))
            return
        for move in legal_moves(state):
            if isinstance(move, Place):
                walk(apply(state, move), depth + 1)

    walk(state, 0)
    vectors: dict[tuple[int, ...], set[tuple[int, ...]]] = {}
    histories: dict[tuple[int, ...], set[str]] = {}
    for view in pairs:
        vectors.setdefault(encode(view), set()).add(encode_information_state(view))
        histories.setdefault(encode(view), set()).add(information_state(view))
    for observation, found in vectors.items():
        assert len(found) == len(histories[observation])  # one vector per history
    assert any(len(found) > 1 for found in vectors.values())


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_information_state_vector_holds_the_round_in_order(players: int) -> None:
    """Slot by slot, the round's actions with who made them; the viewer's deal; the observation.

    Random matches stay within the slots, and the draws of another seat show no tile.
    """
    rng = random.Random(players)
    size = information_state_size(players)
    slots = action_slots(players)
    longest = 0
    for seed in range(3):
        state = new_match(players, seed=seed)
        dealt = [{t.index for t in hand} for hand in state.hands]
        while state.winner is None:
            seat = rng.randrange(players)
            vector = encode_information_state(view_for(state, seat))
            assert len(vector) == size
            assert vector[:OBSERVATION_SIZE] == encode(view_for(state, seat))
            assert {i for i in range(28) if vector[OBSERVATION_SIZE + i]} == dealt[seat]
            history = state.history
            longest = max(longest, len(history))
            for i in range(slots):
                slot = vector[
                    OBSERVATION_SIZE + 28 + 105 * i : OBSERVATION_SIZE + 28 + 105 * (i + 1)
                ]
                if i >= len(history):
                    assert not any(slot)
                    continue
                action = history[i]
                assert slot[(action.seat - seat) % players] == 1
                kind = slot[4:7].index(1)
                assert kind == [Place, Draw, Pass].index(type(action.move))
                shown = [t for t in range(28) if slot[7 + t]]
                if kind == 1:
                    assert action.tile is not None
                    assert shown == ([action.tile.index] if action.seat == seat else [])
            before = state
            state = apply(state, rng.choice(legal_moves(state)))
            if state.round != before.round:
                dealt = [{t.index for t in hand} for hand in state.hands]
    assert 0 < longest <= slots
    with pytest.raises(TypeError, match="PlayerView"):
        encode_information_state(new_match(players))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="players must be"):
        action_slots(5)


@given(mid_match_states(), st.integers(0, 3))
def test_scaled_divides_and_clips_as_documented(state: MatchState, seat: int) -> None:
    """scaled() divides each entry by its divisor (the scores by the target) within its bounds."""
    seat %= state.players
    vector = encode(view_for(state, seat))
    out = scaled(vector)
    low, high = SCALED_BOUNDS
    target = segment(vector, "target")[0]
    for k, (x, y, d) in enumerate(zip(vector, out, SCALE_DIVISORS, strict=True)):
        expected = x / (d or target)
        assert y == min(max(expected, low[k]), high[k])
        assert low[k] <= y <= high[k]
    flags = [k for k, d in enumerate(SCALE_DIVISORS) if d == 1.0 and low[k] == 0.0]
    assert all(out[k] == vector[k] for k in flags)  # the flags stay 0 or 1
    assert set(SCALE_CLIPS) == {"scores", "round"}


def test_scaled_clips_the_scores_and_the_round() -> None:
    """Scores far below 0 or past the target, and a long match's round, are clipped."""
    vector = list(encode(view_for(new_match(2, seed=1), 0)))
    start = dict(_offsets_for_test())
    vector[start["scores"]], vector[start["scores"] + 1] = -900, 400
    vector[start["round"]] = 250
    out = scaled(vector)
    assert out[start["scores"] : start["scores"] + 2] == (-2.0, 1.2)
    assert out[start["round"]] == 1.0
    with pytest.raises(ValueError, match="375"):
        scaled(vector[:-1])


def _offsets_for_test() -> list[tuple[str, int]]:
    offsets, at = [], 0
    for name, size in OBSERVATION_FIELDS:
        offsets.append((name, at))
        at += size
    return offsets

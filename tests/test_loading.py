"""Loading at server speed, safely: the deal tied to its source, forgeries, signed saves.

Untrusted text is validated completely and its deal tied to the seed (or
marked as given); the server's own saves, signed with its key, load with no
replay.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import random
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from american_sniff import (
    ALL_TILES,
    Deal,
    InvalidState,
    MatchState,
    apply,
    legal_moves,
    new_match,
    parse_tile,
    serial,
    view_for,
)
from american_sniff.engine import seeded_deal
from american_sniff.serial import state_to_dict
from scenarios import random_play

KEY = b"a server's own key, kept secret"


def _hmac(text: str) -> str:
    """The signature a signed save of ``text`` carries under KEY."""
    return hmac.new(KEY, text.encode(), hashlib.sha256).hexdigest()


def _round_state(players: int, seed: int, round_: int, actions: int) -> MatchState:
    """A state of round ``round_`` after about ``actions`` of its actions (random play)."""
    chooser = random.Random(seed)
    state = new_match(players, seed=seed)
    count = 0
    while not state.is_over:
        if state.round == round_:
            if count >= actions:
                return state
            count += 1
        state = apply(state, chooser.choice(legal_moves(state)))
    raise AssertionError("the match ended too early")


def _doc(state: MatchState) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(state.to_json())
    return loaded


def _refused(doc: dict[str, Any]) -> str:
    with pytest.raises(InvalidState) as error:
        MatchState.from_json(json.dumps(doc))
    return str(error.value)


def _sort(hand: list[str]) -> list[str]:
    return sorted(hand, key=lambda text: parse_tile(text, strict=True).index)


# -- the three forgeries ------------------------------------------------------------------


@pytest.mark.parametrize("round_", [1, 3])
def test_a_hand_tile_swapped_with_a_stock_tile_is_refused(round_: int) -> None:
    """Seat 0 trades a tile of its hand for the stock's next tile: not the seeded deal."""
    doc = _doc(_round_state(2, 11, round_, 2))
    mine, theirs = doc["hands"][0][0], doc["stock"][0]
    doc["hands"][0] = _sort([theirs, *doc["hands"][0][1:]])
    doc["stock"][0] = mine
    assert "not the seeded deal" in _refused(doc)


@pytest.mark.parametrize("round_", [1, 3])
def test_a_reordered_stock_is_refused(round_: int) -> None:
    """The stock reordered so that the next draw gives a chosen tile: not the seeded deal."""
    doc = _doc(_round_state(3, 4, round_, 1))
    assert len(doc["stock"]) > 1
    doc["stock"] = [doc["stock"][-1], *doc["stock"][:-1]]
    assert "not the seeded deal" in _refused(doc)


def _doubles(hand: tuple[Any, ...]) -> int:
    return sum(tile.is_double for tile in hand)


def test_a_generator_state_chosen_for_the_next_deal_is_refused() -> None:
    """An rng searched for so that the next round deals seat 0 four doubles or more: refused."""
    state = _round_state(4, 2, 2, 3)
    doc = _doc(state)
    tries = 0
    forged = state.info.rng
    while _doubles(seeded_deal(4, forged)[0][0]) < 4:
        forged = (forged * 6364136223846793005 + 1442695040888963407) % 2**64
        tries += 1
    assert tries > 0
    doc["rng"] = str(forged)
    assert "not the seeded deal" in _refused(doc)


@given(st.integers(0, 2**64 - 1))
def test_any_other_generator_state_is_refused(rng: int) -> None:
    """Whatever rng replaces the true one, the round is no longer the seeded deal."""
    state = _round_state(2, 7, 2, 5)
    doc = _doc(state)
    if rng == state.info.rng:
        return
    doc["rng"] = str(rng)
    _refused(doc)


@pytest.mark.parametrize(
    ("round_", "reason"),
    [(1, "cannot be where the generator"), (2, "given deals are all used before the seed")],
)
def test_a_seeded_round_cannot_pass_for_a_given_one(round_: int, reason: str) -> None:
    """Calling a seeded round 'dealt from a deal' does not free it.

    In round 1 its rng does not fit; after a seeded round, no given round can come.
    """
    doc = _doc(_round_state(2, 7, round_, 5))
    doc["dealt_from"] = "deal"
    assert reason in _refused(doc)


# -- honest states load ---------------------------------------------------------------------


def _random_deal(players: int, seed: int, opener: int | None) -> Deal:
    tiles = list(ALL_TILES)
    random.Random(seed).shuffle(tiles)
    size = {2: 7, 3: 6, 4: 5}[players]
    hands = [tiles[i * size : (i + 1) * size] for i in range(players)]
    return Deal(hands=hands, stock=tiles[players * size :], opener=opener)


@given(
    st.sampled_from([2, 3, 4]),
    st.integers(0, 2**64 - 1),
    st.integers(0, 2),
    st.booleans(),
    st.integers(0, 2**32),
)
@pytest.mark.sweep
def test_honest_states_with_seeded_or_given_deals_all_load(
    players: int, seed: int, given_deals: int, with_opener: bool, play: int
) -> None:
    """Every state of a match, dealt from the seed or from given deals, loads as itself."""
    deals = [
        _random_deal(players, play + n, (play + n) % players if with_opener else None)
        for n in range(given_deals)
    ]
    states = random_play(new_match(players, seed=seed, deals=deals), 400, play)
    for state in states[::7] + states[-3:]:
        assert MatchState.from_json(state.to_json()) == state
        assert state.info.given == (state.round <= given_deals)


# -- the mutation fuzzer ------------------------------------------------------------------


def _mutate(doc: dict[str, Any], chooser: random.Random) -> None:
    """One random change of the kinds a forger makes: tiles moved, numbers changed."""
    kind = chooser.randrange(5)
    places = [("hands", seat) for seat in range(len(doc["hands"]))] + [("stock", None)]
    places = [p for p in places if (doc["hands"][p[1]] if p[1] is not None else doc["stock"])]
    if kind == 0 and len(places) > 1:  # swap two tiles of two places
        first, second = chooser.sample(places, 2)
        lists = [doc["hands"][p[1]] if p[1] is not None else doc["stock"] for p in (first, second)]
        i, j = chooser.randrange(len(lists[0])), chooser.randrange(len(lists[1]))
        lists[0][i], lists[1][j] = lists[1][j], lists[0][i]
        for place, tiles in zip((first, second), lists, strict=True):
            if place[1] is not None:
                doc["hands"][place[1]] = _sort(tiles)
    elif kind == 1:  # the stock reordered
        chooser.shuffle(doc["stock"])
    elif kind == 4 and doc["last_round"] is not None:  # the last round's hands traded
        revealed = doc["last_round"]["hands"]
        one, other = chooser.sample(range(len(revealed)), 2)
        if revealed[one] and revealed[other]:
            i, j = chooser.randrange(len(revealed[one])), chooser.randrange(len(revealed[other]))
            revealed[one][i], revealed[other][j] = revealed[other][j], revealed[one][i]
            revealed[one], revealed[other] = _sort(revealed[one]), _sort(revealed[other])
    elif kind == 2:  # the generator state moved
        doc["rng"] = str((int(doc["rng"]) + chooser.randrange(1, 2**64)) % 2**64)
    else:  # the opener or the turn changed
        key = chooser.choice(["opener", "turn"])
        doc[key] = (doc[key] + chooser.randrange(1, doc["players"])) % doc["players"]


@pytest.mark.sweep
@given(st.sampled_from([2, 3, 4]), st.integers(0, 2**32), st.integers(0, 2**32))
def test_mutated_states_are_refused_unless_they_are_honest(
    players: int, seed: int, mutation: int
) -> None:
    """A mutant that loads is the very state it was made from (the change changed nothing)."""
    chooser = random.Random(mutation)
    states = random_play(new_match(players, seed=seed), 300, seed)
    for state in chooser.sample(states, min(len(states), 8)):
        doc = _doc(state)
        _mutate(doc, chooser)
        try:
            loaded = MatchState.from_json(json.dumps(doc))
        except InvalidState:
            continue
        assert loaded == state


# -- signed saves ---------------------------------------------------------------------------


@given(st.sampled_from([2, 3, 4]), st.integers(0, 2**32), st.integers(0, 500))
def test_a_signed_save_loads_as_itself_with_its_key(players: int, seed: int, steps: int) -> None:
    """``from_json(text, key=key)`` gives back the state ``to_json(key=key)`` wrote."""
    state = random_play(new_match(players, seed=seed), steps, seed)[-1]
    text = state.to_json(key=KEY)
    assert MatchState.from_json(text, key=KEY) == state
    assert MatchState.from_json(text.encode(), key=KEY) == state
    assert MatchState.from_json(text) == state  # without the key: checked in full


@given(st.sampled_from([2, 3, 4]), st.integers(0, 2**32), st.integers(0, 500))
def test_a_signed_save_loaded_writes_the_same_text_and_goes_on(
    players: int, seed: int, steps: int
) -> None:
    """A loaded signed save keeps its text, and writes what the dict writer gives.

    Saved again it is the same text; after each later move, the text of
    ``json.dumps`` of ``state_to_dict``.
    """
    state = random_play(new_match(players, seed=seed), steps, seed)[-1]
    text = state.to_json(key=KEY)
    loaded = MatchState.from_json(text, key=KEY)
    assert loaded.to_json(key=KEY) == text
    rng = random.Random(seed)
    for _ in range(3):
        if loaded.winner is not None:
            break
        loaded = apply(loaded, rng.choice(legal_moves(loaded)))
        assert loaded.to_json() == json.dumps(state_to_dict(loaded), separators=(",", ":"))


@pytest.mark.sweep
@given(st.sampled_from([2, 3, 4]), st.integers(0, 2**32))
def test_signed_saves_loaded_in_turn_read_one_action_each_and_load_as_themselves(
    players: int, seed: int
) -> None:
    """A server that loads each signed save of a match in turn gets each state exactly.

    The load reads only the action a save has over the one loaded before it:
    the loaded history's older nodes are the very nodes of the state loaded
    before (shared, not read again). Every state still equals the original,
    and so does its view and its text, whatever order the saves come in.
    """
    states = random_play(new_match(players, seed=seed), 400, seed)
    texts = [state.to_json(key=KEY) for state in states]
    serial.signed._SIGNED_HISTORIES.clear()
    before: MatchState | None = None
    shared = 0
    for state, text in zip(states, texts, strict=True):
        loaded = MatchState.from_json(text, key=KEY)
        assert loaded == state
        assert loaded.to_json(key=KEY) == text
        assert view_for(loaded, loaded.turn).to_json() == view_for(state, state.turn).to_json()
        # A state with one action more than the one loaded before it, in its round.
        follows = before is not None and before.round == loaded.round
        node, node_before = loaded._log, None if before is None else before._log
        if follows and node is not None and node_before is not None:
            assert node[6] is node_before, "the history before was read again"
            shared += 1
        before = loaded
    assert shared >= len(states) // 3
    # Out of order, and each text twice: the same states.
    for index in random.Random(seed).sample(range(len(texts)), min(len(texts), 12)) * 2:
        assert MatchState.from_json(texts[index], key=KEY) == states[index]


@pytest.mark.parametrize(
    "signature",
    [
        "\u00e9" * 64,  # non-ASCII: hmac.compare_digest raised TypeError
        "A" * 64,  # uppercase hex is not what state_to_json writes
        "0" * 63 + "g",
        "0" * 63 + "\u0660",  # an Arabic-Indic digit: a digit, but not hex
        " " + "0" * 63,
    ],
)
def test_a_signature_not_of_64_lowercase_hex_digits_is_invalid_state(signature: str) -> None:
    """The signature's shape is checked before any comparison; the only error is InvalidState."""
    text = _round_state(2, 3, 1, 2).to_json(key=KEY)
    forged = text[:-66] + signature + '"}'
    assert len(forged) == len(text)
    with pytest.raises(InvalidState, match="64 lowercase hexadecimal digits"):
        MatchState.from_json(forged, key=KEY)


def test_a_lone_surrogate_in_a_signed_save_is_invalid_state() -> None:
    """Text that cannot be UTF-8 encoded is refused as InvalidState, not UnicodeEncodeError."""
    text = _round_state(2, 3, 1, 2).to_json(key=KEY)
    forged = text.replace('"rules_version":"1"', '"rules_version":"\ud800"', 1)
    assert forged != text
    with pytest.raises(InvalidState, match="not valid Unicode"):
        MatchState.from_json(forged, key=KEY)


def test_a_signed_save_is_refused_with_another_key_or_once_changed() -> None:
    """A wrong key, a changed byte, or a missing signature are refused; nothing is trusted."""
    state = _round_state(2, 3, 2, 4)
    text = state.to_json(key=KEY)
    with pytest.raises(InvalidState, match="signature is wrong"):
        MatchState.from_json(text, key=b"another key, not the server's")
    forged = (
        text.replace('"turn":0', '"turn":1')
        if '"turn":0' in text
        else text.replace('"turn":1', '"turn":0')
    )
    assert forged != text
    with pytest.raises(InvalidState, match="signature is wrong"):
        MatchState.from_json(forged, key=KEY)
    with pytest.raises(InvalidState, match="not signed"):
        MatchState.from_json(state.to_json(), key=KEY)
    with pytest.raises(ValueError, match="at least 16"):
        state.to_json(key=b"short")
    odd = '{"format":"american-sniff/state","format_version":1,"rules_version":"1"}'
    signed_odd = odd[:-1] + ',"signature":"' + _hmac(odd) + '"}'
    with pytest.raises(InvalidState, match="signed state is not in the format"):
        MatchState.from_json(signed_odd, key=KEY)
    with pytest.raises(ValueError, match="at least 16"):
        MatchState.from_json(text, key="a text key is not bytes")  # type: ignore[call-overload]


def test_a_list_of_bad_elements_is_refused_at_the_first_one() -> None:
    """The strict reader stops at the first bad element of a list instead of gathering them all.

    Gathering every error of 80,000 empty actions took seconds and hundreds of
    megabytes (issue 26); the error must name element 0 and hold nothing more.
    """
    import cattrs

    data = json.loads(new_match(2, seed=1).to_json())
    data["history"] = [{}] * 80_000
    with pytest.raises(cattrs.ClassValidationError) as caught:
        serial.converter().structure(data, serial.parsing.StateDoc)
    (history,) = caught.value.exceptions
    assert isinstance(history, cattrs.IterableValidationError)
    assert len(history.exceptions) == 1
    problems = cattrs.transform_error(caught.value, path="$")
    assert problems[0] == "required field missing @ $.history[0].seat"
    # the five fields of that one action, and nothing of the 79,999 after it
    assert len(problems) == 5
    assert all(
        problem.endswith(
            tuple(f"$.history[0].{f}" for f in ("seat", "move", "tile", "end_sum", "points"))
        )
        for problem in problems
    )
    # (a text of 80,000 empty actions is refused unread, as denser than any
    # state, and one of more than 112 actions unread too: 100 of them are read)
    data["history"] = [{}] * 100
    with pytest.raises(InvalidState, match=r"required field missing @ \$\.history\[0\]\.seat"):
        MatchState.from_json(json.dumps(data))


# -- reachability: the five families of forged saves (issue 26) ----------------------------

#: SplitMix64's increment: its state moves by this with every output.
GAMMA = 0x9E3779B97F4A7C15


def _second_round(players: int = 2, seed: int = 3) -> dict[str, Any]:
    """A save of round 2, dealt from the seed after round 1 ended by a domino (no lot)."""
    doc = _doc(_round_state(players, seed, 2, 4))
    assert doc["last_round"]["end"] == "domino"
    assert doc["dealt_from"] == doc["last_round"]["dealt_from"] == "seed"
    return doc


def test_a_given_round_after_a_seeded_one_is_refused() -> None:
    """Relabel round 2 as given, wind rng back over its deal, and trade tiles: refused.

    Given deals are always used before the seed, so no match reaches it.
    """
    doc = _second_round()
    doc["dealt_from"] = "deal"
    doc["rng"] = str((int(doc["rng"]) - 27 * GAMMA) % 2**64)
    mine, theirs = doc["hands"][0][0], doc["stock"][0]
    doc["hands"][0] = _sort([theirs, *doc["hands"][0][1:]])
    doc["stock"][0] = mine
    assert "given deals are all used before the seed" in _refused(doc)


def test_a_previous_round_relabelled_as_given_is_refused() -> None:
    """Round 1 called given does not skip its deal's check: the seed cannot reach round 2's rng.

    After given rounds the generator has drawn at most their lots, not a deal.
    """
    doc = _second_round()
    doc["last_round"]["dealt_from"] = "deal"
    assert "cannot be where the generator" in _refused(doc)


@pytest.mark.parametrize("shift", [-50, 5, 150])
def test_the_first_round_starts_at_zero_when_it_is_the_previous_round(shift: int) -> None:
    """Round 1's result and round 2's scores moved together: round 1 would start at shift."""
    doc = _second_round()
    doc["last_round"]["scores"][1] += shift
    doc["scores"][1] += shift
    assert "the first round starts at scores" in _refused(doc)
    # Far below: round 2 itself could not start there.
    doc["last_round"]["scores"][1] -= 100_000
    doc["scores"][1] -= 100_000
    assert "settlements take at most 170 each from a side" in _refused(doc)


def test_a_round_cannot_start_below_what_the_settlements_can_take() -> None:
    """Round 3 whose round 2 starts a million down: one settlement takes at most 170."""
    doc = _doc(_round_state(2, 5, 3, 2))
    doc["last_round"]["scores"][0] -= 1_000_000
    doc["scores"][0] -= 1_000_000
    assert "settlements take at most 170 each" in _refused(doc)


def test_a_match_of_a_nearby_generator_state_is_not_the_seeds() -> None:
    """A match of seed s + 3 outputs, relabelled as seed s: round 1 did not start at the seed."""
    real = 11
    doc = _second_round(seed=real)
    doc["seed"] = str((real - 3 * GAMMA) % 2**64)
    refused = _refused(doc)  # round 2 would begin 31 outputs in, or round 1 not at the seed
    assert "cannot be where the generator" in refused or "not the seeded deal that" in refused


@pytest.mark.parametrize("extra", [1, 5, -1])
def test_actions_before_is_exact_in_round_two(extra: int) -> None:
    """In round 2, actions_before is round 1's count of actions, no more and no less."""
    doc = _second_round()
    doc["actions_before"] += extra
    assert "actions_before is" in _refused(doc)


@pytest.mark.parametrize("shift", [3, 10, 22])
def test_the_previous_round_starts_where_the_rounds_before_can_leave_the_generator(
    shift: int,
) -> None:
    """A round-3 save relabelled as a seed ``shift`` outputs back: round 2 starts 28 - shift in.

    A seeded round 1 draws 28 outputs (its shuffle and its lot), a given one
    its lot at most, so round 2 starts 0 or 1 outputs in, or 28, give or take
    the redraws: 6 to 27 is no match's.
    """
    doc = _doc(_round_state(2, 5, 3, 2))
    assert doc["last_round"]["dealt_from"] == "seed"
    MatchState.from_json(json.dumps(doc))  # as saved
    doc["seed"] = str((int(doc["seed"]) + shift * GAMMA) % 2**64)
    refused = _refused(doc)
    assert "cannot be where the generator" in refused or "not the seeded deal that" in refused


def test_round_two_after_a_given_round_one_starts_where_its_lot_left_the_generator() -> None:
    """A given round 1 drew its lot from the seed, or nothing: exactly, with no redraw to spare.

    The state holds round 1, so the lot it drew (or did not) is known.
    """
    chooser = random.Random(4)
    tiles = list(ALL_TILES)
    chooser.shuffle(tiles)
    deal = Deal([tiles[:7], tiles[7:14]], tiles[14:], None)  # the lot is drawn
    state = new_match(2, seed=9, deals=[deal])
    while state.round == 1:
        state = apply(state, chooser.choice(legal_moves(state)))
    doc = _doc(state)
    assert doc["last_round"]["dealt_from"] == "deal"
    assert doc["dealt_from"] == "seed"
    MatchState.from_json(json.dumps(doc))  # as saved
    for steps in (1, 3, 27):  # round 2 would start 2, 4 or 28 outputs after the seed
        forged = dict(doc, seed=str((9 - steps * GAMMA) % 2**64))
        assert "cannot be where the generator" in _refused(forged)
    # At the seed itself: reached by a match whose round-1 deal named the opener.
    MatchState.from_json(json.dumps(dict(doc, seed=str((9 + GAMMA) % 2**64))))

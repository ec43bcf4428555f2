"""Match records: building, JSON round trips, the schema, loading errors and replay."""

from __future__ import annotations

import functools
import itertools
import json
import random
import re
from pathlib import Path
from typing import Any

import attrs
import jsonschema  # type: ignore[import-untyped]  # no type stubs among the test dependencies
import pytest
from hypothesis import given
from hypothesis import strategies as st

from american_sniff import (
    ALL_TILES,
    RULES_VERSION,
    ActionRecord,
    Deal,
    Draw,
    InvalidRecord,
    MatchRecord,
    MatchState,
    OpenerBy,
    Pass,
    Place,
    Recorder,
    RoundEnd,
    Tile,
    apply,
    dump_record,
    legal_moves,
    load_record,
    new_match,
    parse_move,
    parse_tile,
    record_match,
    replay,
)
from american_sniff import records as records_module
from american_sniff.records import RECORD_FORMAT, record_schema, seed_discrepancy
from american_sniff.serial import FORMAT_VERSION, action_to_dict
from scenarios import demo_match

#: Seeded demo matches: (players, seed). Between them they have wins in mid-round,
#: a win by a player's last tile, blocked rounds, passes and negative scores
#: (test_the_chosen_matches_cover_the_cases pins it).
MATCHES = ((2, 2), (3, 10), (4, 2), (4, 10))

VALIDATOR = jsonschema.Draft202012Validator(record_schema())


def record_of(players: int, seed: int) -> MatchRecord:
    """The record of a demo match."""
    return record_match(demo_match(players, seed))


def short_record() -> MatchRecord:
    """The record of a match's first round and the start of its second."""
    states = demo_match(2, 2)
    return record_match(states[: states.index(_first_of(states, 2)) + 2])


def _first_of(states: tuple[MatchState, ...], number: int) -> MatchState:
    """The first state of round ``number``."""
    return next(s for s in states if s.round == number)


def schema_errors(doc: object) -> list[str]:
    """The schema's complaints about ``doc``; empty if it is valid."""
    return [error.message for error in VALIDATOR.iter_errors(doc)]


# -- building records ----------------------------------------------------------------------


def test_the_chosen_matches_cover_the_cases() -> None:
    """The matches recorded here win mid-round and by a last tile, block, pass and go negative."""
    records = [record_of(players, seed) for players, seed in MATCHES]
    assert [r.players for r in records] == [2, 3, 4, 4]
    assert all(r.winner is not None for r in records)
    ends = [rnd.end for r in records for rnd in r.rounds]
    assert RoundEnd.BLOCKED in ends
    assert RoundEnd.DOMINO in ends
    assert any(isinstance(a.move, Pass) for r in records for rnd in r.rounds for a in rnd.actions)
    assert any(score < 0 for r in records for rnd in r.rounds for score in rnd.scores)
    assert any(score < 0 for r in records for score in r.scores)
    # (3, 10): the winning placement is also the player's last tile.
    final = demo_match(3, 10)[-1]
    assert not final.hands[final.turn]
    assert record_of(3, 10).rounds[-1].end is None


@pytest.mark.parametrize(("players", "seed"), MATCHES)
def test_a_record_holds_every_round_of_the_match(players: int, seed: int) -> None:
    """Deals, openers, actions, ends and scores of the record are those of the played match."""
    states = demo_match(players, seed)
    record = record_match(states)
    final = states[-1]
    assert record.players == players
    assert record.names == tuple(f"seat {s}" for s in range(players))
    assert record.seed == seed
    assert (record.scores, record.winner) == (final.scores, final.winner)
    assert len(record.rounds) == final.round
    firsts = {s.round: s for s in reversed(states)}
    for number, rnd in enumerate(record.rounds, start=1):
        first = firsts[number]
        assert rnd.round == number
        assert rnd.hands == first.hands
        assert rnd.stock == first.stock
        assert rnd.opener == first.opener
        previous = first.last_round
        finisher_opens = previous is not None and previous.end is RoundEnd.DOMINO
        assert rnd.opener_by is (OpenerBy.FINISHER if finisher_opens else OpenerBy.LOT)
        if number < final.round:
            result = firsts[number + 1].last_round
            assert result is not None
            assert rnd.actions == tuple(ActionRecord.of(a) for a in result.history)
            assert (rnd.end, rnd.finisher) == (result.end, result.finisher)
            assert (rnd.deductions, rnd.scores) == (result.deductions, result.scores)
        else:
            assert rnd.actions == tuple(ActionRecord.of(a) for a in final.history)
            assert (rnd.end, rnd.finisher, rnd.deductions) == (None, None, None)
            assert rnd.scores == final.scores


def test_action_records_write_the_actions_as_the_state_format_does() -> None:
    """An action's JSON in a record is the JSON of the state format's history."""
    states = demo_match(3, 10)
    record = record_match(states)
    doc = record.to_dict()
    for number, rnd in enumerate(doc["rounds"], start=1):
        following = next((s for s in states if s.round == number + 1), states[-1])
        history = following.last_round.history if number < len(doc["rounds"]) else following.history  # type: ignore[union-attr]
        assert rnd["actions"] == [action_to_dict(a) for a in history]


def test_feeding_one_state_per_round_gives_the_same_record() -> None:
    """Any states in order do, as long as each round has one; feeding a state twice is harmless."""
    states = demo_match(4, 2)
    chosen = [s for i, s in enumerate(states) if i == 0 or s.round != states[i - 1].round]
    middle = [s for s in states if s.round == 2][3]
    chosen = [*chosen[:2], middle, middle, *chosen[2:], states[-1]]
    assert record_match(chosen) == record_match(states)


def test_feeding_the_last_state_of_each_round_gives_the_same_record() -> None:
    """A round's deal is worked out from a state in mid-round: its hands, placements and draws."""
    states = demo_match(3, 10)
    chosen = [s for s, after in itertools.pairwise(states) if after.round != s.round]
    assert any(a.tile is not None for s in chosen for a in s.history)  # some seat drew
    assert record_match([*chosen, states[-1]]) == record_match(states)


def test_a_record_can_stop_at_any_state() -> None:
    """Mid-round and at a round's start, the record holds what happened so far."""
    states = demo_match(2, 2)
    round_two = next(i for i, s in enumerate(states) if s.round == 2)
    for stop in (0, 5, round_two, round_two + 3):
        record = record_match(states[: stop + 1])
        state = states[stop]
        assert record.winner is None
        assert record.scores == state.scores
        assert len(record.rounds) == state.round
        last = record.rounds[-1]
        assert (last.end, last.finisher, last.deductions) == (None, None, None)
        assert last.actions == tuple(ActionRecord.of(a) for a in state.history)
        assert list(replay(record)) == list(states[: stop + 1])


def test_names_are_kept_and_checked() -> None:
    """Names go into the record; a wrong number of names is refused."""
    states = demo_match(2, 2)[:3]
    assert record_match(states, names=["Ana", "Bia"]).names == ("Ana", "Bia")
    with pytest.raises(ValueError, match="must hold 2 names"):
        record_match(states, names=["Ana"])
    with pytest.raises(ValueError, match="must hold 2 names"):
        record_match(states, names=[])


def test_small_helpers_read_well() -> None:
    """OpenerBy has a paste-back repr; is_over and action_count summarise a record."""
    assert repr(OpenerBy.LOT) == "OpenerBy.LOT"
    record = record_of(2, 2)
    assert record.is_over
    assert not record_match(demo_match(2, 2)[:9]).is_over
    assert record.action_count == len(demo_match(2, 2)) - 1


def test_the_seed_is_kept_only_when_it_deals_the_match() -> None:
    """A match dealt from given deals is recorded without a seed, and replays from its deals."""
    given_deal = demo_match(2, 2)[0]
    deal = Deal(hands=given_deal.hands, stock=given_deal.stock, opener=given_deal.opener)
    state = new_match(2, seed=99, deals=[deal])
    states = [state]
    for _ in range(40):
        state = apply(state, legal_moves(state)[0])
        states.append(state)
    record = record_match(states)
    assert record.seed is None
    assert seed_discrepancy(record, 99) == (
        1,
        f"seed 99 deals hand 0 as {' '.join(map(str, new_match(2, seed=99).hands[0]))}, "
        f"not {' '.join(map(str, deal.hands[0]))} as recorded",
    )
    replayed = list(replay(record))
    assert [(s.hands, s.layout, s.scores, s.turn, s.history) for s in replayed] == [
        (s.hands, s.layout, s.scores, s.turn, s.history) for s in states
    ]


@pytest.mark.parametrize(
    ("feed", "message"),
    [
        (lambda s: [s[40]], "must be of round 1"),
        (lambda s: [s[0], new_match(2, seed=3)], "another match"),
        (lambda s: [s[0], s[60]], "no state of round 2 was fed"),
        (lambda s: [s[0], _first_of(s, 2), s[0]], "round 1 comes after one of round 2"),
        (lambda s: [s[0], s[5], s[3]], "does not follow the last one"),
        (lambda s: [s[-1], s[-1]], "must be of round 1"),
        (lambda s: [s[0], "state"], "needs a MatchState"),
        (lambda s: [], "no state was fed"),
    ],
)
def test_the_recorder_refuses_states_that_do_not_follow(feed: Any, message: str) -> None:
    """States of another match, out of order, skipping a round, or after a win are refused."""
    states = demo_match(2, 2)
    with pytest.raises((ValueError, TypeError), match=message):
        record_match(feed(states))


def test_nothing_follows_the_winning_state() -> None:
    """The recorder refuses a state after the one where the match was won."""
    states = demo_match(2, 2)
    recorder = Recorder()
    for state in states:
        recorder.add(state)
    recorder.add(states[-1])  # the same state again is no new state
    other = states[-1].evolve(turn=1 - states[-1].turn)
    with pytest.raises(ValueError, match="already won"):
        recorder.add(other)


# -- JSON ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("players", "seed"), MATCHES)
def test_records_round_trip_exactly_and_follow_the_schema(players: int, seed: int) -> None:
    """Compact and pretty JSON read back to the same record; the document fits the schema."""
    record = record_of(players, seed)
    compact = record.to_json()
    pretty = record.to_json(pretty=True)
    assert MatchRecord.from_json(compact) == record
    assert MatchRecord.from_json(pretty.encode()) == record
    assert json.loads(compact) == json.loads(pretty) == record.to_dict()
    assert MatchRecord.from_dict(record.to_dict()) == record
    assert schema_errors(record.to_dict()) == []
    assert MatchRecord.from_json(compact).to_json() == compact


def test_the_pretty_form_puts_each_action_on_one_line() -> None:
    """People read and diff records: one line per action, per hand and per stock."""
    record = record_of(2, 2)
    lines = record.to_json(pretty=True).splitlines()
    action_lines = [line for line in lines if line.lstrip().startswith('{"seat"')]
    assert len(action_lines) == record.action_count
    assert all(len(line) <= 100 for line in action_lines)
    assert lines[0] == "{"
    assert '  "format": "american-sniff/record",' in lines
    assert '  "seed": "2",' in lines


def test_files_round_trip(tmp_path: Path) -> None:
    """dump_record writes a file that load_record reads back to the same record."""
    record = record_of(3, 10)
    path = tmp_path / "match.json"
    dump_record(record, path)
    assert load_record(path) == record
    assert load_record(str(path)) == record


def test_a_file_over_the_limit_is_refused_without_reading_it_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """load_record reads at most MAX_RECORD_BYTES + 1 bytes and refuses a longer file."""
    path = tmp_path / "big.json"
    path.write_text(" " * 2000 + record_of(2, 2).to_json())
    monkeypatch.setattr(records_module, "MAX_RECORD_BYTES", 1000)
    with pytest.raises(InvalidRecord, match="at most 1000 are read"):
        load_record(path)


def test_the_schema_names_the_format_of_this_library() -> None:
    """The schema's constants are the library's format, format version and rules version."""
    schema = record_schema()
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(schema)
    properties = schema["properties"]
    assert properties["format"] == {"const": RECORD_FORMAT}
    assert properties["format_version"] == {"const": FORMAT_VERSION}
    assert properties["rules_version"]["const"] == RULES_VERSION
    assert set(schema["required"]) == set(properties) == set(record_of(2, 2).to_dict())


def _set(path: str, value: object) -> Any:
    """A change to a document: set the value at ``path`` (dotted; list indices as numbers)."""

    def change(doc: dict[str, Any]) -> None:
        *parents, key = path.split(".")
        target: Any = doc
        for part in parents:
            target = target[int(part)] if part.isdigit() else target[part]
        if isinstance(target, list):
            target[int(key)] = value
        else:
            target[key] = value

    return change


def _delete(key: str) -> Any:
    def change(doc: dict[str, Any]) -> None:
        del doc[key]

    return change


#: Documents that are not records, with the words the error must hold. Each one
#: is refused by the loader and by the schema alike.
MALFORMED: tuple[tuple[str, Any, str], ...] = (
    ("format", _set("format", "american-sniff/state"), 'format is "american-sniff/state"'),
    ("format_version", _set("format_version", 2), "format_version 2 is not supported"),
    ("rules_version", _set("rules_version", "0"), 'rules_version "0" is not supported'),
    ("missing key", _delete("names"), "names"),
    ("unknown key", _set("comment", "hi"), "comment"),
    ("players", _set("players", 5), "$.players must be 2, 3 or 4"),
    ("names count", _set("names", ["a"]), "$.names must hold 2 strings"),
    ("name type", _set("names", ["a", 1]), "$.names[1]"),
    ("seed number", _set("seed", 2), "$.seed"),
    ("seed zeros", _set("seed", "02"), "$.seed must be null or a decimal string"),
    ("seed range", _set("seed", str(1 << 64)), "$.seed must be null or a decimal string"),
    ("seed sign", _set("seed", "-1"), "$.seed"),
    ("seed huge", _set("seed", "9" * 5000), "$.seed must be null or a decimal string"),
    ("seed empty", _set("seed", ""), "$.seed must be null or a decimal string"),
    ("bool", _set("rounds.0.opener", True), "$.rounds[0].opener"),
    ("negative seat", _set("rounds.0.actions.0.seat", -1), "$.rounds[0].actions[0].seat"),
    ("round zero", _set("rounds.0.round", 0), "$.rounds[0].round must be at least 1"),
    ("winner", _set("result.winner", -1), "$.result.winner must be at least 0"),
    ("tile order", _set("rounds.0.stock.0", "[4|1]"), "$.rounds[0].stock[0]"),
    ("tile text", _set("rounds.0.hands.1.0", "[7|7]"), "$.rounds[0].hands[1][0]"),
    ("move", _set("rounds.0.actions.0.move", "drew"), "$.rounds[0].actions[0].move"),
    ("side", _set("rounds.0.actions.1.move", "[1|4] on [1|4] line_a"), "not a double"),
    ("drawn tile", _set("rounds.0.actions.0.tile", "[1|x]"), "$.rounds[0].actions[0].tile"),
    ("opener_by", _set("rounds.0.opener_by", "coin"), "must be 'lot' or 'finisher'"),
    ("end", _set("rounds.0.end", "won"), "$.rounds[0].end must be 'domino' or 'blocked'"),
    ("deductions", _set("rounds.0.deductions", 5), "$.rounds[0].deductions"),
    ("scores", _set("result.scores", [1, "2"]), "$.result.scores[1]"),
    ("rounds", _set("rounds", {}), "$.rounds"),
    ("no rounds", _set("rounds", []), "$.rounds must hold at least one round"),
    ("hands", _set("rounds.0.hands", ["[0|0]"]), "$.rounds[0].hands[0]"),
    ("huge", _set("rounds.0.scores.0", 2**53), "at most 2**53 - 1 in size"),
    ("top level", lambda doc: doc.clear(), "format is missing"),
)


@pytest.mark.parametrize(("name", "change", "message"), MALFORMED, ids=[m[0] for m in MALFORMED])
def test_malformed_documents_are_refused_by_the_loader_and_the_schema(
    name: str, change: Any, message: str
) -> None:
    """The loader names the problem and where; the schema refuses the same document."""
    doc = short_record().to_dict()
    change(doc)
    with pytest.raises(InvalidRecord) as error:
        MatchRecord.from_dict(doc)
    assert message in str(error.value)
    assert schema_errors(doc) != [], f"the schema accepts the {name} document"
    if name != "huge":  # read_json refuses it before the loader sees it
        with pytest.raises(InvalidRecord, match=re.escape(message)):
            MatchRecord.from_json(json.dumps(doc))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"format": "american-sniff/record"', "not valid JSON"),
        ("", "not valid JSON"),
        ("[1, 2]", "must be a JSON object"),
        ('{"format": 1.5}', "not an integer"),
        ('{"format": NaN}', "not an integer"),
        ('{"a": 1, "a": 2}', "appears twice"),
        ("[" * 100_000 + "]" * 100_000, "refused unread: it holds 100000 arrays"),
        (" " * 30_000 + "[" * 2_000 + "]" * 2_000, "nested too deeply"),
        (b"\xff\xfe", "not UTF-8"),
        ("1" * 30, "more than 20 digits"),
    ],
)
def test_text_that_is_not_a_record_is_refused(text: str | bytes, message: str) -> None:
    """Invalid JSON, floats, repeated keys and runaway nesting get an InvalidRecord."""
    with pytest.raises(InvalidRecord, match=message):
        MatchRecord.from_json(text)


def test_from_json_refuses_other_types() -> None:
    """Only str and bytes are read as text."""
    with pytest.raises(InvalidRecord, match="must be JSON text"):
        MatchRecord.from_json(12)  # type: ignore[arg-type]


def test_records_with_wrong_claims_load() -> None:
    """Loading checks the shape only: a deal with a missing tile or a wrong sum loads."""
    doc = record_of(2, 2).to_dict()
    doc["rounds"][0]["hands"][0].pop()
    doc["rounds"][0]["actions"][0]["end_sum"] = 99
    doc["rounds"][0]["scores"] = [1, 2, 3]
    doc["result"]["winner"] = 7
    assert schema_errors(doc) == []
    record = MatchRecord.from_dict(doc)
    assert len(record.rounds[0].hands[0]) == 6
    assert record.winner == 7


# -- the schema's patterns against the library's parsers -------------------------------------


def _pattern(*path: str) -> re.Pattern[str]:
    node: Any = record_schema()
    for key in path:
        node = node[int(key)] if key.isdigit() else node[key]
    return re.compile(node["pattern"])


def _parses(parser: Any, text: str) -> bool:
    try:
        parser(text)
    except ValueError:
        return False
    return True


def test_the_tile_and_move_patterns_accept_exactly_what_the_parsers_read() -> None:
    """Every tile text and every move over the whole set: schema pattern and parser agree."""
    parse_tile_text = functools.partial(parse_tile, strict=True)
    parse_move_text = functools.partial(parse_move, strict=True)

    tile_pattern = _pattern("$defs", "tile")
    move_pattern = _pattern("$defs", "move")
    tile_texts = [f"[{a}|{b}]" for a in range(8) for b in range(8)]
    for text in [*tile_texts, "[1|4]\n", " [1|4]", "[1 |4]", "[14]", "[1|4"]:
        assert bool(tile_pattern.search(text)) == _parses(parse_tile_text, text), text
    sides = ("low", "high", "line_a", "line_b", "branch_a", "branch_b", "branch_c")
    valid_tiles = [str(t) for t in ALL_TILES]
    moves = ["draw", "pass", "draw\n", " pass", "Draw", "opens"]
    moves += [f"{t} opens" for t in [*valid_tiles, "[4|1]"]]
    moves += [f"{t} on {p} {s}" for t in ("[1|4]", "[6|6]") for p in tile_texts for s in sides]
    moves += [f"{t} on [1|1] line_a" for t in tile_texts]
    moves += ["[1|4] on [1|1]  line_a", "[1|4] on [1|1] line_a\n", "[1|4]  opens"]
    for text in moves:
        assert bool(move_pattern.search(text)) == _parses(parse_move_text, text), text


@given(
    st.integers(min_value=0, max_value=1 << 70)
    | st.integers(min_value=(1 << 64) - 300, max_value=(1 << 64) + 300)
)
def test_the_seed_pattern_accepts_exactly_the_64_bit_values(value: int) -> None:
    """The schema's seed pattern holds exactly the decimal strings of 0 to 2**64 - 1."""
    pattern = _pattern("properties", "seed", "anyOf", "1")
    assert bool(pattern.search(str(value))) == (value < 1 << 64)
    assert not pattern.search("0" + str(value))


# -- values built in Python ------------------------------------------------------------------


def test_the_constructors_check_types() -> None:
    """Records built in Python are checked for shape as the loader checks JSON."""
    good = record_of(2, 2)
    first = good.rounds[0]
    with pytest.raises(InvalidRecord, match="players must be 2, 3 or 4"):
        attrs.evolve(good, players=5)
    with pytest.raises(InvalidRecord, match="names must hold 2 strings"):
        attrs.evolve(good, names=("a",))
    with pytest.raises(InvalidRecord, match="seed must be None or an integer"):
        attrs.evolve(good, seed=-1)
    with pytest.raises(InvalidRecord, match="at least one round"):
        attrs.evolve(good, rounds=())
    with pytest.raises(InvalidRecord, match=r"rounds\[0\] is not a RoundRecord"):
        attrs.evolve(good, rounds=("round",))
    with pytest.raises(InvalidRecord, match="expected a sequence"):
        attrs.evolve(good, names="ab")
    with pytest.raises(InvalidRecord, match="expected a sequence"):
        attrs.evolve(good, scores=5)  # type: ignore[arg-type]
    with pytest.raises(InvalidRecord, match="opener_by must be an OpenerBy"):
        attrs.evolve(first, opener_by="lot")  # type: ignore[arg-type]
    with pytest.raises(InvalidRecord, match=r"hands\[0\]\[0\] is not a Tile"):
        attrs.evolve(first, hands=[["[0|0]"]])
    with pytest.raises(InvalidRecord, match="end must be a RoundEnd"):
        attrs.evolve(first, end="domino")  # type: ignore[arg-type]
    with pytest.raises(InvalidRecord, match=r"actions\[0\] is not an ActionRecord"):
        attrs.evolve(first, actions=[None])
    with pytest.raises(InvalidRecord, match="round must be at least 1"):
        attrs.evolve(first, round=0)
    with pytest.raises(InvalidRecord, match="move must be a Place, Draw or Pass"):
        ActionRecord(0, "draw")  # type: ignore[arg-type]
    with pytest.raises(InvalidRecord, match="tile must be a Tile or None"):
        ActionRecord(0, Draw(), "[1|1]")  # type: ignore[arg-type]
    with pytest.raises(InvalidRecord, match="end_sum must be an integer"):
        ActionRecord(0, Place(Tile(1, 1)), None, 2.0)  # type: ignore[arg-type]
    # Lists are accepted and kept as tuples.
    assert attrs.evolve(first, scores=[1, 2]).scores == (1, 2)


def test_action_records_read_as_the_notation() -> None:
    """str() of an action record shows the move and its claims."""
    assert str(ActionRecord(1, Draw(), Tile(2, 3))) == "seat 1: draw [2|3]"
    assert (
        str(ActionRecord(0, Place(Tile(1, 4)), None, 5, 5))
        == "seat 0: [1|4] opens, sum 5, scores 5"
    )
    assert str(ActionRecord(2, Pass())) == "seat 2: pass"


# -- replay --------------------------------------------------------------------------------


@pytest.mark.parametrize(("players", "seed"), MATCHES)
def test_replay_yields_the_states_of_the_match(players: int, seed: int) -> None:
    """Replaying a seeded record gives back every state of the match, equal in every field."""
    states = demo_match(players, seed)
    record = MatchRecord.from_json(record_match(states).to_json())
    assert list(replay(record)) == list(states)


def test_replay_without_a_seed_plays_the_recorded_deals() -> None:
    """Without a seed the states have seed 0 and otherwise are those of the match."""
    states = demo_match(3, 10)
    record = attrs.evolve(record_match(states), seed=None)
    replayed = list(replay(record))
    assert len(replayed) == len(states)
    for mine, theirs in zip(replayed, states, strict=True):
        assert mine.seed == 0
        assert (mine.hands, mine.layout, mine.scores, mine.turn, mine.winner) == (
            theirs.hands,
            theirs.layout,
            theirs.scores,
            theirs.turn,
            theirs.winner,
        )
        assert (mine.round, mine.stock, mine.history) == (
            theirs.round,
            theirs.stock,
            theirs.history,
        )


def _tampered(record: MatchRecord, number: int, **changes: Any) -> MatchRecord:
    rounds = list(record.rounds)
    rounds[number - 1] = attrs.evolve(rounds[number - 1], **changes)
    return attrs.evolve(record, rounds=rounds)


def _replace_action(
    record: MatchRecord, number: int, index: int, action: ActionRecord
) -> MatchRecord:
    actions = list(record.rounds[number - 1].actions)
    actions[index] = action
    return _tampered(record, number, actions=actions)


def test_replay_names_what_cannot_be_played() -> None:
    """Bad deals, openers, seats, illegal actions and misplaced actions raise InvalidRecord."""
    record = record_of(2, 2)
    seedless = attrs.evolve(record, seed=None)
    first = record.rounds[0]
    opening = first.actions[0]
    hand = first.hands[opening.seat]
    finisher_opens = next(r for r in record.rounds if r.opener_by is OpenerBy.FINISHER)
    other_seat = 1 - finisher_opens.opener
    cases: list[tuple[MatchRecord, str]] = [
        (_tampered(seedless, 1, stock=first.stock[1:]), "round 1: the deal is not valid"),
        (_tampered(record, 1, stock=first.stock[::-1]), "round 1: seed 2 deals the stock"),
        (
            _tampered(seedless, finisher_opens.round, opener=other_seat),
            f"round {finisher_opens.round}: seat {finisher_opens.opener} opens by the rules, "
            f"not seat {other_seat} as recorded",
        ),
        (
            _replace_action(record, 1, 0, attrs.evolve(opening, seat=1 - opening.seat)),
            "round 1, action 0 ([",
        ),
        (
            _replace_action(record, 1, 1, ActionRecord(first.actions[1].seat, Place(hand[0]))),
            "is illegal [",
        ),
        (
            _tampered(record, 1, actions=first.actions[:-1]),
            "round 1's actions stop before the round ends",
        ),
        (
            _tampered(record, 1, actions=(*first.actions, first.actions[0])),
            "comes after the round ended",
        ),
        (
            attrs.evolve(record, rounds=(*record.rounds, record.rounds[-1])),
            f"round {len(record.rounds) + 1} comes after side",
        ),
        (
            _tampered(record, len(record.rounds), actions=(*record.rounds[-1].actions, opening)),
            "comes after side",
        ),
        (
            attrs.evolve(seedless, rounds=[attrs.evolve(first, hands=first.hands[:1])]),
            "round 1: the deal",
        ),
    ]
    for bad, message in cases:
        with pytest.raises(InvalidRecord, match=re.escape(message)):
            list(replay(bad))


def test_the_seed_is_compared_as_far_as_the_record_can_be_played() -> None:
    """seed_discrepancy stops comparing where the record's actions cannot be played."""
    record = record_of(2, 2)
    first = record.rounds[0]
    wrong_seat = ActionRecord(1 - first.actions[0].seat, first.actions[0].move)
    unplayable = [
        _replace_action(record, 1, 0, wrong_seat),
        _replace_action(record, 1, 1, ActionRecord(first.actions[1].seat, Pass())),
        _tampered(record, 1, actions=first.actions[:-1]),
        _tampered(record, 1, actions=(*first.actions, first.actions[0])),
    ]
    for bad in unplayable:
        assert seed_discrepancy(bad, 2) is None
    extra_hand = _tampered(record, 1, hands=(*first.hands, first.hands[0]))
    assert seed_discrepancy(extra_hand, 2) == (1, "seed 2 deals 2 hands, not 3 as recorded")
    one_hand = _tampered(record, 1, hands=first.hands[:1])
    assert seed_discrepancy(one_hand, 2) == (
        1,
        f"seed 2 deals hand 1 as {' '.join(map(str, first.hands[1]))}, not nothing as recorded",
    )


def test_a_three_hand_deal_in_a_four_player_record_is_refused() -> None:
    """A valid deal for another number of players cannot start the round."""
    record = attrs.evolve(record_of(4, 2), seed=None)
    three = demo_match(3, 10)[0]
    bad = _tampered(record, 1, hands=three.hands, stock=three.stock)
    with pytest.raises(InvalidRecord, match="the deal has 3 hands, not 4"):
        list(replay(bad))


def _random_match(players: int, seed: int, steps: int) -> list[MatchState]:
    chooser = random.Random(seed)
    state = new_match(players, seed=seed)
    states = [state]
    for _ in range(steps):
        if state.is_over:
            break
        state = apply(state, chooser.choice(legal_moves(state)))
        states.append(state)
    return states


@given(
    players=st.sampled_from((2, 3, 4)),
    seed=st.integers(min_value=0, max_value=(1 << 64) - 1),
    steps=st.integers(min_value=0, max_value=150),
)
def test_random_matches_record_and_replay(players: int, seed: int, steps: int) -> None:
    """Any prefix of a random match: the record round-trips, fits the schema and replays."""
    states = _random_match(players, seed, steps)
    record = record_match(states)
    assert MatchRecord.from_json(record.to_json(pretty=True)) == record
    assert schema_errors(record.to_dict()) == []
    assert list(replay(record)) == states


# -- the docs ------------------------------------------------------------------------------

DOCS = Path(__file__).resolve().parent.parent / "docs"


@pytest.mark.parametrize(
    ("mistake", "value"),
    [
        (("seed",), "x"),
        (("rounds", 0, "opener"), -1),
        (("rounds", 0, "stock", 0), "zz"),
        (("result", "winner"), 9),
    ],
    ids=["seed", "opener", "stock", "winner"],
)
def test_an_action_not_in_the_format_is_named_before_other_mistakes(
    mistake: tuple[Any, ...], value: object
) -> None:
    """As the converter names every object not in the format before any value is checked."""
    state = new_match(2, seed=3)
    states = [state]
    for _ in range(30):
        state = apply(state, legal_moves(state)[0])
        states.append(state)
    doc = record_match(states).to_dict()
    target: Any = doc
    for key in mistake[:-1]:
        target = target[key]
    target[mistake[-1]] = value
    doc["rounds"][0]["actions"][5]["seat"] = "x"
    named = r"expected int @ \$\.rounds\[0\]\.actions\[5\]\.seat"
    with pytest.raises(InvalidRecord, match=named):
        MatchRecord.from_json(json.dumps(doc))
    with pytest.raises(InvalidRecord, match=named):
        MatchRecord.from_dict(doc)

"""The referee: every claim of a record is checked, and each tampering is found where it is."""

from __future__ import annotations

import copy
import functools
import json
import random
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from american_sniff import (
    ALL_TILES,
    Discrepancy,
    InvalidRecord,
    MatchRecord,
    Point,
    Report,
    Side,
    apply,
    check_record,
    legal_moves,
    new_match,
    record_match,
)
from american_sniff.referee import DISCREPANCY_KINDS, REPORT_FORMAT
from american_sniff.serial import format_schema
from scenarios import demo_match


def assert_valid_report(doc: dict[str, Any]) -> None:
    """The referee's report is valid against its JSON Schema (when jsonschema is there)."""
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.Draft202012Validator(format_schema("report")).validate(doc)


#: The matches of test_records: wins mid-round and by a last tile, blocks, negative scores.
MATCHES = ((2, 2), (3, 10), (4, 2), (4, 10))

Doc = dict[str, Any]


@functools.cache
def _record_text(players: int, seed: int) -> str:
    return record_match(demo_match(players, seed)).to_json()


def doc_of(players: int, seed: int, *, seeded: bool = False) -> Doc:
    """A fresh JSON document of a demo match's record, without its seed unless ``seeded``."""
    doc: Doc = json.loads(_record_text(players, seed))
    if not seeded:
        doc["seed"] = None
    return doc


def check(doc: Doc) -> Report:
    """The referee's report on a record document (read as any other program's would be)."""
    return check_record(MatchRecord.from_dict(doc))


def found(report: Report) -> list[tuple[str, int | None, int | None]]:
    """Each discrepancy as (kind, round, action)."""
    return [(d.kind, d.round, d.action) for d in report.discrepancies]


def where(doc: Doc, test: Callable[[Doc, Doc], bool], start: int = 1) -> tuple[int, int]:
    """The (round, action index) of the first action from round ``start`` that passes ``test``."""
    for number, rnd in enumerate(doc["rounds"], start=1):
        if number < start:
            continue
        for index, action in enumerate(rnd["actions"]):
            if test(action, rnd):
                return number, index
    raise AssertionError("no such action")


def is_draw(action: Doc, _: Doc) -> bool:
    """A draw."""
    return bool(action["move"] == "draw")


def is_placement(action: Doc, _: Doc) -> bool:
    """A placement (not the opening one)."""
    return " on " in action["move"]


def scores_points(action: Doc, _: Doc) -> bool:
    """A placement that scored."""
    return bool(action["points"])


def round_where(doc: Doc, test: Callable[[Doc], bool]) -> int:
    """The number of the first round that passes ``test``."""
    return next(n for n, rnd in enumerate(doc["rounds"], start=1) if test(rnd))


# -- good records ----------------------------------------------------------------------------


@pytest.mark.parametrize(("players", "seed"), MATCHES)
def test_records_of_played_matches_are_valid(players: int, seed: int) -> None:
    """The record of a match played with the engine has no discrepancy, with or without seed."""
    for seeded in (True, False):
        report = check(doc_of(players, seed, seeded=seeded))
        assert report.ok, report.text()
        assert_valid_report(report.to_dict())
        assert report.complete
        assert report.stopped is None
        assert report.rounds == demo_match(players, seed)[-1].round
        assert str(report).startswith(f"valid: {report.rounds} rounds, ")


def test_unfinished_records_are_valid() -> None:
    """A record that stops mid-round, or right after a round ended, is checked as far as it goes."""
    states = demo_match(4, 2)
    round_two = next(i for i, s in enumerate(states) if s.round == 2)
    for stop in (0, 7, round_two - 1, round_two, round_two + 1):
        report = check_record(record_match(states[: stop + 1]))
        assert report.ok, (stop, report.text())


def test_check_record_needs_a_record() -> None:
    """Anything but a MatchRecord is a TypeError."""
    with pytest.raises(TypeError, match="needs a MatchRecord"):
        check_record("{}")  # type: ignore[arg-type]


# -- tampering: one change to a good record, found where it is -------------------------------

Tamper = Callable[[Doc], tuple[str, int | None, int | None]]


def _action_claim(test: Callable[[Doc, Doc], bool], key: str, value: Any, kind: str) -> Tamper:
    def tamper(doc: Doc) -> tuple[str, int | None, int | None]:
        number, index = where(doc, test)
        action = doc["rounds"][number - 1]["actions"][index]
        action[key] = value(action[key]) if callable(value) else value
        return kind, number, index

    return tamper


def _round_claim(test: Callable[[Doc], bool], key: str, value: Any, kind: str) -> Tamper:
    def tamper(doc: Doc) -> tuple[str, int | None, int | None]:
        number = round_where(doc, test)
        rnd = doc["rounds"][number - 1]
        rnd[key] = value(rnd[key]) if callable(value) else value
        return kind, number, None

    return tamper


def _bump_first(values: list[int]) -> list[int]:
    return [values[0] + 5, *values[1:]]


def _ended(rnd: Doc) -> bool:
    return rnd["end"] is not None


def _domino(rnd: Doc) -> bool:
    return bool(rnd["end"] == "domino")


def _other_tile_in_hand(doc: Doc) -> tuple[str, int | None, int | None]:
    # A placement replaced by one of a tile the seat does not hold (the other seat's).
    number, index = where(doc, is_placement)
    rnd = doc["rounds"][number - 1]
    action = rnd["actions"][index]
    stranger = rnd["hands"][(action["seat"] + 1) % len(rnd["hands"])][0]
    action["move"] = f"{stranger} opens"
    return "illegal_action", number, index


def _draw_instead_of_placing(doc: Doc) -> tuple[str, int | None, int | None]:
    number, index = where(doc, is_placement)
    doc["rounds"][number - 1]["actions"][index].update(
        move="draw", tile=doc["rounds"][number - 1]["stock"][0], end_sum=None, points=None
    )
    return "illegal_action", number, index


def _other_seat(doc: Doc) -> tuple[str, int | None, int | None]:
    number, index = where(doc, is_placement, start=2)
    action = doc["rounds"][number - 1]["actions"][index]
    action["seat"] = (action["seat"] + 1) % doc["players"]
    return "wrong_seat", number, index


def _three_player_deal(doc: Doc) -> tuple[str, int | None, int | None]:
    # A valid deal, but for three players.
    three = record_match(demo_match(3, 10)[:1]).to_dict()["rounds"][0]
    doc["rounds"][1].update(hands=three["hands"], stock=three["stock"])
    return "deal", 2, None


def _swap_drawn_stock(doc: Doc) -> tuple[str, int | None, int | None]:
    # The first draw of a round takes stock[0]; put another tile there.
    number, index = where(doc, is_draw)
    stock = doc["rounds"][number - 1]["stock"]
    stock[0], stock[-1] = stock[-1], stock[0]
    return "drawn_tile", number, index


def _duplicate_in_hand(doc: Doc) -> tuple[str, int | None, int | None]:
    hands = doc["rounds"][2]["hands"]
    hands[0][0] = hands[1][0]
    return "deal", 3, None


def _short_stock(doc: Doc) -> tuple[str, int | None, int | None]:
    doc["rounds"][1]["stock"].pop()
    return "deal", 2, None


def _swap_between_hands(doc: Doc) -> tuple[str, int | None, int | None]:
    # Still a deal, but seat 0's opening tile is now seat 1's: round 2 goes wrong at once
    # (the opener placing it, or settlement, whichever the round reaches).
    number = round_where(doc, lambda rnd: rnd["round"] >= 2)
    rnd = doc["rounds"][number - 1]
    opener = rnd["opener"]
    played = rnd["actions"][0]["move"].split()[0]
    other = (opener + 1) % doc["players"]
    hand = rnd["hands"][opener]
    position = hand.index(played)
    hand[position], rnd["hands"][other][0] = rnd["hands"][other][0], hand[position]
    return "illegal_action", number, 0


def _finisher_opener(doc: Doc) -> tuple[str, int | None, int | None]:
    # The referee goes on with the finisher as opener, which the actions agree with.
    number = round_where(doc, lambda rnd: rnd["opener_by"] == "finisher")
    rnd = doc["rounds"][number - 1]
    rnd["opener"] = (rnd["opener"] + 1) % doc["players"]
    return "opener", number, None


def _opener_by(doc: Doc) -> tuple[str, int | None, int | None]:
    number = round_where(doc, lambda rnd: rnd["opener_by"] == "finisher")
    doc["rounds"][number - 1]["opener_by"] = "lot"
    return "opener", number, None


def _lot_after_block(doc: Doc) -> tuple[str, int | None, int | None]:
    number = round_where(doc, lambda rnd: rnd["end"] == "blocked") + 1
    doc["rounds"][number - 1]["opener_by"] = "finisher"
    return "opener", number, None


def _opener_no_seat(doc: Doc) -> tuple[str, int | None, int | None]:
    doc["rounds"][1]["opener"] = 7
    return "opener", 2, None


def _round_number(doc: Doc) -> tuple[str, int | None, int | None]:
    doc["rounds"][3]["round"] = 3
    return "round_number", 4, None


def _after_round_end(doc: Doc) -> tuple[str, int | None, int | None]:
    actions = doc["rounds"][0]["actions"]
    actions.append(dict(actions[-1]))
    return "after_round_end", 1, len(actions) - 1


def _round_unfinished(doc: Doc) -> tuple[str, int | None, int | None]:
    doc["rounds"][0]["actions"].pop()
    return "round_unfinished", 1, None


def _action_after_win(doc: Doc) -> tuple[str, int | None, int | None]:
    actions = doc["rounds"][-1]["actions"]
    actions.append({"seat": 0, "move": "pass", "tile": None, "end_sum": None, "points": None})
    return "after_win", len(doc["rounds"]), len(actions) - 1


def _round_after_win(doc: Doc) -> tuple[str, int | None, int | None]:
    extra = copy.deepcopy(doc["rounds"][0])
    extra["round"] = len(doc["rounds"]) + 1
    doc["rounds"].append(extra)
    return "after_win", len(doc["rounds"]), None


def _winning_round_ends(doc: Doc) -> tuple[str, int | None, int | None]:
    doc["rounds"][-1]["end"] = "domino"
    return "end", len(doc["rounds"]), None


def _result(key: str, value: Callable[[Any], Any], kind: str) -> Tamper:
    def tamper(doc: Doc) -> tuple[str, int | None, int | None]:
        doc["result"][key] = value(doc["result"][key])
        return kind, None, None

    return tamper


#: Every way of tampering a good record, by name: each returns the discrepancy that must
#: come first in the report, as (kind, round, action).
TAMPERING: dict[str, Tamper] = {
    "action end_sum": _action_claim(is_placement, "end_sum", lambda v: v + 1, "end_sum"),
    "action points": _action_claim(scores_points, "points", 0, "points"),
    "action drawn tile": _action_claim(is_draw, "tile", "[6|6]", "drawn_tile"),
    "action drawn tile missing": _action_claim(is_draw, "tile", None, "drawn_tile"),
    "placement claims a tile": _action_claim(is_placement, "tile", "[0|0]", "drawn_tile"),
    "draw claims a sum": _action_claim(is_draw, "end_sum", 0, "end_sum"),
    "draw claims points": _action_claim(is_draw, "points", 0, "points"),
    "action move": _other_tile_in_hand,
    "action move draw": _draw_instead_of_placing,
    "action seat": _other_seat,
    "round deductions": _round_claim(_ended, "deductions", _bump_first, "deductions"),
    "round deductions missing": _round_claim(_ended, "deductions", None, "deductions"),
    "round finisher": _round_claim(_domino, "finisher", lambda v: (v + 1) % 2, "finisher"),
    "round end": _round_claim(_domino, "end", "blocked", "end"),
    "round scores": _round_claim(_ended, "scores", _bump_first, "scores"),
    "winning round end": _winning_round_ends,
    "round hands duplicate": _duplicate_in_hand,
    "round hands swapped": _swap_between_hands,
    "round stock short": _short_stock,
    "round hands for three": _three_player_deal,
    "round stock order": _swap_drawn_stock,
    "round opener": _finisher_opener,
    "round opener_by": _opener_by,
    "round opener_by after a block": _lot_after_block,
    "round opener no seat": _opener_no_seat,
    "round number": _round_number,
    "action after the round ended": _after_round_end,
    "round unfinished": _round_unfinished,
    "action after the win": _action_after_win,
    "round after the win": _round_after_win,
    "result scores": _result("scores", _bump_first, "final_scores"),
    "result winner": _result("winner", lambda w: 1 - w, "winner"),
    "result no winner": _result("winner", lambda w: None, "winner"),
}

#: Tamperings after which the replay cannot go on.
FATAL = {
    "action move",
    "action move draw",
    "action seat",
    "round hands duplicate",
    "round hands swapped",
    "round stock short",
    "round hands for three",
    "round opener no seat",
    "round unfinished",
}

#: Tamperings whose consequences come after the first discrepancy: a tile drawn out of
#: order changes the hand, and what the seat may place later.
CONSEQUENCES = {"round stock order"}

#: Tamperings of a claim only: the replay goes on and finds nothing else.
ALONE = set(TAMPERING) - FATAL - CONSEQUENCES


@pytest.mark.parametrize("name", sorted(TAMPERING))
@pytest.mark.parametrize(("players", "seed"), [(2, 2), (4, 2)])
def test_each_tampering_is_found_where_it_is(name: str, players: int, seed: int) -> None:
    """The first discrepancy is the tampered field, at its round and action index."""
    doc = doc_of(players, seed)
    expected = TAMPERING[name](doc)
    report = check(doc)
    assert not report.ok
    assert_valid_report(report.to_dict())
    assert found(report)[0] == expected, report.text()
    if name in ALONE:
        assert len(report.discrepancies) == 1, report.text()
    if name in FATAL:
        stopped = report.stopped
        assert stopped is not None
        assert stopped.fatal
        assert not report.complete
        assert f"The replay stops at {stopped.where}" in report.text()
    elif name in ALONE:
        assert report.complete, report.text()


def test_every_kind_of_discrepancy_is_exercised() -> None:
    """The tampering table produces every kind the referee documents (but the seed's)."""
    kinds = set()
    for tamper in TAMPERING.values():
        doc = doc_of(2, 2)
        kinds.add(tamper(doc)[0])
    assert kinds | {"seed"} == set(DISCREPANCY_KINDS)


def test_an_illegal_action_carries_its_refusal_code() -> None:
    """The engine's refusal code and reason are in the discrepancy."""
    doc = doc_of(2, 2)
    _, number, index = _draw_instead_of_placing(doc)
    first = check(doc).discrepancies[0]
    assert first.code == "must_place"
    assert "holds a legal placement and must place" in first.message
    assert str(first).startswith(f"round {number}, action {index}: illegal_action [must_place]: ")

    doc = doc_of(2, 2)
    _other_tile_in_hand(doc)
    assert check(doc).discrepancies[0].code == "not_in_hand"


def test_after_a_win_claims_the_result_at_the_win() -> None:
    """Extra actions after the win are reported, and the result is still checked at the win."""
    doc = doc_of(3, 10)
    _action_after_win(doc)
    doc["result"]["winner"] = None
    assert [kind for kind, *_ in found(check(doc))] == ["after_win", "winner"]


# -- the seed -------------------------------------------------------------------------------


def test_a_seed_that_does_not_deal_the_record_is_reported() -> None:
    """With a seed, each round must be the one it deals: hands, stock and lot."""
    doc = doc_of(2, 2, seeded=True)
    hands = doc["rounds"][1]["hands"]
    hands[0][0], hands[1][0] = hands[1][0], hands[0][0]
    first = check(doc).discrepancies[0]
    assert (first.kind, first.round, first.action) == ("seed", 2, None)
    assert "seed 2 deals hand 0 as" in first.message

    doc = doc_of(2, 2, seeded=True)
    number = round_where(doc, lambda rnd: rnd["opener_by"] == "lot" and rnd["round"] > 1)
    doc["rounds"][number - 1]["opener"] = 1 - doc["rounds"][number - 1]["opener"]
    assert found(check(doc))[:2] == [("seed", number, None), ("wrong_seat", number, 0)]

    doc = doc_of(2, 2, seeded=True)
    doc["seed"] = "3"
    assert found(check(doc)) == [("seed", 1, None)]


def test_a_bad_deal_is_not_also_a_seed_discrepancy() -> None:
    """A deal that is no deal is reported once, as a deal."""
    doc = doc_of(2, 2, seeded=True)
    _duplicate_in_hand(doc)
    assert found(check(doc)) == [("deal", 3, None)]


# -- the report ---------------------------------------------------------------------------------


def test_the_report_reads_well_and_has_a_json_form() -> None:
    """Text for people, one line per discrepancy; JSON for scripts with every key present."""
    doc = doc_of(2, 2)
    TAMPERING["action end_sum"](doc)
    TAMPERING["round scores"](doc)
    _other_seat(doc)
    report = check(doc)
    text = report.text().splitlines()
    assert text[0] == f"3 discrepancies ({report.rounds} rounds, {report.actions} actions):"
    assert all(line.startswith("  round ") for line in text[1:4])
    assert text[4].startswith("The replay stops at round ")
    data = json.loads(report.to_json())
    assert data["format"] == REPORT_FORMAT
    assert (data["ok"], data["complete"]) == (False, False)
    assert [d["kind"] for d in data["discrepancies"]] == ["end_sum", "scores", "wrong_seat"]
    for item in data["discrepancies"]:
        assert set(item) == {"kind", "round", "action", "code", "fatal", "message"}
    one = Discrepancy("winner", None, None, "w")
    assert (one.where, str(one)) == ("result", "result: winner: w")
    ok = check(doc_of(3, 10))
    assert json.loads(ok.to_json())["discrepancies"] == []
    assert ok.to_dict()["ok"] is True


def test_messages_say_what_is_claimed_and_what_the_rules_give() -> None:
    """A claim's message names both values."""
    doc = doc_of(2, 2)
    number, index = where(doc, is_placement)
    rules = doc["rounds"][number - 1]["actions"][index]["end_sum"]
    doc["rounds"][number - 1]["actions"][index]["end_sum"] = rules + 1
    message = check(doc).discrepancies[0].message
    assert message == f"the record claims end sum {rules + 1}; the rules give {rules}"
    doc = doc_of(2, 2)
    number = round_where(doc, _domino)
    doc["rounds"][number - 1]["end"] = None
    assert (
        check(doc).discrepancies[0].message == "the record claims end null; the rules give 'domino'"
    )


# -- random tampering -----------------------------------------------------------------------


@given(
    seed=st.integers(min_value=0, max_value=2**32),
    players=st.sampled_from((2, 3, 4)),
    pick=st.randoms(use_true_random=False),
)
def test_a_wrong_sum_anywhere_is_found_at_its_index(
    seed: int, players: int, pick: random.Random
) -> None:
    """Any placement of a random match with a wrong end sum is the one discrepancy."""
    state = new_match(players, seed=seed)
    states = [state]
    for _ in range(120):
        if state.is_over:
            break
        state = apply(state, pick.choice(legal_moves(state)))
        states.append(state)
    doc = record_match(states).to_dict()
    placements = [
        (number, index)
        for number, rnd in enumerate(doc["rounds"], start=1)
        for index, action in enumerate(rnd["actions"])
        if action["end_sum"] is not None
    ]
    number, index = pick.choice(placements)
    doc["rounds"][number - 1]["actions"][index]["end_sum"] += pick.choice((-1, 1, 5))
    assert found(check(doc)) == [("end_sum", number, index)]


def test_the_docs_list_every_kind() -> None:
    """docs/records.md has one table row per kind, in the order of DISCREPANCY_KINDS."""
    page = (Path(__file__).resolve().parent.parent / "docs" / "records.md").read_text()
    rows = re.findall(r"^\| `([a-z_]+)` \|", page, flags=re.MULTILINE)
    start = rows.index("round_number")
    assert rows[start : start + len(DISCREPANCY_KINDS) + 1] == list(DISCREPANCY_KINDS)


# -- robustness: no document makes the loader or the referee fail otherwise --------------------

SCALARS = st.none() | st.booleans() | st.integers(-(10**21), 10**21) | st.text(max_size=30)
JSON_VALUES = st.recursive(
    SCALARS | st.sampled_from(["[1|4]", "draw", "pass", "[1|4] on [4|4] line_b", "7", "lot"]),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=8,
)
TILE_TEXTS = st.sampled_from([str(tile) for tile in ALL_TILES])


def _point_texts() -> list[str]:
    """Every point of the set: each tile with each side it has."""
    texts = []
    for tile in ALL_TILES:
        for side in Side:
            try:
                texts.append(str(Point(tile, side)))
            except ValueError:
                continue  # a side the tile does not have
    return texts


MOVE_TEXTS = (
    st.sampled_from(["draw", "pass"])
    | st.builds("{} opens".format, TILE_TEXTS)
    | st.builds("{} on {}".format, TILE_TEXTS, st.sampled_from(_point_texts()))
)


def _alike(old: Any) -> st.SearchStrategy[Any]:
    """Values of the same kind as ``old``: what a buggy implementation might write."""
    if isinstance(old, bool) or old is None:
        return st.none() | st.integers(0, 40)
    if isinstance(old, int):
        return st.integers(-3, 40)
    if isinstance(old, str) and old.startswith("[") and len(old) == 5:
        return TILE_TEXTS
    if isinstance(old, str):
        return MOVE_TEXTS
    if isinstance(old, list):
        return st.permutations(old) | st.just(old[1:]) | st.just([*old, *old[:1]])
    return st.just(old)


def _paths(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path to a value inside a JSON document."""
    found = [path]
    if isinstance(value, dict):
        for key, item in value.items():
            found += _paths(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += _paths(item, (*path, index))
    return found


@functools.cache
def _short_text() -> str:
    states = demo_match(3, 10)
    end = next(i for i, s in enumerate(states) if s.round == 3)
    return record_match(states[: end + 3]).to_json()


@given(data=st.data())
def test_any_changed_document_is_refused_or_refereed(data: st.DataObject) -> None:
    """Values replaced by any JSON, or by values alike: InvalidRecord, or a report; nothing else."""
    doc = json.loads(_short_text())
    for _ in range(data.draw(st.integers(1, 3))):
        path = data.draw(st.sampled_from(_paths(doc)[1:]))
        target: Any = doc
        for key in path[:-1]:
            target = target[key]
        old = target[path[-1]]
        target[path[-1]] = data.draw(_alike(old) if data.draw(st.booleans()) else JSON_VALUES)
    try:
        record = MatchRecord.from_json(json.dumps(doc))
    except InvalidRecord:
        return
    assert isinstance(check_record(record), Report)


@given(cut=st.integers(min_value=0, max_value=10_000), junk=st.binary(max_size=8))
def test_any_truncated_text_is_refused(cut: int, junk: bytes) -> None:
    """A record cut anywhere, with anything after the cut, is an InvalidRecord."""
    text = _short_text().encode()
    cut = cut % len(text)
    with pytest.raises(InvalidRecord):
        MatchRecord.from_json(text[:cut] + junk)

"""The engine protocol as the library serves it: :mod:`american_sniff.conformance.protocol`."""

from __future__ import annotations

import io
import json
import random
from pathlib import Path
from typing import Any

import pytest

import generate_vectors as generate
from american_sniff import (
    ALL_TILES,
    REFUSAL_CODES,
    RULES_VERSION,
    IllegalMove,
    new_match,
    parse_move,
)
from american_sniff.conformance.protocol import (
    ERROR_KINDS,
    MAX_LINE_BYTES,
    PROTOCOL,
    PROTOCOL_VERSION,
    Session,
    serve,
)
from scenarios import DRAW_DEAL, PASS_DEAL


def deal_doc(deal: Any) -> dict[str, Any]:
    """A library Deal as the protocol writes it."""
    return {
        "hands": [[str(t) for t in hand] for hand in deal.hands],
        "stock": [str(t) for t in deal.stock],
        "opener": deal.opener,
    }


def ok(session: Session, request: dict[str, Any]) -> dict[str, Any]:
    """The answer to a request that must succeed."""
    answer = session.handle(request)
    assert answer["ok"] is True, answer
    return answer


def refused(session: Session, request: object, kind: str) -> dict[str, Any]:
    """The answer to a request that must fail with ``kind``; its message names the problem."""
    answer = session.handle(request)
    assert answer["ok"] is False, answer
    assert answer["error"] == kind, answer
    assert kind in ERROR_KINDS
    assert answer["message"]
    return answer


def test_hello_names_the_protocol_and_rules_versions() -> None:
    """The hello answer names the protocol, its version, the rules version and the features."""
    answer = ok(Session(), {"cmd": "hello", "protocol_version": 1, "rules_version": RULES_VERSION})
    assert answer["protocol"] == PROTOCOL
    assert answer["protocol_version"] == PROTOCOL_VERSION
    assert answer["rules_version"] == RULES_VERSION
    assert answer["engine"].startswith("american-sniff ")
    assert answer["features"] == ["seed"]


@pytest.mark.parametrize(
    "request_",
    [
        {"cmd": "hello", "protocol_version": 2},
        {"cmd": "hello", "protocol_version": 1, "rules_version": "0"},
    ],
)
def test_hello_refuses_other_versions(request_: dict[str, Any]) -> None:
    """Another protocol or rules version is unsupported."""
    refused(Session(), request_, "unsupported")


def test_a_match_from_a_seed_is_the_librarys_match() -> None:
    """A new match from a seed deals what new_match deals; legal lists its legal moves."""
    session = Session()
    answer = ok(session, {"cmd": "new", "players": 3, "seed": "18446744073709551615"})
    state = new_match(3, seed=2**64 - 1)
    assert answer["opener"] == answer["turn"] == state.turn
    assert answer["hand_sizes"] == [6, 6, 6]
    assert answer["stock_size"] == 10
    assert answer["table"] == {"open_points": [], "contributions": [], "end_sum": 0}
    legal = ok(session, {"cmd": "legal"})["moves"]
    assert legal == [f"{t} opens" for t in state.hands[state.turn]]


def test_moves_answer_with_their_outcome() -> None:
    """A placement gives its end sum and points; a draw its tile; both the next turn."""
    session = Session()
    ok(session, {"cmd": "new", "players": 2, "deals": [deal_doc(DRAW_DEAL)]})
    opened = ok(session, {"cmd": "move", "move": "[0|0] opens"})
    assert opened == {
        "ok": True,
        "seat": 0,
        "move": "[0|0] opens",
        "tile": None,
        "end_sum": 0,
        "points": 0,
        "scores": [0, 0],
        "round_end": None,
        "winner": None,
        "turn": 1,
        "round": 1,
    }
    drew = ok(session, {"cmd": "move", "move": "draw"})
    assert (drew["tile"], drew["end_sum"], drew["points"], drew["turn"]) == ("[5|5]", None, None, 1)
    state = ok(session, {"cmd": "state"})
    assert state["hand_sizes"] == [6, 8]
    assert state["stock_size"] == 13


def test_a_round_end_reports_the_settlement() -> None:
    """The move that ends a round reports how, the hands, the deductions and the scores."""
    session = Session()
    deals = [deal_doc(PASS_DEAL)] * 2
    ok(session, {"cmd": "new", "players": 2, "deals": deals, "scores": [20, 30], "round": 5})
    answer: dict[str, Any] = {}
    while not answer.get("round_end"):
        moves = ok(session, {"cmd": "legal"})["moves"]
        answer = ok(session, {"cmd": "move", "move": moves[0]})
    end = answer["round_end"]
    assert end["round"] == 5
    assert end["end"] == "domino"
    finisher = end["finisher"]
    assert end["hands"][finisher] == []
    assert end["deductions"][finisher] == 0
    assert answer["scores"] == end["scores"]
    assert answer["round"] == 6
    assert answer["turn"] == finisher  # the finisher opens the next round
    assert ok(session, {"cmd": "state"})["opener"] == finisher


def test_a_match_without_a_seed_stops_at_its_last_deal() -> None:
    """After the round of the last deal, legal, move and state answer no_deal."""
    session = Session()
    ok(session, {"cmd": "new", "players": 2, "deals": [deal_doc(PASS_DEAL)]})
    ok(session, {"cmd": "move", "move": "[0|0] opens"})
    for _ in range(14):
        ok(session, {"cmd": "move", "move": "draw"})
    ok(session, {"cmd": "move", "move": "pass"})
    answer: dict[str, Any] = {}
    while not answer.get("round_end"):
        moves = ok(session, {"cmd": "legal"})["moves"]
        answer = ok(session, {"cmd": "move", "move": moves[0]})
    assert answer["turn"] is None
    for cmd in ("legal", "state"):
        refused(session, {"cmd": cmd}, "no_deal")
    refused(session, {"cmd": "move", "move": "draw"}, "no_deal")


def test_winning_ends_the_match() -> None:
    """The winning placement names the winner; turn is null; every later move is refused."""
    session = Session()
    deal = deal_doc(DRAW_DEAL)
    ok(session, {"cmd": "new", "players": 2, "deals": [deal], "scores": [245, 0]})
    won = ok(session, {"cmd": "move", "move": "[0|5] opens"})
    assert (won["points"], won["scores"], won["winner"], won["turn"]) == (5, [250, 0], 0, None)
    assert won["round_end"] is None
    state = ok(session, {"cmd": "state"})
    assert (state["winner"], state["turn"]) == (0, None)
    assert ok(session, {"cmd": "legal"})["moves"] == []
    answer = refused(session, {"cmd": "move", "move": "garbage"}, "illegal_move")
    assert answer["code"] == "match_over"


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("[1|2] on [1|1] low", "not_a_point"),
        ("[1|2] on [1|4] line_b", "not_a_point"),
        ("[1|2] on [1|4]", "not_a_point"),
        ("[1|2] on [9|4] low", "not_a_point"),
        ("[2|1] opens", "not_a_tile"),
        ("[1|2 ] opens", "not_a_tile"),
        ("[1|2] on", "not_a_move"),
        ("Draw", "not_a_move"),
        ("", "not_a_move"),
    ],
)
def test_read_move_names_what_the_text_is_not(text: str, code: str) -> None:
    """Text that is no move, no tile or no point is refused with the matching code."""
    with pytest.raises(IllegalMove) as error:
        parse_move(text, strict=True)
    assert error.value.code == code
    assert code in REFUSAL_CODES


def test_read_move_reads_every_form() -> None:
    """Each form reads back to the move whose str() it is."""
    for text in ("draw", "pass", "[1|4] opens", "[1|2] on [1|1] branch_b", "[0|6] on [0|6] high"):
        assert str(parse_move(text, strict=True)) == text


def test_table_places_tiles_on_a_bare_table() -> None:
    """A table request reports the points, contributions, end sum and points scored."""
    session = Session()
    answer = ok(session, {"cmd": "table", "moves": ["[3|6] opens", "[6|6] on [3|6] high"]})
    assert answer == {
        "ok": True,
        "open_points": ["[3|6] low", "[6|6] line_b"],
        "contributions": [
            {"point": "[3|6] low", "value": 3},
            {"point": "[6|6] line_b", "value": 12},
        ],
        "end_sum": 15,
        "points": 15,
    }
    assert ok(session, {"cmd": "table", "moves": []})["points"] == 0


def test_table_refusals_name_the_index() -> None:
    """An illegal placement of a table request gives its code and its index."""
    session = Session()
    moves = ["[1|4] opens", "[1|1] on [1|4] low", "[1|1] on [1|4] high"]
    answer = refused(session, {"cmd": "table", "moves": moves}, "illegal_move")
    assert (answer["code"], answer["index"]) == ("already_on_table", 2)
    refused(session, {"cmd": "table", "moves": ["[1|4] opens", "draw"]}, "bad_request")


def test_settle_deducts_each_hand_rounded() -> None:
    """Settling rounds every hand on its own; a finisher must hold nothing and gains nothing."""
    session = Session()
    hands = [["[1|2]"], ["[0|1]"], ["[0|3]"], []]
    answer = ok(session, {"cmd": "settle", "players": 4, "hands": hands, "finisher": 3})
    assert answer == {
        "ok": True,
        "deductions": [5, 0, 5, 0],
        "side_totals": [10, 0],
        "scores": [-10, 0],
    }
    for bad in (
        {"players": 4, "hands": hands, "finisher": 0},
        {"players": 4, "hands": hands, "finisher": 7},
        {"players": 5, "hands": hands},
        {"players": 2, "hands": hands},
        {"players": 2, "hands": [["[1|2]"], ["[1|2]"]]},
        {"players": 2, "hands": [["[2|1]"], []]},
        {"players": 2, "hands": [[], []], "scores": [0]},
    ):
        refused(session, {"cmd": "settle", **bad}, "bad_request")


@pytest.mark.parametrize(
    ("request_", "kind", "words"),
    [
        ({"players": 5, "seed": "1"}, "invalid_deal", "players must be 2, 3 or 4"),
        ({"players": 2}, "invalid_deal", "deals, a seed, or both"),
        ({"players": 2, "seed": "-1"}, "invalid_deal", "decimal string"),
        ({"players": 2, "seed": "18446744073709551616"}, "invalid_deal", "2**64 - 1"),
        ({"players": 2, "seed": 7}, "bad_request", "$.seed"),
        ({"players": 2, "seed": "1", "scores": [0]}, "invalid_deal", "one integer per side"),
        ({"players": 2, "seed": "1", "scores": [250, 0]}, "invalid_deal", "reach the target"),
        ({"players": 2, "seed": "1", "round": 0}, "invalid_deal", "round must be from 1 to"),
        ({"players": 2, "seed": "1", "round": 1_000_001}, "invalid_deal", "round must be from 1"),
        ({"players": 2, "seed": "1", "scores": [-1_000_005, 0]}, "invalid_deal", "lowest"),
        ({"players": 2, "seed": "1", "colour": "red"}, "bad_request", "colour"),
        ({"players": 3, "deals": ["nope"]}, "bad_request", "$.deals[0]"),
    ],
)
def test_new_refuses_what_cannot_start(request_: dict[str, Any], kind: str, words: str) -> None:
    """A match that cannot start as asked is refused, naming the problem."""
    answer = refused(Session(), {"cmd": "new", **request_}, kind)
    assert words in answer["message"]


def test_new_checks_the_deals() -> None:
    """Deals must be dealt right, for the players, with an opener unless a seed is given."""
    good = deal_doc(DRAW_DEAL)
    session = Session()
    no_opener = {**good, "opener": None}
    answer = refused(session, {"cmd": "new", "players": 2, "deals": [no_opener]}, "invalid_deal")
    assert "no seed" in answer["message"]
    ok(session, {"cmd": "new", "players": 2, "deals": [no_opener], "seed": "3"})
    short = {**good, "stock": good["stock"][1:]}
    answer = refused(session, {"cmd": "new", "players": 2, "deals": [short]}, "invalid_deal")
    assert "lacks" in answer["message"]
    bad_tile = {**good, "stock": ["[7|7]", *good["stock"][1:]]}
    answer = refused(session, {"cmd": "new", "players": 2, "deals": [bad_tile]}, "invalid_deal")
    assert "$.deals[0].stock[0]" in answer["message"]
    answer = refused(session, {"cmd": "new", "players": 3, "deals": [good]}, "invalid_deal")
    assert "with 2 players" in answer["message"] or "not 3" in answer["message"]


def test_requests_before_a_match_and_unknown_commands() -> None:
    """legal, move and state need a match; an unknown cmd or a non-object is refused."""
    session = Session()
    for cmd in ("legal", "state"):
        refused(session, {"cmd": cmd}, "no_match")
    refused(session, {"cmd": "move", "move": "draw"}, "no_match")
    refused(session, {"cmd": "jump"}, "bad_request")
    refused(session, {"move": "draw"}, "bad_request")
    refused(session, {"cmd": "legal", "extra": 1}, "bad_request")
    refused(session, ["cmd", "legal"], "bad_json")


def test_an_unexpected_failure_is_an_internal_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """Should the library fail, the session still answers, with an internal error."""
    session = Session()
    ok(session, {"cmd": "new", "players": 2, "seed": "1"})

    def broken(*_: object) -> None:
        raise RuntimeError("out of cheese")

    monkeypatch.setattr("american_sniff.conformance.protocol.legal_moves", broken)
    answer = refused(session, {"cmd": "legal"}, "internal")
    assert answer["message"] == "RuntimeError: out of cheese"


def run(lines: list[bytes]) -> list[dict[str, Any]]:
    """Serve ``lines`` and return the answers."""
    out = io.BytesIO()
    assert serve(io.BytesIO(b"".join(lines)), out) == 0
    return [json.loads(line) for line in out.getvalue().splitlines()]


def test_serve_answers_every_line_and_stops_at_quit() -> None:
    """One answer per line, malformed lines included; nothing is read after quit."""
    answers = run(
        [
            b'{"cmd": "table", "moves": ["[2|2] opens"]}\n',
            b"not json\n",
            b"\n",
            b"\xff\xfe\n",
            b'{"cmd": "table", "moves": ["[2|2] opens"], "cmd": "legal"}\n',
            b'{"cmd": "settle", "players": 2, "hands": [[], []], "scores": [1.5, 0]}\n',
            b'{"cmd": "quit"}\n',
            b'{"cmd": "legal"}\n',
        ]
    )
    assert [a["ok"] for a in answers] == [True, False, False, False, False, False, True]
    assert answers[0]["end_sum"] == 4
    assert [a.get("error") for a in answers[1:6]] == ["bad_json"] * 5
    assert "empty" in answers[2]["message"]
    assert "UTF-8" in answers[3]["message"]
    assert "twice" in answers[4]["message"]
    assert "integer" in answers[5]["message"]


def test_serve_skips_an_over_long_line() -> None:
    """A line over the limit is answered with bad_json and the next line is read normally."""
    answers = run([b"x" * (MAX_LINE_BYTES + 10) + b"\n", b'{"cmd": "quit"}\n'])
    assert answers[0]["error"] == "bad_json"
    assert "longer than" in answers[0]["message"]
    assert answers[1] == {"ok": True}


def padded(total: int) -> bytes:
    """A valid table request of exactly ``total`` bytes (padded with JSON blanks)."""
    base = b'{"cmd": "table", "moves": []}'
    return base[:-1] + b" " * (total - len(base)) + b"}"


def test_the_line_limit_counts_the_newline() -> None:
    """A line of MAX_LINE_BYTES bytes with its newline is read; one byte more is bad_json."""
    answers = run(
        [
            padded(MAX_LINE_BYTES - 1) + b"\n",
            padded(MAX_LINE_BYTES) + b"\n",
            padded(MAX_LINE_BYTES - 2) + b"\r\n",
            padded(MAX_LINE_BYTES - 1) + b"\r\n",
            b'{"cmd": "quit"}\n',
        ]
    )
    assert [a.get("error") for a in answers] == [None, "bad_json", None, "bad_json", None]
    # The last line, with no newline, may hold every byte of the limit.
    assert run([padded(MAX_LINE_BYTES)])[0]["ok"]
    assert run([padded(MAX_LINE_BYTES + 1)])[0]["error"] == "bad_json"


def test_serve_ends_at_the_end_of_the_input() -> None:
    """Without quit, serving ends when the input does (the last line may lack its newline)."""
    answers = run([b'{"cmd": "new", "players": 2, "seed": "5"}\n{"cmd": "legal"}'])
    assert len(answers) == 2
    assert answers[1]["ok"]


def grammar_cases() -> list[tuple[str, str]]:
    """The move-text cases docs/protocol.md lists: (text, code or "move")."""
    page = (Path(__file__).parents[1] / "docs" / "protocol.md").read_text(encoding="utf-8")
    section = page.split("### The move text", 1)[1].split("### The order of the codes", 1)[0]
    block = section.split("```text\n", 1)[1].split("```", 1)[0]
    cases = []
    for line in block.splitlines():
        text, _, code = line.rpartition(" ")
        cases.append((json.loads(text.strip()), code))
    return cases


def test_the_parser_reads_the_grammars_cases_as_the_docs_say() -> None:
    """Each case of the grammar in the docs: read as a move, or refused with its code."""
    cases = grammar_cases()
    assert len(cases) >= 25
    for text, code in cases:
        if code == "move":
            assert str(parse_move(text, strict=True)) == text
        else:
            with pytest.raises(IllegalMove) as refused:
                parse_move(text, strict=True)
            assert refused.value.code == code, text


def test_the_grammar_vector_sends_the_docs_cases() -> None:
    """The refused cases of the docs are exactly the texts of refusals/move-texts."""
    refused = [(text, code) for text, code in grammar_cases() if code != "move"]
    assert refused == list(generate.MOVE_TEXTS)
    assert {code for _, code in refused} == {"not_a_move", "not_a_tile", "not_a_point"}


@pytest.mark.parametrize("seed", range(40))
def test_every_text_the_grammar_makes_is_read(seed: int) -> None:
    """Texts built from the EBNF's productions read as the moves they spell."""
    rng = random.Random(seed)
    tile = rng.choice(ALL_TILES)
    text = rng.choice(["draw", "pass", f"{tile} opens"])
    if rng.random() < 0.5:
        at = rng.choice(ALL_TILES)
        sides = (
            ("line_a", "line_b", "branch_a", "branch_b") if at.low == at.high else ("low", "high")
        )
        text = f"{tile} on {at} {rng.choice(sides)}"
    assert str(parse_move(text, strict=True)) == text


@pytest.mark.parametrize(
    ("request_", "says"),
    [
        ({}, "the request has no cmd"),
        ({"cmd": None}, "cmd must be a string, got null"),
        ({"cmd": 3}, "cmd must be a string, got int"),
        ({"cmd": "jump"}, 'unknown cmd "jump"'),
    ],
)
def test_a_bad_cmd_is_named_without_python_reprs(request_: dict[str, Any], says: str) -> None:
    """The message says what is wrong with cmd in JSON's words (null, not None)."""
    answer = refused(Session(), request_, "bad_request")
    assert answer["message"].startswith(says), answer
    assert "None" not in answer["message"]

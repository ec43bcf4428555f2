"""The browser game's matches without a server: the store, the log, the bots, the setup."""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from american_sniff import Action, MatchState, Place, legal_moves, new_match, view_for
from american_sniff.web.game import (
    Game,
    GameError,
    NotABrowserMatch,
    Setup,
    bot_seed,
    new_setup,
)
from american_sniff.web.hosting import SPECTATOR, viewer_document
from american_sniff.web.store import LogEntry, MatchBook, Store, Writer


def _load(store: MatchBook, match_id: str) -> Game | None:
    """The stored match ``match_id``, resumed, or None if there is none."""
    stored = store.load(match_id)
    return None if stored is None else Game(stored, store)


def _go_on(game: Game, seat: int) -> None:
    """``seat`` goes on from the last settlement, as the server does (nothing if it went on)."""
    change = game.plan_go_on(seat)
    if change is not None:
        game.commit(change)


def _to_a_placement_of_seat_0(game: Game) -> None:
    """Play the bot, and seat 0's forced draws and passes, until seat 0 may place."""
    while True:
        state = game.state
        if state.turn != 0:
            game.commit(game.plan_play(game.bot_move()))
            continue
        moves = view_for(state, 0).legal_moves
        if any(isinstance(m, Place) for m in moves):
            return
        game.commit(game.plan_play(moves[0]))


Stores = Callable[[str | Path], Store]


@pytest.fixture
def stores() -> Iterator[Stores]:
    """Opens stores that are closed after the test (Python 3.13 warns of an unclosed one)."""
    opened: list[Store] = []

    def open_store(path: str | Path) -> Store:
        opened.append(Store(path))
        return opened[-1]

    yield open_store
    for store in opened:
        store.close()


def test_the_log_is_append_only_and_replays(tmp_path: Path, stores: Stores) -> None:
    """Moves, an undo and a continue are log entries; loading replays them to the same states."""
    store = stores(tmp_path / "m.sqlite3")
    game = Game.create(store, new_setup(2, ["human", "greedy"], seed=8))
    _to_a_placement_of_seat_0(game)
    move = next(m for m in view_for(game.state, 0).legal_moves if isinstance(m, Place))
    game.commit(game.plan_move(0, str(move), game.seq))
    point = game.undo_point(0)
    assert point == game.seq - 1
    game.commit(game.plan_undo(0))
    stored = store.load(game.id)
    assert stored is not None
    kinds = [entry.kind for entry in stored.log]
    assert kinds[-1] == "undo"
    assert kinds.count("move") == point + 1
    again = _load(store, game.id)
    assert again is not None
    assert again.states == game.states
    with pytest.raises(ValueError, match="one of move"):
        store.append(game.id, LogEntry("erase", "0"))
    with pytest.raises(ValueError, match="no match"):
        store.append("nope", LogEntry("move", "draw"))
    assert _load(store, "nope") is None


def test_bots_choose_the_same_after_a_restart(stores: Stores) -> None:
    """A bot's choice depends only on the seed, the seat and the action count."""
    assert bot_seed(1, 0, 0) != bot_seed(1, 1, 0)
    store = stores(":memory:")
    setup = new_setup(2, ["human", "search"], seed=6)
    one, two = Game.create(store, setup), Game.create(store, setup)
    while one.state.turn != 1:
        move = view_for(one.state, 0).legal_moves[0]
        one.commit(one.plan_play(move))
        two.commit(two.plan_play(move))
    assert one.bot_move() == two.bot_move()


def test_new_setup_refuses_a_bool_and_reads_seeds() -> None:
    """Seeds may be text (decimal or 0x); True is not a player count."""
    assert new_setup(2, ["human", "greedy"], seed="0x10").seed == 16
    with pytest.raises(GameError, match="2, 3 or 4"):
        new_setup(True, ["human"])


def test_viewer_documents_are_the_library_views() -> None:
    """A seat gets its view document, a spectator the spectator's; nothing else is a viewer."""
    state = new_match(3, seed=2)
    assert viewer_document(state, 1) == json.loads(view_for(state, 1).to_json())
    assert viewer_document(state, SPECTATOR) == json.loads(view_for(state, None).to_json())
    assert viewer_document(state, SPECTATOR)["hand"] is None
    with pytest.raises(ValueError, match="seat number"):
        viewer_document(state, True)


def test_tokens_name_their_seat_and_nothing_else(stores: Stores) -> None:
    """Each human seat's token is its own; the spectator's is the spectator's; others none."""
    store = stores(":memory:")
    game = Game.create(store, new_setup(3, ["human", "greedy", "human"], seed=1))
    tokens = [s.token for s in game.setup.seats]
    assert tokens[1] is None
    assert [game.viewer(t) for t in tokens if t] == [0, 2]
    assert game.viewer(game.setup.spectator) == SPECTATOR
    assert game.viewer("") is None
    assert game.viewer("x" * 22) is None
    with pytest.raises(GameError, match="only a seat"):
        game.commit(game.plan_move(SPECTATOR, "draw", 0))
    store.close()


def test_the_store_keeps_a_key_and_lists_matches(tmp_path: Path, stores: Stores) -> None:
    """The operator's key is made once and kept; matches are listed newest first."""
    store = stores(tmp_path / "k.sqlite3")
    key = store.meta("key", "first")
    assert store.meta("key", "second") == key == "first"
    one = Game.create(store, new_setup(2, ["human", "greedy"], seed=1))
    with pytest.raises(ValueError, match="exists"):
        store.create(one.id, 0.0, one.setup.to_dict())
    assert store.ids() == [one.id]
    store.close()


@pytest.mark.parametrize(
    ("players", "kinds", "seed", "words"),
    [
        (5, ["human"] * 5, 1, "2, 3 or 4 players"),
        (2, "human,greedy", 1, "each of the 2 seats"),
        (2, ["human", "sage"], 1, "not 'sage'"),
        (2, ["greedy", "greedy"], 1, "played by a person"),
        (2, ["human", "greedy"], 2**64, "2**64 - 1"),
        (2, ["human", "greedy"], "seven", "2**64 - 1"),
    ],
)
def test_a_wrong_setup_says_what_is_wrong(
    players: object, kinds: object, seed: object, words: str
) -> None:
    """Each wrong setup is a GameError whose message names the problem."""
    with pytest.raises(GameError, match=re.escape(words)):
        new_setup(players, kinds, seed)


@pytest.mark.parametrize(
    ("stored", "words"),
    [
        ({}, "its setup lacks 'players', 'seed', 'seats' and 'spectator'"),
        ({"names": ["Ann", "Bob"], "players": 2, "seed": "1"}, "lacks 'seats' and 'spectator'"),
        ({"players": 2, "seed": "1", "seats": [3, 4], "spectator": "s"}, "does not read as"),
    ],
)
def test_a_setup_the_browser_game_did_not_write_is_refused_in_words(
    stored: dict[str, object], words: str
) -> None:
    """A stored setup the game did not write (a host's own match) says so, not a bare KeyError."""
    with pytest.raises(NotABrowserMatch, match="not made by the browser game") as refused:
        Setup.from_dict(stored)
    assert words in str(refused.value)


def test_a_match_of_one_person_and_a_bot_from_start_to_end(stores: Stores) -> None:
    """Moves, refusals, hints, forced moves, the settlement wait and the record; no server."""
    store = stores(":memory:")
    game = Game.create(store, new_setup(2, ["human", "greedy"], seed=4))
    assert new_setup(2, ["human", "greedy"]).seed >= 0  # a random seed when none is given
    with pytest.raises(GameError, match="turn"):
        game.commit(game.plan_move(1 - game.state.turn, "draw", 0))
    waited = False
    while game.state.winner is None:
        state = game.state
        if game.waiting_for():
            assert game.waiting_for() == [0]
            assert not game.bot_to_move()
            waited = True
            _go_on(game, 0)
            _go_on(game, 0)  # twice is once
            continue
        if state.turn == 1:
            assert game.bot_to_move()
            with pytest.raises(GameError, match="turn"):
                game.hint(0)
            game.commit(game.plan_play(game.bot_move()))
            continue
        forced = game.forced()
        if forced is not None:
            game.commit(game.plan_play(forced))
            continue
        hint = game.hint(0)
        assert hint in view_for(state, 0).legal_moves
        with pytest.raises(GameError, match="changed"):
            game.commit(game.plan_move(0, str(hint), game.seq + 1))
        with pytest.raises(GameError, match="notation"):
            game.commit(game.plan_move(0, None, game.seq))
        with pytest.raises(GameError, match="refused"):
            game.commit(game.plan_move(0, "[6|6] on [0|0] branch_a", game.seq))
        game.commit(game.plan_move(0, str(hint), game.seq))
    assert waited
    assert game.forced() is None
    assert game.undo_point(0) is None  # the match is over
    with pytest.raises(GameError, match="undo"):
        game.commit(game.plan_undo(0))
    with pytest.raises(GameError, match="over"):
        game.commit(game.plan_move(0, "draw", game.seq))
    record = game.record()
    assert record.winner == game.state.winner
    assert record.names[0] == "seat 0 (person)"
    resumed = _load(store, game.id)
    assert resumed is not None
    assert resumed.states == game.states
    assert resumed.waiting_for() == game.waiting_for() == []


def test_the_seat_that_goes_out_waits_to_see_that_rounds_settlement(stores: Stores) -> None:
    """A person's own move that ends a round leaves them waiting on its settlement.

    ``Game.move`` used to mark the seat as gone on after the move had dealt the
    next round, so the one who went out never saw how the round was settled.
    """
    game = Game.create(stores(":memory:"), new_setup(2, ["human", "greedy"], seed=4))
    ended_by_me = 0
    while game.state.winner is None and ended_by_me < 2:
        if game.waiting_for():
            _go_on(game, 0)
            continue
        state = game.state
        if state.turn == 1:
            game.commit(game.plan_play(game.bot_move()))
            continue
        forced = game.forced()
        if forced is not None:
            game.commit(game.plan_play(forced))
            continue
        game.commit(game.plan_move(0, str(game.hint(0)), game.seq))
        if game.state.round != state.round and game.state.winner is None:
            ended_by_me += 1
            assert game.waiting_for() == [0]
            assert not game.bot_to_move()
    assert ended_by_me


@pytest.mark.parametrize(
    ("names", "words"),
    [
        ("Ana", "one name per seat"),
        (["Ana"], "one name per seat"),
        (["Ana", 7], "a name is text"),
        (["A" * 25, ""], "at most 24 printable"),
        (["Ana\x1b[2J", ""], "at most 24 printable"),
        (["Ana", "Bo"], "a bot's seat takes no name"),
    ],
)
def test_a_wrong_name_says_what_is_wrong(names: object, words: str) -> None:
    """Names: one per seat, short printable text, none for a bot."""
    with pytest.raises(GameError, match=re.escape(words)):
        new_setup(2, ["human", "greedy"], 1, names)


def test_names_are_trimmed_and_survive_a_reload(stores: Stores) -> None:
    """A seat's name is kept with the setup, trimmed; a setup stored without names has ''."""
    store = stores(":memory:")
    setup = new_setup(3, ["human", "greedy", "human"], 1, ["  Ana  Maria ", "", "Bo"])
    assert [s.name for s in setup.seats] == ["Ana Maria", "", "Bo"]
    game = Game.create(store, setup)
    again = _load(store, game.id)
    assert again is not None
    assert [s.name for s in again.setup.seats] == ["Ana Maria", "", "Bo"]
    old = setup.to_dict()
    for seat in old["seats"]:
        del seat["name"]  # a match stored before names
    assert [s.name for s in Setup.from_dict(old).seats] == ["", "", ""]


def test_a_change_is_made_only_at_the_state_it_was_planned_for(stores: Stores) -> None:
    """A planned change changes nothing until taken, and a stale one is refused."""
    store = stores(":memory:")
    game = Game.create(store, new_setup(2, ["human", "human"]))
    state = game.state
    first = game.plan_play(view_for(state, state.turn).legal_moves[0])
    second = game.plan_play(view_for(state, state.turn).legal_moves[-1])
    assert game.seq == 0
    assert store.load(game.id).log == ()  # type: ignore[union-attr]
    game.commit(first)
    assert game.seq == 1
    with pytest.raises(ValueError, match="another state"):
        game.take(second)
    assert game.seq == 1


def test_a_file_database_is_in_wal_mode(tmp_path: Path, stores: Stores) -> None:
    """The database file keeps a write-ahead log: a commit is one write, reads go on meanwhile."""
    store = stores(tmp_path / "m.sqlite3")
    assert store._db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_the_writer_commits_what_waits_in_one_transaction(tmp_path: Path, stores: Stores) -> None:
    """Entries queued together share commits; a bad one refuses itself only; order is kept."""
    store = stores(tmp_path / "m.sqlite3")
    ids = [f"m{n}" for n in range(20)]
    for match_id in ids:
        store.create(match_id, 0.0, {"players": 2})
    commits: list[str] = []
    store._db.set_trace_callback(lambda sql: commits.append(sql) if sql == "COMMIT" else None)
    with store._lock:  # hold the writer until everything is queued
        writer = Writer(store)
        futures = [writer.submit(m, LogEntry("move", f"draw {n}")) for n in range(3) for m in ids]
        bad = writer.submit("nosuchmatch", LogEntry("move", "draw"))
        late = writer.submit(ids[0], LogEntry("continue", "0 2"))
    writer.close()
    assert [f.result() for f in futures] == [n for n in range(3) for _ in ids]
    with pytest.raises(ValueError, match="no match"):
        bad.result()
    assert late.result() == 3
    # One transaction failed (the bad entry), so each was written alone: still in order.
    stored = store.load(ids[0])
    assert stored is not None
    assert [e.value for e in stored.log] == ["draw 0", "draw 1", "draw 2", "0 2"]
    store._db.set_trace_callback(None)
    commits.clear()
    store._db.set_trace_callback(lambda sql: commits.append(sql) if sql == "COMMIT" else None)
    with store._lock:
        writer = Writer(store)
        futures = [writer.submit(m, LogEntry("move", "pass")) for m in ids]
    writer.close()
    assert all(f.result() == 4 for f in futures[:1])
    assert len(commits) < len(ids)  # shared commits
    store._db.set_trace_callback(None)


def test_the_writer_reports_a_failed_write_to_each_entry(tmp_path: Path, stores: Stores) -> None:
    """A database that refuses writes fails every waiting entry with the database's error."""
    store = stores(tmp_path / "m.sqlite3")
    store.create("m", 0.0, {"players": 2})
    store._db.execute("PRAGMA query_only = ON")
    writer = Writer(store)
    futures = [writer.submit("m", LogEntry("move", "pass")) for _ in range(3)]
    writer.close()
    for future in futures:
        with pytest.raises(sqlite3.Error, match="readonly"):
            future.result()


@pytest.mark.sweep
def test_who_went_on_survives_a_restart(stores: Stores) -> None:
    """After a restart, nobody is asked again to go on from a settlement they went on from.

    The seat that ends a round goes on, and a seat that opens a round with a
    placement has read its settlement: a server restarted on the same
    database (a game loaded from the store) knows both. A move used to mark
    its seat in memory only, so after an undo to the round's start a restart
    asked again.
    """
    store = stores(":memory:")
    game = Game.create(store, new_setup(2, ["human", "greedy"], seed=4))
    ended = opened = 0
    while game.state.winner is None:
        resumed = _load(store, game.id)
        assert resumed is not None
        assert resumed.waiting_for() == game.waiting_for(), game.seq
        state = game.state
        if game.waiting_for():
            moves = view_for(state, 0).legal_moves
            place = next((m for m in moves if isinstance(m, Place)), None)
            if state.turn == 0 and place is not None and not opened:
                # Open the round without going on first, then take it back.
                game.commit(game.plan_move(0, str(place), game.seq))
                game.commit(game.plan_undo(0))
                assert game.state == state
                assert game.waiting_for() == []
                opened += 1
            else:
                _go_on(game, 0)
            continue
        if state.turn == 1:
            game.commit(game.plan_play(game.bot_move()))
            continue
        forced = game.forced()
        if forced is not None:
            game.commit(game.plan_play(forced))
            continue
        game.commit(game.plan_move(0, str(game.hint(0)), game.seq))
        if game.state.round != state.round and game.state.winner is None:
            ended += 1
            assert game.waiting_for() == [0]
            _go_on(game, 0)
            again = _load(store, game.id)
            assert again is not None
            assert again.waiting_for() == []  # not asked again
    assert ended
    assert opened


def test_between_people_who_went_on_survives_a_restart(tmp_path: Path, stores: Stores) -> None:
    """Between two people, the one who went on is not asked again after a restart; the other is."""
    path = tmp_path / "m.sqlite3"
    store = stores(path)
    game = Game.create(store, new_setup(2, ["human", "human"], seed=5))
    while game.state.round == 1:
        state = game.state
        forced = game.forced()
        if forced is not None:
            game.commit(game.plan_play(forced))
            continue
        move = next(m for m in view_for(state, state.turn).legal_moves if isinstance(m, Place))
        game.commit(game.plan_move(state.turn, str(move), game.seq))
    assert game.waiting_for() == [0, 1]
    _go_on(game, 0)
    restarted = _load(stores(path), game.id)
    assert restarted is not None
    assert restarted.waiting_for() == [1]
    assert restarted.states == game.states


def test_who_is_waiting_is_told_without_building_the_rounds_history(stores: Stores) -> None:
    """``waiting_for`` tells whether the round has begun without reading ``state.history``.

    (Reading it builds the tuple of the round's actions, and a server asks for
    every viewer of every change.) Its answers are those read from the history.
    """
    game = Game.create(stores(":memory:"), new_setup(3, ["human", "human", "greedy"], seed=9))
    answers = []
    went_on: set[tuple[int, int]] = set()  # every move is made as a bot's: none marks a seat
    while game.state.winner is None and game.state.round < 4:
        state = game.state
        begun = bool(state.history)
        expected = [
            seat
            for seat in (0, 1)
            if not (state.round == 1 or begun or (seat, state.round) in went_on)
        ]
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(MatchState, "history", property(_not_read))
            waiting = game.waiting_for()
        assert waiting == expected
        answers.append(waiting)
        if waiting:
            _go_on(game, waiting[0])
            went_on.add((waiting[0], state.round))
            continue
        forced = game.forced()
        game.commit(game.plan_play(forced if forced is not None else legal_moves(state)[0]))
    assert [0, 1] in answers
    assert [1] in answers
    assert [] in answers


def _not_read(state: MatchState) -> tuple[Action, ...]:
    raise AssertionError("the round's history was built")


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=20,
)


@given(
    st.fixed_dictionaries(
        {},
        optional={
            "players": _JSON | st.integers(2, 4),
            "seed": _JSON,
            "seats": _JSON
            | st.lists(
                st.dictionaries(st.sampled_from(["kind", "token", "name"]), _JSON), max_size=4
            ),
            "spectator": _JSON,
        },
    )
)
def test_any_stored_setup_is_read_or_refused_in_words(data: dict[str, object]) -> None:
    """Whatever JSON a stored match's setup holds: a Setup, or NotABrowserMatch, nothing else."""
    refusal = ""
    try:
        setup = Setup.from_dict(data)
    except NotABrowserMatch as error:
        refusal = str(error)
    if refusal:
        assert refusal.startswith("the match was not made by the browser game")
        assert len(refusal) < 400
    else:
        assert Setup.from_dict(setup.to_dict()) == setup


def test_a_setup_of_a_mebibyte_is_refused_at_once() -> None:
    """A 1 MiB stored setup (a long list of seats of an unknown kind) is refused, quickly read."""
    seats = [{"kind": "x" * 16, "token": "t"}] * (2**20 // 32)
    with pytest.raises(NotABrowserMatch, match="no seat kind") as refused:
        Setup.from_dict({"players": 2, "seed": 1, "seats": seats, "spectator": "s"})
    assert len(str(refused.value)) < 400

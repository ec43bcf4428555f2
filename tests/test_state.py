"""Match states as values: copying, pickling, evolving, and deals given by hand."""

from __future__ import annotations

import copy
import itertools
import pickle
from typing import Any

import attrs
import pytest

from american_sniff import (
    ALL_TILES,
    Deal,
    InvalidDeal,
    Layout,
    MatchState,
    Point,
    Side,
    Tile,
    apply,
    legal_moves,
    new_match,
)
from scenarios import first_move_match, random_play


def _played(players: int, seed: int) -> tuple[MatchState, ...]:
    """The states of a seeded match of first legal moves, played afresh in this test.

    Not the cached ``first_move_match``: mutmut runs each mutant in a process
    forked from one that ran the tests unmutated, where that cache already
    holds the states the unmutated engine played.
    """
    played: tuple[MatchState, ...] = first_move_match.__wrapped__(players, seed)
    return played


def test_copies_and_unpickled_tiles_and_points_are_the_interned_ones() -> None:
    """Copying or unpickling a tile or point gives back the very same object."""
    tile = ALL_TILES[9]
    point = Layout.empty().place(Tile(1, 4)).points()[1]
    assert point == Point(Tile(1, 4), Side.HIGH)
    assert pickle.loads(pickle.dumps(tile)) is tile
    assert copy.deepcopy(tile) is tile
    assert pickle.loads(pickle.dumps(point)) is point
    assert copy.deepcopy(point) is point
    assert pickle.loads(pickle.dumps(Point(Tile(4, 1), Side.HIGH))) is point


def test_an_unpickled_layout_closes_the_points_it_joins() -> None:
    """A pickled table goes on exactly like the original."""
    table = pickle.loads(pickle.dumps(Layout.empty().place(Tile(1, 4))))
    table = table.place(Tile(4, 4), Point(Tile(1, 4), Side.HIGH))
    assert [str(p) for p in table.points()] == ["[1|4] low", "[4|4] line_b"]
    assert table.end_sum == 9


@pytest.mark.parametrize("players", [2, 3, 4])
def test_pickled_and_deep_copied_states_play_on_identically(players: int) -> None:
    """A state survives pickle and deepcopy, legal-move cache included, and plays on equally."""
    for state in random_play(new_match(players, seed=players), 120, seed=5):
        legal = legal_moves(state)
        if not legal:
            continue
        pickled = pickle.loads(pickle.dumps(state))
        copied = copy.deepcopy(state)
        assert pickled == state
        assert copied == state
        for position, move in enumerate(legal):
            expected = apply(state, move)
            assert apply(pickled, legal_moves(pickled)[position]) == expected
            assert apply(copied, move) == expected


def test_evolve_does_not_carry_the_legal_move_cache() -> None:
    """A state made with attrs.evolve computes its own legal moves."""
    state = new_match(2, seed=1)
    legal_moves(state)
    other = state.evolve(turn=1 - state.turn)
    assert all(move.tile in other.hands[other.turn] for move in legal_moves(other))  # type: ignore[union-attr]


def test_a_stock_without_an_order_is_refused() -> None:
    """The stock is drawn in the order given, so a set is not a stock."""
    with pytest.raises(InvalidDeal, match="sequence"):
        Deal([ALL_TILES[:7], ALL_TILES[7:14]], set(ALL_TILES[14:]))


def test_deals_of_equal_tiles_made_elsewhere_play_like_interned_ones() -> None:
    """Tiles rebuilt by the caller behave exactly as the library's own."""
    rebuilt = [Tile(t.high, t.low) for t in ALL_TILES]
    mine = Deal([rebuilt[:7], rebuilt[7:14]], rebuilt[14:], opener=0)
    theirs = Deal([ALL_TILES[:7], ALL_TILES[7:14]], ALL_TILES[14:], opener=0)
    assert mine == theirs
    left = random_play(new_match(2, seed=9, deals=[mine]), 60, seed=2)
    right = random_play(new_match(2, seed=9, deals=[theirs]), 60, seed=2)
    assert left == right


def test_hands_of_equal_but_foreign_tiles_play_like_the_engines_own() -> None:
    """A hand holding equal tiles that are not the library's instances still plays."""
    state = new_match(2, seed=4)
    foreign = tuple(tuple(Tile(t.high, t.low) for t in hand) for hand in state.hands)
    assert all(t is not u for t, u in zip(foreign[0], state.hands[0], strict=True))
    twin = state.evolve(hands=foreign)
    for _ in range(30):
        move = legal_moves(state)[0]
        state, twin = apply(state, move), apply(twin, legal_moves(twin)[0])
        assert twin.hands == state.hands
        assert twin.layout == state.layout


def test_the_engines_fast_constructors_fill_exactly_the_attrs_fields() -> None:
    """States made by the engine equal ones made by attrs from the same fields.

    Their layouts equal, field by field, the layouts grown again through
    ``Layout.place`` from their tiles and connections.
    """
    for state in random_play(new_match(4, seed=12), 80, seed=4):
        state_fields = {
            (f.alias or f.name): getattr(state, f.name) for f in attrs.fields(MatchState) if f.init
        }
        assert MatchState(**state_fields) == state
        layout = state.layout
        rebuilt = Layout.empty()
        if layout.tiles:
            rebuilt = rebuilt.place(layout.tiles[0])
        for connection in layout.connections:
            rebuilt = rebuilt.place(connection.joined.tile, connection.at)
        assert rebuilt == layout
        assert (rebuilt.open_keys, rebuilt.end_sum, rebuilt.sniff) == (
            layout.open_keys,
            layout.end_sum,
            layout.sniff,
        )
        assert (rebuilt.tile_mask, rebuilt.value_mask) == (layout.tile_mask, layout.value_mask)
        assert pickle.loads(pickle.dumps(layout)) == layout
        assert copy.copy(layout) == layout
        assert hash(copy.copy(layout)) == hash(layout)
    assert [f.name for f in attrs.fields(MatchState)][-1] == "_legal"


def test_states_and_layouts_are_frozen() -> None:
    """No field of a state or a layout can be assigned."""
    state = new_match(3, seed=1)
    for name in ("turn", "hands", "scores", "layout", "winner"):
        with pytest.raises(attrs.exceptions.FrozenInstanceError):
            setattr(state, name, None)
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        state.layout.end_sum = 5


@pytest.mark.parametrize("value", [None, "state", "x", 3, Layout.empty()])
def test_the_engine_functions_name_a_wrong_state_argument(value: object) -> None:
    """legal_moves, apply and score_of refuse anything but a MatchState with a TypeError.

    In the compiled build MatchState is a native class, and the compiled
    functions' own argument check refuses the value first, with its message
    (``american_sniff.state.MatchState object expected; got ...``).
    Kills ``engine.legal_moves`` mutant 4 and ``engine.apply`` mutant 4.
    """
    from american_sniff import COMPILED, Draw, score_of

    def check(function: str, error: pytest.ExceptionInfo[TypeError]) -> None:
        if COMPILED:
            assert str(error.value).startswith(
                "american_sniff.state.MatchState object expected; got "
            )
        else:
            assert (
                str(error.value)
                == f"{function}() needs a MatchState (from new_match), got {value!r}"
            )

    with pytest.raises(TypeError) as error:
        legal_moves(value)  # type: ignore[arg-type]
    check("legal_moves", error)
    with pytest.raises(TypeError) as error:
        apply(value, Draw())  # type: ignore[arg-type]
    check("apply", error)
    with pytest.raises(TypeError) as error:
        score_of(value, 0)  # type: ignore[arg-type]
    check("score_of", error)


def test_the_repr_of_a_state_summarises_it() -> None:
    """The repr names the players, round, turn, scores, table and stock.

    Once a side has won, it shows ``winner=`` in place of ``turn=``. Kills
    ``state.MatchState.__repr__`` mutant 2.
    """
    state = new_match(2, seed=1)
    assert repr(state) == "<MatchState players=2 round=1 turn=1 scores=(0, 0) table=0 stock=14>"
    after = apply(state, legal_moves(state)[0])
    assert repr(after) == "<MatchState players=2 round=1 turn=0 scores=(0, 0) table=1 stock=14>"
    state = new_match(2, seed=3)
    for _ in range(20_000):  # (bounded: an engine that never ends a match fails, not loops)
        if state.winner is not None:
            break
        state = apply(state, legal_moves(state)[0])
    assert state.winner is not None
    assert repr(state) == (
        f"<MatchState players=2 round={state.round} winner={state.winner} "
        f"scores={state.scores} table={len(state.layout)} stock={state.stock_size}>"
    )
    assert "turn=" not in repr(state)


def test_the_rule_tables_are_read_only() -> None:
    """TARGET and HAND_SIZE cannot be changed from outside, so the engine cannot be bent."""
    from american_sniff import TARGET
    from american_sniff.rules import HAND_SIZE

    with pytest.raises(TypeError):
        TARGET[2] = 5  # type: ignore[index]
    with pytest.raises(TypeError):
        HAND_SIZE[4] = 9  # type: ignore[index]
    assert dict(TARGET) == {2: 250, 3: 200, 4: 200}
    assert dict(HAND_SIZE) == {2: 7, 3: 6, 4: 5}


def test_hands_without_an_order_and_deals_that_are_no_sequence_are_refused() -> None:
    """Hands are given seat by seat; ``deals`` must be a sequence of Deal."""
    with pytest.raises(InvalidDeal, match="hands must be a sequence"):
        Deal({ALL_TILES[:7], ALL_TILES[7:14]}, ALL_TILES[14:])
    for bad in (None, 5):
        with pytest.raises(InvalidDeal, match="deals must be a sequence"):
            new_match(2, deals=bad)  # type: ignore[arg-type]


def test_fits_names_a_wrong_tile_argument() -> None:
    """``Layout.fits`` answers a non-tile with ValueError, not an AttributeError."""
    with pytest.raises(ValueError, match="not a tile"):
        Layout.empty().place(Tile(1, 4)).fits("x")


def _three_values(players: int) -> list[Any]:
    """A mid-round MatchState of round 2 or later, its RoundInfo and its RoundResult."""
    state = next(s for s in random_play(new_match(players, seed=21), 400, seed=2) if s.round == 3)
    assert state.last_round is not None
    return [state, state.info, state.last_round]


@pytest.mark.parametrize("players", [2, 4])
def test_the_state_classes_keep_the_surface_of_frozen_attrs_classes(players: int) -> None:
    """Attrs' own functions, equality, hashing, repr, pickle and copies work on all three.

    In the compiled build these are native classes, not attrs classes: this pins
    that they still behave as the frozen attrs classes they were.
    """
    for value in _three_values(players):
        cls: Any = type(value)
        assert attrs.has(cls)
        names = [field.name for field in attrs.fields(cls)]
        assert names[: len(value.__match_args__)] == list(value.__match_args__)
        # attrs.evolve and the typed evolve method make equal copies, and change a field.
        same = attrs.evolve(value)
        assert same == value
        assert same is not value
        assert not same != value  # noqa: SIM202 (__ne__ is pinned too)
        assert value.evolve() == same
        assert hash(same) == hash(value)
        # The hash is computed once and kept; an equal value made apart hashes the same.
        assert hash(value) == hash(value)
        name = "turn" if cls is MatchState else "round"
        changed = attrs.evolve(value, **{name: 99})
        assert changed != value
        assert getattr(changed, name) == 99
        # attrs.asdict reads the fields (all three are "attrs classes" to it).
        assert set(attrs.asdict(value, recurse=False)) == set(names)
        # Pickle and copies give equal values of the same class.
        for twin in (pickle.loads(pickle.dumps(value)), copy.copy(value), copy.deepcopy(value)):
            assert type(twin) is cls
            assert twin == value
            assert hash(twin) == hash(value)
        # Frozen: no field can be set or deleted.
        with pytest.raises(attrs.exceptions.FrozenInstanceError):
            setattr(value, name, 5)
        with pytest.raises(attrs.exceptions.FrozenInstanceError):
            delattr(value, name)
        assert value != "not a state"
        assert (value == object()) is False
    state, info, result = _three_values(players)
    assert repr(info).startswith(f"RoundInfo(players={players}, seed=21, round=3, opener=")
    assert repr(result).startswith("RoundResult(round=2, end=RoundEnd.")
    assert "_log" not in repr(result)
    assert "log=" not in repr(result)
    assert repr(state).startswith(f"<MatchState players={players} round=3 ")


def test_evolve_starts_the_legal_move_cache_afresh_and_pickle_keeps_it() -> None:
    """The cache is no field of the value: evolve leaves it empty, pickle carries it."""
    state = random_play(new_match(3, seed=5), 30, seed=5)[-1]
    moves = legal_moves(state)
    assert fast_cache(state) is moves
    assert fast_cache(state.evolve()) is None
    assert fast_cache(attrs.evolve(state)) is None  # type: ignore[misc]
    assert fast_cache(pickle.loads(pickle.dumps(state))) == moves


def fast_cache(state: MatchState) -> object:
    """The legal-move cache of ``state``."""
    return state._legal


@pytest.mark.parametrize("players", [2, 3, 4])
def test_actions_before_counts_the_actions_of_the_earlier_rounds(players: int) -> None:
    """``info.actions_before`` is 0 in the first round, then the actions of every earlier round.

    Each state of a played match is one action after the one before, so the
    actions of the match so far are those before the round plus the round's
    own history. Kills the mutants of ``engine.new_match`` that start the
    count elsewhere (``actions_before=1``) and of ``engine._end_round`` that
    carry it wrongly.
    """
    states = _played(players, 3)
    rounds = {state.round for state in states}
    assert len(rounds) > 1, "the match should play more than one round"
    assert states[0].info.actions_before == 0
    for count, state in enumerate(states):
        assert state.info.actions_before + len(state.history) == count
        if state.last_round is not None:
            assert state.info.actions_before >= len(state.last_round.history)


def test_the_states_of_a_match_and_their_parts_hash_apart() -> None:
    """Distinct states, round infos and round results of a match have distinct hashes.

    A hash is computed from the fields once and kept; equal values hash
    equal, and the values of one match are told apart by their hashes (a
    constant hash would make every set and dictionary of states one long
    chain), and two distinct ones compare unequal. Kills the mutants of
    ``MatchState.__hash__``, ``RoundInfo.__hash__`` and
    ``RoundResult.__hash__`` that hash a constant, and of their ``__eq__``
    that call any two distinct values equal (``self is not other or ...``).
    """
    states = _played(4, 3)
    infos = {state.info for state in states}
    results = {state.last_round for state in states if state.last_round is not None}
    assert len(infos) > 1
    assert len(results) > 1
    for values in (set(states), infos, results):
        assert len({hash(value) for value in values}) == len(values)
        ordered = sorted(values, key=hash)
        for one, other in itertools.pairwise(ordered):
            assert (one == other) is False
            assert (one != other) is True
    for state in states[:50]:
        twin = state.evolve()
        assert twin == state
        assert hash(twin) == hash(state) == hash(state)
        assert hash(twin.info) == hash(state.info)


def test_a_state_saved_as_json_loads_back_as_itself_signed_or_not() -> None:
    """``MatchState.from_json(state.to_json()) == state``, and the same with a key.

    Signed text differs from unsigned text, loads with its key, and is
    refused with another. (The format itself is pinned field by field in
    ``tests/test_serial.py``; this pins the two methods of the state, which
    the rules core's tests reach only here.) Kills the mutants of
    ``MatchState.to_json`` and ``MatchState.from_json`` and of the log
    accessors the JSON layer reads through (``state.log_of``,
    ``state.round_log_of``, ``state.node_fields``, ``state.previous_node``).
    """
    from american_sniff import InvalidState

    key = bytes(range(16))
    states = _played(3, 2)
    chosen = [*states[:: max(len(states) // 6, 1)], states[-1]]
    assert any(state.last_round is not None for state in chosen)
    for state in chosen:
        text = state.to_json()
        assert MatchState.from_json(text) == state
        assert MatchState.from_json(text.encode()) == state
        assert MatchState.from_json(text).to_json() == text
        signed = state.to_json(key=key)
        assert signed != text
        assert MatchState.from_json(signed, key=key) == state
        with pytest.raises(InvalidState, match="signature"):
            MatchState.from_json(signed, key=bytes(range(1, 17)))


def test_the_log_accessors_walk_the_round_as_its_history_lists_it() -> None:
    """``node_fields`` and ``previous_node`` read, newest first, the actions ``history`` lists.

    The modules built on the core (the JSON layer, the views) read a round's
    action log through these accessors only; each node gives the seat, the
    move, the drawn tile, the end sum, the points and the scores of its
    action. Kills the mutants of ``state.node_fields`` that read another
    field, and of ``state.previous_node``.
    """
    from american_sniff.state import log_of, node_fields, previous_node, round_log_of

    states = _played(3, 2)
    rounds = [(log_of(state), state.history) for state in states[::40]]
    rounds += [(round_log_of(s.last_round), s.last_round.history) for s in states if s.last_round]
    assert any(len(history) > 3 for _, history in rounds)
    for log, history in rounds:
        node = log
        for action in reversed(history):
            fields = node_fields(node)
            assert fields == (
                action.seat,
                action.move,
                action.tile,
                action.end_sum,
                action.points,
                action.scores,
            )
            node = previous_node(node)
        assert node is None


def test_copy_replace_works_on_the_state_classes_and_tiles_as_attrs_evolve() -> None:
    """``copy.replace`` (Python 3.13 on) calls ``__replace__``: the same values as ``evolve``.

    The classes are written by hand, so attrs' own ``__replace__`` is not
    there: each has one. It is called directly on older Pythons.
    """
    state = random_play(new_match(3, seed=8), 30, 8)[-1]
    replace = getattr(copy, "replace", None)
    cases: list[tuple[Any, dict[str, Any]]] = [
        (state, {"turn": (state.turn + 1) % 3}),
        (state.info, {"round": state.info.round + 1}),
        (Tile(2, 5), {"low": 0}),
    ]
    if state.info.last_round is not None:
        cases.append((state.info.last_round, {"finisher": None}))
    for value, changes in cases:
        expected = attrs.evolve(value, **changes)
        assert value.__replace__(**changes) == expected
        if replace is not None:
            assert replace(value, **changes) == expected
        assert value.__replace__() == value
    assert Tile(2, 5).__replace__(high=1) is ALL_TILES[Tile(1, 2).index]
    with pytest.raises(TypeError, match="no field 'pips'"):
        Tile(2, 5).__replace__(pips=9)
    with pytest.raises(ValueError, match=r"from 0 to 6"):
        Tile(2, 5).__replace__(low=9)
    with pytest.raises(TypeError):
        state.__replace__(no_such_field=1)


def test_the_seq_counts_the_matchs_actions_across_rounds() -> None:
    """``seq`` is the number of actions so far: the round's, plus those before the round."""
    states = _played(2, 3)
    assert any(state.round > 2 for state in states)
    for number, state in enumerate(states):
        assert state.seq == number == state.info.actions_before + len(state.history)

"""What each seat may see: ``view_for``, ``PlayerView`` and its JSON."""

from __future__ import annotations

import itertools
import json
import random
import re

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

from american_sniff import (
    Action,
    Draw,
    IllegalMove,
    InvalidView,
    MatchState,
    Pass,
    Place,
    PlayerView,
    SpectatorView,
    Tile,
    ViewEvent,
    apply,
    apply_event,
    event_for,
    legal_moves,
    new_match,
    parse_point,
    spectator_view,
    view_for,
)
from american_sniff.render import DEFAULT_PAGE, table_geometry
from american_sniff.state import log_of
from american_sniff.views import event_to_dict, geometry_to_dict, known_voids, view_to_dict
from scenarios import DRAW_DEAL, PASS_DEAL, act, deal

_TILE_TEXT = re.compile(r"\[\d\|\d\]")


def _hidden(state: MatchState, seat: int | None) -> set[Tile]:
    """The tiles ``seat`` (None: a spectator) may not see: other hands and the stock."""
    others = {t for s, hand in enumerate(state.hands) if s != seat for t in hand}
    return others | set(state.stock)


def _check_view(state: MatchState, seat: int | None) -> None:
    """Assert that the view of ``seat`` shows nothing hidden, as a value and as JSON.

    With ``seat=None``, the spectator's view: nothing that any one seat alone sees.
    """
    view = view_for(state, seat, last_round_history=True)
    hidden = _hidden(state, seat)
    if isinstance(view, PlayerView):
        assert seat is not None
        assert view.hand == state.hands[seat]
        assert not hidden & set(view.hand)
        if view.drawn is not None:
            assert view.drawn in view.hand
    else:
        assert seat is None
    assert not hidden & set(view.layout.tiles)
    for action in view.history:
        assert action.tile is None or (action.tile not in hidden and action.seat == seat)
    doc = json.loads(view.to_json())
    # The previous round is over: its revealed hands are public, checked apart
    # (and so is the action that ended it, the last action of a round's start).
    last_round = doc.pop("last_round")
    if not doc["history"]:
        doc.pop("last_action")
    shown = set(_TILE_TEXT.findall(json.dumps(doc)))
    assert not shown & {str(t) for t in hidden}, (seat, shown & {str(t) for t in hidden})
    for key in ("seed", "rng", "stock", "deals", "hands"):
        assert key not in doc
    if last_round is not None:
        for action in last_round["history"]:
            if action["seat"] != seat:
                assert action["tile"] is None


def _play(players: int, seed: int, steps: int) -> list[MatchState]:
    rng = random.Random(seed)
    states = [new_match(players, seed=seed)]
    while not states[-1].is_over and len(states) <= steps:
        states.append(apply(states[-1], rng.choice(legal_moves(states[-1]))))
    return states


@given(st.sampled_from([2, 3, 4]), st.integers(0, 2**32), st.integers(20, 400))
def test_no_hidden_tile_ever_appears_in_a_view_or_its_json(
    players: int, seed: int, steps: int
) -> None:
    """Other hands, the stock and a tile another seat drew never show in a seat's view."""
    for state in _play(players, seed, steps)[-40:]:
        for seat in (*range(players), None):
            _check_view(state, seat)


def test_a_tile_drawn_by_another_seat_stays_hidden_until_it_is_placed() -> None:
    """Seat 0 sees that seat 1 drew, but not what, while seat 1 sees its own tiles."""
    state = act(new_match(2, seed=1, deals=[DRAW_DEAL]), "[0|0] opens")
    state = act(state, "draw")  # seat 1 draws [5|5]
    mine, theirs = view_for(state, 1), view_for(state, 0)
    assert mine.history[-1].tile == Tile(5, 5)
    assert theirs.history[-1].tile is None
    assert theirs.history[-1].move == Draw()
    assert theirs.hand_sizes == (6, 8)
    assert '"[5|5]"' not in theirs.to_json()
    for text in ("draw", "draw", "[0|3] on [0|0] line_b"):
        state = act(state, text)
    assert "[0|3]" in view_for(state, 0).to_json()  # placed: now public
    assert "[6|6]" not in view_for(state, 0).to_json()  # kept: still hidden


def test_only_the_seat_to_move_sees_legal_moves_and_its_drawn_tile() -> None:
    """The legal moves and the must-place drawn tile belong to the seat to move alone."""
    state = act(new_match(2, seed=1, deals=[DRAW_DEAL]), "[0|0] opens")
    for _ in range(3):
        state = act(state, "draw")
    assert state.drawn == Tile(0, 3)
    mover, other = view_for(state, 1), view_for(state, 0)
    assert mover.is_my_turn
    assert not other.is_my_turn
    assert mover.drawn == Tile(0, 3)
    assert other.drawn is None
    assert mover.legal_moves == legal_moves(state)
    assert other.legal_moves == ()


def test_the_view_holds_the_public_facts() -> None:
    """Scores, target, turn, round, opener, table and counts match the state."""
    state = _play(4, 3, 60)[-1]
    view = view_for(state, 2)
    assert isinstance(view, PlayerView)
    assert (view.seat, view.players, view.round, view.opener, view.turn) == (
        2,
        4,
        state.round,
        state.opener,
        state.turn,
    )
    assert (view.scores, view.target, view.winner) == (state.scores, 200, state.winner)
    assert view.layout == state.layout
    assert view.hand_sizes == tuple(len(h) for h in state.hands)
    assert view.stock_size == state.stock_size
    assert [a.move for a in view.history] == [a.move for a in state.history]
    assert view.last_action is not None
    assert view.last_action.move == (state.last_action.move if state.last_action else None)


def test_the_previous_round_is_public_but_its_draws_by_others_are_not() -> None:
    """``last_round`` keeps the revealed hands and hides the tiles other seats drew."""
    state = next(s for s in _play(2, 8, 3000) if s.round == 2 and s.last_round is not None)
    assert state.last_round is not None
    assert any(isinstance(a.move, Draw) for a in state.last_round.history)
    for seat in (0, 1):
        result = view_for(state, seat).last_round
        assert result is not None
        assert result.hands == state.last_round.hands
        assert result.scores == state.last_round.scores
        for action in result.history:
            if isinstance(action.move, Draw):
                assert (action.tile is None) == (action.seat != seat)


def test_the_view_json_follows_the_shared_conventions() -> None:
    """Header, key order, and the table's placements, open points and contributions."""
    state = act(act(new_match(2, seed=1, deals=[DRAW_DEAL]), "[0|0] opens"), "draw")
    doc = json.loads(view_for(state, 0).to_json())
    assert list(doc) == [
        "format",
        "format_version",
        "rules_version",
        "players",
        "seat",
        "round",
        "opener",
        "turn",
        "target",
        "scores",
        "winner",
        "hand",
        "drawn",
        "hand_sizes",
        "stock_size",
        "table",
        "legal_moves",
        "previews",
        "history",
        "last_round",
        "voids",
        "seq",
        "last_action",
        "geometry",
    ]
    assert doc["geometry"] is None  # only on request
    assert doc["format"] == "american-sniff/view"
    assert doc["table"] == {
        "placements": ["[0|0] opens"],
        "open_points": ["[0|0] line_a", "[0|0] line_b"],
        "contributions": [{"point": "[0|0] line_a", "value": 0}],
        "end_sum": 0,
        "sniff": "[0|0]",
    }
    assert doc["history"][1] == {
        "seat": 1,
        "move": "draw",
        "tile": None,
        "end_sum": None,
        "points": None,
    }
    assert doc["voids"] == [[], []]


def test_view_for_refuses_what_is_not_a_state_or_a_seat() -> None:
    """A wrong state argument is a TypeError; a seat out of range a ValueError."""
    with pytest.raises(TypeError, match="view_for"):
        view_for("state", 0)  # type: ignore[call-overload]
    with pytest.raises(ValueError, match="seat must be an integer from 0 to 1"):
        view_for(new_match(2, seed=1), 2)


# -- known voids ---------------------------------------------------------------------------


@given(st.sampled_from([2, 3, 4]), st.integers(0, 2**32))
def test_known_voids_are_never_wrong(players: int, seed: int) -> None:
    """No seat ever holds a tile showing a value it is said to be void in."""
    for state in _play(players, seed, 600):
        voids = view_for(state, 0).voids
        for seat, values in enumerate(voids):
            for tile in state.hands[seat]:
                assert tile.low not in values, (seat, tile, values)
                assert tile.high not in values, (seat, tile, values)


def test_drawing_then_placing_the_drawn_tile_shows_the_open_values_missing() -> None:
    """Seat 1 draws [5|5] and [6|6] (kept) then places [0|3]: it holds no 0 now, nothing more.

    While it was still drawing, nothing was known: the tile just drawn might fit.
    """
    state = act(new_match(2, seed=1, deals=[DRAW_DEAL]), "[0|0] opens")
    state = act(state, "draw")
    assert view_for(state, 0).voids == (frozenset(), frozenset())
    for text in ("draw", "draw", "[0|3] on [0|0] line_b"):
        state = act(state, text)
    assert view_for(state, 0).voids == (frozenset(), frozenset({0}))


def test_one_draw_placed_keeps_what_was_known_before() -> None:
    """A seat that draws once and places that tile holds the same hand as before its turn."""
    two = deal(
        [
            "[0|0] [0|1] [0|2] [0|4] [0|5] [1|1] [1|2]",
            "[1|3] [1|4] [1|5] [1|6] [2|2] [2|3] [3|3]",
        ],
        stock="[0|3] [0|6]",
    )
    state = act(new_match(2, seed=1, deals=[two]), "[0|0] opens")
    state = act(state, "draw")  # seat 1 (no 0) draws [0|3], which fits
    state = act(state, "[0|3] on [0|0] line_b")
    assert view_for(state, 0).voids[1] == frozenset({0})
    state = act(state, "[0|1] on [0|0] line_a")  # open: 3 (of [0|3]) and 1, branches 0 and 0
    assert view_for(state, 0).voids[1] == frozenset({0})


def test_a_pass_after_drawing_the_whole_stock_shows_only_the_open_values() -> None:
    """Seat 1 draws all fourteen tiles and passes: it is void in 0 only."""
    state = act(new_match(2, seed=1, deals=[PASS_DEAL]), "[0|0] opens")
    while legal_moves(state) == (Draw(),):
        state = act(state, "draw")
    assert legal_moves(state) == (Pass(),)
    state = act(state, "pass")
    assert view_for(state, 1).voids == (frozenset(), frozenset({0}))


def test_known_voids_start_empty_and_ignore_placements_by_choice() -> None:
    """An empty history, and a round of placements only, tell nothing."""
    assert known_voids((), 3) == (frozenset(),) * 3
    state = next(s for s in _play(3, 0, 40) if s.layout.count == 4)
    assert all(not isinstance(a.move, Draw | Pass) for a in state.history)
    assert known_voids(state.history, 3) == (frozenset(),) * 3


def _one_draw_turns(states: list[MatchState]) -> list[tuple[MatchState, MatchState, int]]:
    """Each turn of exactly one draw whose tile is then placed: (state before, after, seat)."""
    turns = []
    for before, drew, placed in zip(states, states[1:], states[2:], strict=False):
        first, second = drew.last_action, placed.last_action
        if first is None or second is None or placed.round != before.round:
            continue
        if not (isinstance(first.move, Draw) and isinstance(second.move, Place)):
            continue
        if second.seat != first.seat or (before.history and before.history[-1].seat == first.seat):
            continue  # not one draw then the drawn tile, in one turn
        turns.append((before, placed, first.seat))
    return turns


def _check_one_draw_turn(before: MatchState, placed: MatchState, seat: int) -> None:
    known = view_for(before, 0).voids[seat]
    shown = frozenset(p.value for p in before.layout.points())
    assert view_for(placed, 0).voids[seat] == known | shown


@given(st.sampled_from([2, 3, 4]), st.integers(0, 2**32))
def test_drawing_once_and_placing_that_tile_keeps_what_was_known(players: int, seed: int) -> None:
    """After one draw whose tile is placed, the seat holds its old hand: old voids stay.

    And the values open when it had to draw are added to them.
    """
    for before, placed, seat in _one_draw_turns(_play(players, seed, 800)):
        _check_one_draw_turn(before, placed, seat)


@pytest.mark.sweep
def test_a_seeded_match_keeps_old_voids_through_a_one_draw_turn() -> None:
    """Seeded turns where something outside the open values was known before the draw."""
    found = []
    for seed in range(60):
        for before, placed, seat in _one_draw_turns(_play(2, seed, 800)):
            shown = frozenset(p.value for p in before.layout.points())
            if view_for(before, 0).voids[seat] - shown:
                found.append((before, placed, seat))
    assert found
    for turn in found:
        _check_one_draw_turn(*turn)


# -- spectators ----------------------------------------------------------------------------


@given(st.sampled_from([2, 3, 4]), st.integers(0, 2**32), st.integers(1, 300))
def test_a_spectator_sees_exactly_what_every_seat_sees(players: int, seed: int, steps: int) -> None:
    """The spectator's view is each seat's view less the seat's own parts, for every seat."""
    state = _play(players, seed, steps)[-1]
    spectator = view_for(state, None, last_round_history=True)
    assert spectator == spectator_view(state, last_round_history=True)
    assert type(spectator) is SpectatorView
    assert spectator.viewer is None
    assert not spectator.is_my_turn
    assert all(action.tile is None for action in spectator.history)
    for seat in range(players):
        mine = view_for(state, seat, last_round_history=True)
        for field in attrs.fields(SpectatorView):
            if field.name not in ("_log", "_ended", "last_round"):
                assert getattr(mine, field.name) == getattr(spectator, field.name), field.name
        assert [attrs.evolve(a, tile=None) for a in mine.history] == list(spectator.history)
        if mine.last_round is not None and spectator.last_round is not None:
            assert mine.last_round.hands == spectator.last_round.hands
            assert [a.move for a in mine.last_round.history] == [
                a.move for a in spectator.last_round.history
            ]


# -- sequence numbers, previews, the previous round ---------------------------------------


def test_the_sequence_number_counts_the_actions_of_the_match() -> None:
    """0 at the start, one more with each action, across the rounds; a load keeps it."""
    states = _play(2, 5, 3000)
    assert states[-1].round > 2
    for number, state in enumerate(states):
        assert view_for(state, 0).seq == number
    later = next(s for s in states if s.round == 3)
    assert view_for(MatchState.from_json(later.to_json()), 1).seq == states.index(later)


@given(st.sampled_from([2, 3, 4]), st.integers(0, 2**32), st.integers(0, 300))
def test_each_preview_is_what_the_move_gives(players: int, seed: int, steps: int) -> None:
    """A legal move's preview is the end sum and the points that applying it gives."""
    state = _play(players, seed, steps)[-1]
    if state.is_over:
        return
    view = view_for(state, state.turn)
    assert [p.move for p in view.previews] == list(view.legal_moves)
    for preview in view.previews:
        action = apply(state, preview.move).last_action
        assert action is not None
        assert (preview.end_sum, preview.points) == (action.end_sum, action.points)


def test_a_round_start_view_carries_the_result_and_the_history_only_on_request() -> None:
    """The previous round's result is in every view; its actions only when asked for."""
    state = next(s for s in _play(3, 2, 3000) if s.round == 2)
    assert state.last_round is not None
    short = view_for(state, 0)
    assert short.last_round is not None
    assert short.last_round.history == ()
    assert short.last_round.hands == state.last_round.hands
    assert short.last_round.layout == state.last_round.layout
    full = view_for(state, 0, last_round_history=True)
    assert full.last_round is not None
    assert [a.move for a in full.last_round.history] == [a.move for a in state.last_round.history]
    assert len(short.to_json()) < len(full.to_json())
    assert short.last_action is not None
    assert short.last_action.round_result == short.last_round


# -- events --------------------------------------------------------------------------------


@pytest.mark.sweep
@given(st.sampled_from([2, 3, 4]), st.integers(0, 2**32), st.integers(1, 250))
def test_events_rebuild_every_later_view_exactly(players: int, seed: int, steps: int) -> None:
    """The first view and then one event per action give every view, also through JSON."""
    states = _play(players, seed, steps)
    for seat in (*range(players), None):
        view = view_for(states[0], seat)
        from_text = view
        for state in states[1:]:
            event = event_for(state, seat)
            assert event.seq == view.seq + 1
            view = apply_event(view, event)
            assert view == view_for(state, seat)
            from_text = apply_event(from_text, ViewEvent.from_json(event.to_json()))
        assert from_text == view


@given(st.sampled_from([2, 3, 4]), st.integers(0, 2**32), st.integers(1, 400))
def test_no_event_leaks_a_hidden_tile(players: int, seed: int, steps: int) -> None:
    """An event shows a drawn tile only to the seat that drew it, and no other hidden tile."""
    for state in _play(players, seed, steps)[-30:]:
        if state.last_action is None:
            continue
        for seat in (*range(players), None):
            event = event_for(state, seat)
            action = event.action
            if isinstance(action.move, Draw):
                assert (action.tile is not None) == (action.seat == seat)
            if event.next_round is not None:
                _check_view(state, seat)
                continue
            doc = json.loads(event.to_json())
            shown = set(_TILE_TEXT.findall(json.dumps(doc)))
            assert not shown & {str(t) for t in _hidden(state, seat)}


def test_an_event_must_follow_the_view_and_be_for_its_viewer() -> None:
    """A stale or skipped event, or one for another viewer, is refused; so is the match start."""
    states = _play(2, 1, 3)
    with pytest.raises(ValueError, match="start of the match"):
        event_for(states[0], 0)
    view = view_for(states[0], 0)
    with pytest.raises(ValueError, match="sequence number 2; the view expects 1"):
        apply_event(view, event_for(states[2], 0))
    with pytest.raises(ValueError, match="for viewer 1"):
        apply_event(view, event_for(states[1], 1))


# -- reading views back --------------------------------------------------------------------


@given(st.sampled_from([2, 3, 4]), st.integers(0, 2**32), st.integers(0, 600), st.booleans())
def test_views_read_back_equal(players: int, seed: int, steps: int, full: bool) -> None:
    """``PlayerView.from_json`` and ``SpectatorView.from_json`` give back the very view."""
    state = _play(players, seed, steps)[-1]
    for seat in range(players):
        view = view_for(state, seat, last_round_history=full)
        assert PlayerView.from_json(view.to_json()) == view
    spectator = spectator_view(state, last_round_history=full)
    assert SpectatorView.from_json(spectator.to_json()) == spectator


def test_a_view_that_does_not_add_up_is_refused() -> None:
    """A tampered table, preview, last action or viewer kind is refused with InvalidView."""
    state = _play(2, 3, 12)[-1]
    text = view_for(state, state.turn).to_json()
    doc = json.loads(text)
    changes = {
        "table": {**doc["table"], "end_sum": doc["table"]["end_sum"] + 1},
        "previews": [{**p, "points": p["points"] + 5} for p in doc["previews"]],
        "last_action": None,
        "voids": [[7], []],
        "seat": 5,
    }
    for key, value in changes.items():
        with pytest.raises(InvalidView):
            PlayerView.from_json(json.dumps({**doc, key: value}))
    with pytest.raises(InvalidView, match="player's view"):
        SpectatorView.from_json(text)
    with pytest.raises(InvalidView, match="spectator's view"):
        PlayerView.from_json(spectator_view(state).to_json())
    with pytest.raises(InvalidView, match="not valid JSON"):
        PlayerView.from_json("{")


# -- the table's geometry ------------------------------------------------------------------


@given(
    st.sampled_from([2, 3, 4]),
    st.integers(0, 2**32),
    st.integers(0, 300),
    st.sampled_from([DEFAULT_PAGE, (12, 10), None]),
)
def test_the_geometry_in_the_json_is_the_tables_and_reads_back(
    players: int, seed: int, steps: int, page: tuple[int, int] | None
) -> None:
    """``to_json(geometry=True)`` writes the render geometry; reading checks it.

    The view read back is the very view, and its own geometry is the one written.
    """
    state = _play(players, seed, steps)[-1]
    view = view_for(state, state.turn)
    text = view.to_json(geometry=True, page=page)
    doc = json.loads(text)
    made = table_geometry(state.layout, page=page)
    assert doc["geometry"] == geometry_to_dict(made)
    assert [placed["tile"] for placed in doc["geometry"]["tiles"]] == [
        str(tile) for tile in state.layout.tiles
    ]
    assert [anchor["point"] for anchor in doc["geometry"]["anchors"]] == doc["table"]["open_points"]
    back = PlayerView.from_json(text)
    assert back == view
    assert back.table_geometry(page) == made
    assert back.to_json(geometry=True, page=page) == text
    # JS-exact: every number is a small integer
    numbers = re.findall(r"-?[0-9][0-9.eE+-]*", json.dumps(doc["geometry"]))
    assert all(abs(int(n)) < 2**53 for n in numbers)
    spectator = spectator_view(state)
    assert SpectatorView.from_json(spectator.to_json(geometry=True)) == spectator


def test_a_geometry_that_is_not_the_tables_is_refused() -> None:
    """A moved tile, a wrong page, a missing anchor or a bad shape is refused with InvalidView."""
    state = _play(3, 7, 30)[-1]
    assert len(state.layout.tiles) >= 3
    doc = json.loads(view_for(state, 0).to_json(geometry=True))
    geometry = doc["geometry"]
    first = geometry["tiles"][0]
    moved = {**first, "rect": [x + 1 for x in first["rect"]]}
    changes = [
        {**geometry, "tiles": [moved, *geometry["tiles"][1:]]},
        {**geometry, "page": [0, 40]},
        {**geometry, "anchors": geometry["anchors"][1:]},
        {**geometry, "half": 3},
        {**geometry, "bounds": [0, 0, 0]},
        {**geometry, "extra": 1},
        [],
    ]
    for changed in changes:
        with pytest.raises(InvalidView, match="geometry"):
            PlayerView.from_json(json.dumps({**doc, "geometry": changed}))


@pytest.mark.sweep
@given(st.sampled_from([2, 3, 4]), st.integers(0, 2**32), st.integers(0, 600), st.booleans())
def test_the_view_text_is_the_view_dict_written_compactly(
    players: int, seed: int, steps: int, full: bool
) -> None:
    """``to_json`` writes exactly what ``json.dumps`` writes of ``view_to_dict`` (events too).

    It joins kept pieces of text; checked for every seat, a spectator, and the
    states of a match in order.
    """
    states = _play(players, seed, steps)
    for state in states[-30:]:
        for seat in (*range(players), None):
            view = view_for(state, seat, last_round_history=full)
            assert view.to_json() == json.dumps(view_to_dict(view), separators=(",", ":"))
        if state.last_action is not None:
            for seat in (*range(players), None):
                event = event_for(state, seat)
                assert event.to_json() == json.dumps(event_to_dict(event), separators=(",", ":"))
    view = view_for(states[-1], states[-1].turn)
    assert view.to_json(geometry=True) == json.dumps(
        view_to_dict(view, geometry=True), separators=(",", ":")
    )


@given(st.sampled_from([2, 3, 4]), st.integers(0, 2**32), st.integers(0, 500))
def test_the_view_of_a_signed_save_just_loaded_is_written_right(
    players: int, seed: int, steps: int
) -> None:
    """A loaded signed save keeps its history's text; each viewer's text is made from it."""
    key = b"sixteen bytes or more of key"
    text = _play(players, seed, steps)[-1].to_json(key=key)
    for seat in (*range(players), None):
        state = MatchState.from_json(text, key=key)
        view = view_for(state, seat)
        assert view.to_json() == json.dumps(view_to_dict(view), separators=(",", ":"))
        if state.winner is None:
            after = view_for(apply(state, legal_moves(state)[0]), seat)
            assert after.to_json() == json.dumps(view_to_dict(after), separators=(",", ":"))


def test_the_views_draw_on_the_renderings_default_page() -> None:
    """The views name the rendering's page and half-tile unit without loading it first."""
    from american_sniff import views
    from american_sniff.render import HALF

    assert views.TABLE_PAGE == DEFAULT_PAGE
    view = views.spectator_view(new_match(2, seed=3))
    assert geometry_to_dict(view.table_geometry())["half"] == HALF


@pytest.mark.sweep
@given(st.sampled_from([2, 3, 4]), st.integers(0, 2**32), st.integers(0, 2**16))
def test_a_cold_view_equals_the_view_made_step_by_step(players: int, seed: int, pick: int) -> None:
    """A view of a just-loaded state (no node seen) is the view a step-by-step loop makes.

    The loaded copy shares no node with the original, so its view walks the
    round afresh; each viewer's log is made only when asked, and is the
    round's own log until a draw by another seat must be hidden.
    """
    key = bytes(range(32))
    states = _play(players, seed, 300)
    for state in states:  # the step-by-step loop: every state viewed by every viewer
        for seat in (*range(players), None):
            view_for(state, seat)
    state = states[pick % len(states)]
    loaded = MatchState.from_json(state.to_json(key=key), key=key)
    assert log_of(loaded) is not log_of(state) or log_of(state) is None
    for seat in (None, *reversed(range(players))):
        cold, warm = view_for(loaded, seat), view_for(state, seat)
        assert cold == warm
        assert cold.history == warm.history
        assert cold.to_json() == warm.to_json()
        assert cold.voids == known_voids(state.history, players)


def test_known_voids_refuse_a_history_whose_placement_does_not_fit() -> None:
    """The voids are played through the replayer, which checks every placement."""
    wrong = Place(Tile(1, 2), parse_point("[3|3] line_a"))
    with pytest.raises(IllegalMove, match="shows no 3") as refused:
        known_voids((Action(0, Place(Tile(3, 3))), Action(1, wrong)), 2)
    assert refused.value.code == "values_differ"


def test_a_view_one_action_on_shares_the_history_of_the_view_before() -> None:
    """A view's history is one node on the history of the view before: nothing is copied.

    That is what makes a view cost the same at any point of a round (in the
    compiled build too, where a node must keep its identity).
    """
    states = _play(4, 5, 120)
    shared = 0
    for before, after in itertools.pairwise(states):
        if after.round != before.round:
            continue
        for seat in (*range(4), None):
            earlier, later = view_for(before, seat), view_for(after, seat)
            assert later._log[6] is earlier._log
            shared += 1
    assert shared > 100


@given(st.sampled_from([2, 3, 4]), st.integers(0, 2**32), st.integers(1, 120))
def test_an_event_made_from_the_view_a_host_made_is_the_same(
    players: int, seed: int, steps: int
) -> None:
    """``event_for(state, seat, view=view_for(state, seat))`` is ``event_for(state, seat)``.

    Another viewer's view is refused.
    """
    state = _play(players, seed, steps)[-1]
    for seat in (*range(players), None):
        view = view_for(state, seat)
        assert event_for(state, seat, view=view) == event_for(state, seat)
        other = view_for(state, (0 if seat is None else None))
        with pytest.raises(ValueError, match="not the viewer"):
            event_for(state, seat, view=other)

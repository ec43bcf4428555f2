"""The bot protocol, the registry, and the random and greedy bots."""

from __future__ import annotations

import typing

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import american_sniff
from american_sniff import (
    Draw,
    Layout,
    MatchState,
    Place,
    PlayerView,
    Tile,
    apply,
    legal_moves,
    new_match,
    parse_point,
    placement_points,
    view_for,
)
from american_sniff.bots import BOTS, LEVELS, Bot, GreedyBot, RandomBot, SearchBot, make_bot
from american_sniff.bots.greedy import greedy_choice
from american_sniff.rng import below
from american_sniff.tournament import run_tournament
from strategies import mid_match_states


def _play(players: int, seed: int, bots: list[Bot]) -> MatchState:
    """A whole match in which seat k asks ``bots[k]`` with its own view."""
    state = new_match(players, seed=seed)
    while state.winner is None:
        state = apply(state, bots[state.turn].choose(view_for(state, state.turn)))
    return state


# -- the protocol --------------------------------------------------------------------


#: Every bot class of the registry, and the cheapest level (the others are
#: the same class with bigger budgets, too slow to play here).
_KINDS = sorted((set(BOTS) - set(LEVELS)) | {"easy"})


@pytest.mark.parametrize("name", _KINDS)
def test_every_bot_takes_a_player_view_and_refuses_a_match_state(name: str) -> None:
    """A bot's ``choose`` is typed to take a PlayerView, and refuses a MatchState at run time."""
    bot = make_bot(name, 1, **({"playouts": 1} if name == "search" else {}))
    assert isinstance(bot, Bot)
    hints = typing.get_type_hints(type(bot).choose)
    assert hints["view"] is PlayerView
    state = new_match(2, seed=1)
    with pytest.raises(TypeError, match="chooses from a PlayerView"):
        bot.choose(state)  # type: ignore[arg-type]


@pytest.mark.parametrize("name", _KINDS)
def test_a_bot_refuses_a_view_where_it_is_not_to_move(name: str) -> None:
    """Not this seat's turn, or a finished match: the bot says there is nothing to choose."""
    bot = make_bot(name, 1, **({"playouts": 1} if name == "search" else {}))
    state = new_match(2, seed=1)
    other = 1 - state.turn
    with pytest.raises(ValueError, match=f"it is seat {state.turn}'s turn, not seat {other}'s"):
        bot.choose(view_for(state, other))
    final = _play(2, 4, [GreedyBot(), GreedyBot()])
    with pytest.raises(ValueError, match="match is over"):
        bot.choose(view_for(final, final.turn))


@given(state=mid_match_states(max_steps=300), seed=st.integers(0, 2**64 - 1))
@pytest.mark.parametrize("name", _KINDS)
def test_a_bot_only_returns_legal_moves(name: str, state: MatchState, seed: int) -> None:
    """Whatever the position, every bot returns one of the legal moves of the seat to move."""
    if state.is_over:
        return
    options = {"playouts": 2} if name == "search" else {}
    bot = make_bot(name, seed, **options)
    for _ in range(3):  # a few choices in a row, as in play
        move = bot.choose(view_for(state, state.turn))
        assert move in legal_moves(state)
        state = apply(state, move)
        if state.is_over:
            break


def test_the_bots_are_exported_from_the_package() -> None:
    """The bots, the protocol and the factory are public names of ``american_sniff``."""
    for name in ("Bot", "RandomBot", "GreedyBot", "SearchBot", "make_bot"):
        assert name in american_sniff.__all__
        assert getattr(american_sniff, name) is getattr(american_sniff.bots, name)


# -- the registry --------------------------------------------------------------------


def test_make_bot_builds_each_bot_by_name_with_its_seed_and_options() -> None:
    """The registry names the three bots; the repr rebuilds the bot."""
    assert list(BOTS) == ["random", "greedy", "search", *LEVELS]
    assert repr(make_bot("random", 3)) == "RandomBot(seed=3)"
    assert repr(RandomBot(seed=3, rng=4)) == "RandomBot(seed=3, rng=4)"
    assert repr(make_bot("greedy")) == "GreedyBot(seed=0)"
    search = make_bot("search", 5, playouts=7, rollout="random", depth=None)
    assert isinstance(search, SearchBot)
    assert (search.seed, search.playouts, search.rollout, search.depth) == (5, 7, "random", None)
    rebuilt = eval(repr(search), {"SearchBot": SearchBot})  # the repr is the constructor call
    assert repr(rebuilt) == repr(search)


def test_the_levels_are_search_bots_whose_budgets_grow() -> None:
    """The levels' playouts grow from easy to expert; a level's options can be overridden."""
    assert list(LEVELS) == ["easy", "medium", "hard", "expert"]
    budgets = []
    for name, options in LEVELS.items():
        bot = make_bot(name, seed=4)
        assert isinstance(bot, SearchBot)
        assert repr(bot) == repr(SearchBot(seed=4, **options))
        assert repr(eval(repr(bot), {"SearchBot": SearchBot})) == repr(bot)
        budgets.append(bot.playouts)
    assert budgets == sorted(budgets)
    assert len(set(budgets)) == len(budgets)
    tuned = make_bot("expert", seed=1, depth=2)
    assert isinstance(tuned, SearchBot)
    assert (tuned.playouts, tuned.depth) == (LEVELS["expert"]["playouts"], 2)


def test_make_bot_names_the_problem() -> None:
    """Unknown names, unknown options and bad values are refused with a message."""
    with pytest.raises(ValueError, match="no bot is named 'clever'; the bots are random, greedy"):
        make_bot("clever")
    with pytest.raises(TypeError, match="the greedy bot does not take these options"):
        make_bot("greedy", playouts=3)
    with pytest.raises(ValueError, match="seed"):
        make_bot("random", -1)
    with pytest.raises(ValueError, match="playouts must be a positive integer"):
        make_bot("search", playouts=0)
    with pytest.raises(ValueError, match="seconds must be a positive number"):
        make_bot("search", seconds=-1)
    with pytest.raises(ValueError, match="rollout must be one of greedy, random"):
        make_bot("search", rollout="clever")
    with pytest.raises(ValueError, match="depth must be a positive integer or None"):
        make_bot("search", depth=0)


# -- the random bot --------------------------------------------------------------------


def test_the_random_bot_uses_its_generator_exactly_as_documented() -> None:
    """below(n) on each choice among n > 1 moves; a lone move leaves the generator alone."""
    state = new_match(3, seed=21)
    bots = [RandomBot(seed) for seed in (5, 6, 7)]
    generators = [5, 6, 7]
    lone = 0
    while state.winner is None:
        seat = state.turn
        moves = legal_moves(state)
        expected = moves[0]
        if len(moves) > 1:
            index, generators[seat] = below(len(moves), generators[seat])
            expected = moves[index]
        else:
            lone += 1
        assert bots[seat].choose(view_for(state, seat)) is expected
        state = apply(state, expected)
    assert lone > 0  # the rule for a lone move was exercised


def test_the_random_bot_is_reproducible_and_uses_its_seed() -> None:
    """Two bots with one seed choose alike; another seed chooses otherwise somewhere."""
    view = view_for(new_match(2, seed=3), new_match(2, seed=3).turn)
    first, second, other = RandomBot(9), RandomBot(9), RandomBot(10)
    same = [first.choose(view) for _ in range(20)]
    assert same == [second.choose(view) for _ in range(20)]
    assert same != [other.choose(view) for _ in range(20)]


# -- the greedy bot --------------------------------------------------------------------


def test_greedy_takes_the_most_points_then_the_heaviest_tile_then_the_first() -> None:
    """Greedy's order: points now, then pips, then the order given."""
    table = Layout.empty().place(Tile(1, 4))  # open ends 1 and 4
    low, high = parse_point("[1|4] low"), parse_point("[1|4] high")
    # Points first: [1|6] on low makes 6 + 4 = 10 and scores; [4|6] on high makes 7.
    scoring = Place(Tile(1, 6), low)
    assert greedy_choice([Place(Tile(4, 6), high), scoring], table) is scoring
    # No points either way (both make 6): the heavier [4|5] (9 pips) beats [1|2] (3).
    heavy = Place(Tile(4, 5), high)
    assert greedy_choice([Place(Tile(1, 2), low), heavy], table) is heavy
    # No points (7 and 1) and 4 pips each: the first given.
    one, other = Place(Tile(1, 3), low), Place(Tile(0, 4), high)
    assert greedy_choice([one, other], table) is one
    assert greedy_choice([other, one], table) is other
    draw = Draw()
    assert greedy_choice([draw], table) is draw
    with pytest.raises(ValueError, match="no move"):
        greedy_choice([], table)


def test_greedy_bot_picks_what_greedy_choice_picks_and_scores_the_most() -> None:
    """Over a match, each greedy choice scores as much as any legal placement would."""
    state = new_match(2, seed=12)
    bot = GreedyBot()
    while state.winner is None:
        view = view_for(state, state.turn)
        move = bot.choose(view)
        if isinstance(move, Place):
            best = max(
                placement_points(view.layout.place(m.tile, m.at).end_sum)
                for m in view.legal_moves
                if isinstance(m, Place)
            )
            assert placement_points(view.layout.place(move.tile, move.at).end_sum) == best
        state = apply(state, move)


@pytest.mark.strength
def test_the_easiest_level_beats_random_clearly() -> None:
    """Over 100 two-player and 40 four-player matches "easy" wins far more than half."""
    two = run_tournament(["easy", "random"], players=2, matches=100, seed=7)
    assert two.bots[0].low > 0.75, two.table()
    four = run_tournament(["easy", "random"], players=4, matches=40, seed=7)
    assert four.bots[0].low > 0.6, four.table()


@pytest.mark.strength
def test_greedy_beats_random_clearly() -> None:
    """Over 100 two-player and 40 four-player matches greedy wins far more than half."""
    two = run_tournament(["greedy", "random"], players=2, matches=100, seed=2024)
    assert two.bots[0].low > 0.75, two.table()
    four = run_tournament(["greedy", "random"], players=4, matches=40, seed=2024)
    assert four.bots[0].low > 0.6, four.table()


# -- bots that survive a restart -------------------------------------------------------


def _lineup(players: int, seed: int) -> list[Bot]:
    """A mixed lineup: every kind of bot, each seeded from the match seed."""
    kinds: list[Bot] = [
        SearchBot(seed=seed + 1, playouts=2),
        RandomBot(seed=seed + 2),
        GreedyBot(seed=seed + 3),
        SearchBot(seed=seed + 4, playouts=1, depth=None, rollout="random"),
    ]
    return kinds[:players]


def _play_on(
    state: MatchState, bots: list[Bot], actions: int | None
) -> tuple[MatchState, list[object]]:
    """Play ``actions`` actions (or to the end of the match); every move made."""
    moves: list[object] = []
    while state.winner is None and (actions is None or len(moves) < actions):
        move = bots[state.turn].choose(view_for(state, state.turn))
        moves.append(move)
        state = apply(state, move)
    return state, moves


@given(
    players=st.sampled_from([2, 3, 4]),
    seed=st.integers(min_value=0, max_value=2**32),
    cut=st.floats(min_value=0, max_value=1),
)
# Each example plays a whole match twice: a fifth of the profile's examples (6 under ci).
@settings(max_examples=max(1, settings().max_examples // 5))
def test_a_bot_match_resumed_from_json_at_a_random_action_is_identical(
    players: int, seed: int, cut: float
) -> None:
    """Kill a match of bots at any action, rebuild the state from JSON and the bots from repr."""
    start = new_match(players, seed=seed)
    whole, moves = _play_on(start, _lineup(players, seed), None)
    at = int(cut * len(moves))
    bots = _lineup(players, seed)
    killed, first = _play_on(start, bots, at)
    saved_state, saved_bots = killed.to_json(), [repr(bot) for bot in bots]
    del killed, bots  # the server is restarted: only the saved text survives
    names = {"SearchBot": SearchBot, "RandomBot": RandomBot, "GreedyBot": GreedyBot}
    state = MatchState.from_json(saved_state)
    rebuilt = [typing.cast(Bot, eval(text, names)) for text in saved_bots]
    end, rest = _play_on(state, rebuilt, None)
    assert first + rest == moves
    assert end == whole
    assert end.to_json() == whole.to_json()


@pytest.mark.sweep
@given(st.sampled_from([2, 3, 4]), st.integers(0, 2**64 - 1))
def test_a_random_bot_chooses_the_same_from_the_legal_moves_alone(players: int, seed: int) -> None:
    """``choose_from_moves(legal_moves(state))`` is ``choose(view_for(state, seat))``.

    It leaves the generator where ``choose`` leaves it, over a whole match.
    """
    state = new_match(players, seed=seed)
    by_view = [RandomBot(seed=seed ^ seat) for seat in range(players)]
    by_moves = [RandomBot(seed=seed ^ seat) for seat in range(players)]
    while state.winner is None:
        seat = state.turn
        move = by_view[seat].choose(view_for(state, seat))
        assert by_moves[seat].choose_from_moves(legal_moves(state)) == move
        assert by_moves[seat].rng == by_view[seat].rng
        state = apply(state, move)
    with pytest.raises(ValueError, match="no legal move"):
        RandomBot(seed=1).choose_from_moves(())

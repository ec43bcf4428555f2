"""The OpenSpiel game: american_sniff.envs.openspiel."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

pytest.importorskip("pyspiel")

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

import american_sniff.envs.openspiel  # noqa: F401 (registers the game)
from american_sniff import IllegalMove, apply, legal_moves, new_match
from american_sniff.actions import DRAW_ACTION, NUM_ACTIONS, action_of, legal_actions
from american_sniff.envs.openspiel import GAME_TYPE, AmericanSniffState, utility_of
from american_sniff.observation import (
    OBSERVATION_SIZE,
    encode,
    encode_information_state,
    information_state,
    information_state_size,
)
from american_sniff.state import RoundEnd
from american_sniff.views import view_for


@pytest.mark.sweep
@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_sim_test_with_serialisation(players: int) -> None:
    """OpenSpiel's own consistency test passes, serialisation included, for 2, 3 and 4 players."""
    game = pyspiel.load_game("american_sniff", {"players": players})
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)


def test_the_game_is_registered_with_its_parameters() -> None:
    """The game reports its sizes; bad parameters are refused."""
    game = pyspiel.load_game("american_sniff", {"players": 4})
    assert game.num_players() == 4
    assert game.num_distinct_actions() == NUM_ACTIONS
    assert game.observation_tensor_size() == OBSERVATION_SIZE
    assert game.information_state_tensor_size() == information_state_size(4) == 13_318
    assert game.max_chance_outcomes() == 28
    assert pyspiel.load_game("american_sniff").num_players() == 2
    for params in ({"players": 5}, {"max_moves": 0}):
        with pytest.raises(ValueError, match="must be"):
            pyspiel.load_game("american_sniff", params)


def _chance(state: AmericanSniffState, rng: np.random.Generator) -> None:
    outcomes = state.chance_outcomes()
    assert sum(p for _, p in outcomes) == pytest.approx(1.0)
    state.apply_action(outcomes[rng.integers(len(outcomes))][0])


def test_the_deal_and_the_draws_are_chance_nodes() -> None:
    """A lot, then one chance node per dealt tile; a draw action is followed by the drawn tile's."""
    game = pyspiel.load_game("american_sniff", {"players": 2})
    state = game.new_initial_state()
    rng = np.random.default_rng(3)
    assert state.is_chance_node()
    assert [o for o, _ in state.chance_outcomes()] == [0, 1]  # the lot
    state.apply_action(1)
    for dealt in range(14):
        assert state.is_chance_node()
        assert len(state.chance_outcomes()) == 28 - dealt
        _chance(state, rng)
    assert state.current_player() == 1 == state.match.opener
    assert [len(h) for h in state.match.hands] == [7, 7]
    assert state.match.stock_size == 14
    draws = 0
    while state.match.round == 1:
        actions = state.legal_actions()
        assert actions == list(legal_actions(state.match))
        state.apply_action(actions[0])
        if actions[0] == DRAW_ACTION:
            assert state.is_chance_node()
            outcomes = {o for o, _ in state.chance_outcomes()}
            assert outcomes == {t.index for t in state.match.stock}
            stock = state.match.stock_size
            _chance(state, rng)
            assert state.match.stock_size == stock - 1
            draws += 1
        elif state.is_chance_node():
            assert state.match.round == 2  # the next round's deal
    assert draws > 0


def _play_random(state: AmericanSniffState, rng: np.random.Generator) -> None:
    while not state.is_terminal():
        if state.is_chance_node():
            _chance(state, rng)
        else:
            actions = state.legal_actions()
            state.apply_action(actions[rng.integers(len(actions))])


def test_returns_are_per_side() -> None:
    """With 4 players, partners share +1 or -1; the match is won at the target."""
    game = pyspiel.load_game("american_sniff", {"players": 4})
    state = game.new_initial_state()
    _play_random(state, np.random.default_rng(8))
    winner = state.match.winner
    assert winner is not None
    assert max(state.match.scores) >= 200
    assert state.returns() == [1.0 if seat % 2 == winner else -1.0 for seat in range(4)]


@pytest.mark.sweep
def test_points_returns_are_the_final_scores() -> None:
    """With reward="points" the returns are each player's side's final score."""
    game = pyspiel.load_game("american_sniff", {"players": 4, "reward": "points"})
    assert game.max_utility() == 235.0
    pyspiel.random_sim_test(game, num_sims=1, serialize=False, verbose=False)
    state = game.new_initial_state()
    _play_random(state, np.random.default_rng(9))
    scores = state.match.scores
    assert state.returns() == [float(scores[seat % 2]) for seat in range(4)]
    with pytest.raises(ValueError, match="reward must be one of"):
        pyspiel.load_game("american_sniff", {"reward": "score"})


def test_max_moves_ends_the_match_with_no_winner() -> None:
    """A match that reaches max_moves ends with returns of 0."""
    game = pyspiel.load_game("american_sniff", {"players": 3, "max_moves": 40})
    state = game.new_initial_state()
    _play_random(state, np.random.default_rng(1))
    assert state.returns() == [0.0, 0.0, 0.0]
    assert len(state.history()) == 40


def test_the_engine_plays_the_same_match() -> None:
    """Dealt the engine's own deal through the chance nodes, the game follows the engine."""
    engine = new_match(3, seed=17)
    game = pyspiel.load_game("american_sniff", {"players": 3})
    state = game.new_initial_state()
    state.apply_action(engine.opener)
    for hand in engine.hands:
        for tile in hand:
            state.apply_action(tile.index)
    stock = list(engine.stock)
    while engine.round == 1:
        assert state.match.hands == engine.hands
        move = legal_moves(engine)[-1]
        state.apply_action(action_of(engine, move))
        if state.is_chance_node():
            state.apply_action(stock.pop(0).index)
        engine = apply(engine, move)
    assert state.match.scores == engine.scores
    assert state.is_chance_node()  # the next round's deal


def test_resampling_keeps_the_information_state() -> None:
    """resample_from_infostate deals hidden tiles again and changes nothing the player sees."""
    game = pyspiel.load_game("american_sniff", {"players": 4})
    state = game.new_initial_state()
    rng = np.random.default_rng(5)
    for _ in range(60):
        if state.is_chance_node():
            _chance(state, rng)
        else:
            actions = state.legal_actions()
            state.apply_action(actions[rng.integers(len(actions))])
    while state.is_chance_node():
        _chance(state, rng)
    player = state.current_player()
    # IS-MCTS makes a new sampler for every world; the worlds still differ.
    worlds = [
        state.resample_from_infostate(player, pyspiel.UniformProbabilitySampler(0.0, 1.0))
        for _ in range(5)
    ]
    for world in worlds:
        assert world.information_state_string(player) == state.information_state_string(player)
        assert world.information_state_string(player) == information_state(
            view_for(state.match, player)
        )
        assert world.legal_actions() == state.legal_actions()
    assert any(world.match.hands != state.match.hands for world in worlds)
    assert len({world.match.hands for world in worlds}) > 1


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_resampled_world_has_its_own_history(players: int) -> None:
    """Replaying a world's history() gives the world, whose hands keep the voids."""
    game = pyspiel.load_game("american_sniff", {"players": players})
    rng = np.random.default_rng(players)
    changed = 0
    for _ in range(6):
        state = game.new_initial_state()
        for _ in range(int(rng.integers(30, 300))):
            if state.is_terminal():
                break
            if state.is_chance_node():
                _chance(state, rng)
            else:
                actions = state.legal_actions()
                state.apply_action(actions[rng.integers(len(actions))])
        for player in range(players):
            sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
            world = state.resample_from_infostate(player, sampler)
            again = game.new_initial_state()
            for action in world.history():
                assert action in again.legal_actions()
                again.apply_action(action)
            assert str(again) == str(world)
            assert again.match == world.match
            assert world.information_state_string(player) == state.information_state_string(player)
            assert world.information_state_tensor(player) == state.information_state_tensor(player)
            view = view_for(state.match, player)
            for seat, hand in enumerate(world.match.hands):
                assert not any({t.low, t.high} & view.voids[seat] for t in hand)
            changed += world.history() != state.history()
    assert changed > 0
    with pytest.raises(pyspiel.SpielError, match="no information state"):
        state.resample_from_infostate(players, pyspiel.UniformProbabilitySampler(0.0, 1.0))


@pytest.mark.sweep
def test_is_mcts_plays_whole_matches() -> None:
    """OpenSpiel's IS-MCTS bot plays a whole match through the game, against random play."""
    game = pyspiel.load_game("american_sniff", {"players": 2})
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(1))
    bot = ismcts.ISMCTSBot(
        game, evaluator, uct_c=2.0, max_simulations=3, random_state=np.random.RandomState(2)
    )
    state = game.new_initial_state()
    rng = np.random.default_rng(4)
    decisions = 0
    while not state.is_terminal():
        if state.is_chance_node():
            _chance(state, rng)
        elif state.current_player() == 0:
            action = bot.step(state)
            assert action in state.legal_actions()
            state.apply_action(action)
            decisions += 1
        else:
            actions = state.legal_actions()
            state.apply_action(actions[rng.integers(len(actions))])
    assert state.match.winner is not None
    assert decisions > 10
    assert sorted(state.returns()) == [-1.0, 1.0]


@pytest.mark.sweep
def test_mcts_plays_a_four_player_match() -> None:
    """OpenSpiel's (perfect-information) MCTS bot also plays through it, here with 4 players."""
    game = pyspiel.load_game("american_sniff", {"players": 4})
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(1))
    bot = mcts.MCTSBot(
        game,
        uct_c=2.0,
        max_simulations=2,
        evaluator=evaluator,
        random_state=np.random.RandomState(3),
    )
    state = game.new_initial_state()
    rng = np.random.default_rng(6)
    while not state.is_terminal():
        if state.is_chance_node():
            _chance(state, rng)
        elif state.current_player() == 1:
            state.apply_action(bot.step(state))
        else:
            actions = state.legal_actions()
            state.apply_action(actions[rng.integers(len(actions))])
    assert state.match.winner is not None


@pytest.mark.sweep
def test_the_worked_example_runs(capsys: pytest.CaptureFixture[str]) -> None:
    """docs/examples/openspiel_ismcts.py plays its matches and prints the tally."""
    path = Path(__file__).parent.parent / "docs" / "examples" / "openspiel_ismcts.py"
    spec = importlib.util.spec_from_file_location("openspiel_ismcts", path)
    assert spec is not None
    assert spec.loader is not None
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    assert example.main(["--matches", "2", "--simulations", "2", "--playouts", "2"]) == 0
    out = capsys.readouterr().out
    assert "match 2: IS-MCTS at seat 1" in out
    assert "won" in out
    assert "of 2 against SearchBot (2 playouts)" in out


def _same_answers(state: AmericanSniffState, players: int) -> None:
    """The answers given in Python are the C++ layer's, and the observations the views'."""
    assert state.is_chance_node() == pyspiel.State.is_chance_node(state)
    assert state.legal_actions() == pyspiel.State.legal_actions(state)
    for player in range(players):
        assert state.legal_actions(player) == pyspiel.State.legal_actions(state, player)
    if state.is_chance_node():
        assert state.legal_actions() == [a for a, _ in state.chance_outcomes()]
        return
    if state.is_terminal():
        return
    for player in range(players):
        expected = [float(x) for x in encode(view_for(state.match, player))]
        assert state.observation_tensor(player) == expected
        assert pyspiel.State.observation_tensor(state, player) == expected
    # The perfect-recall tensor (13k numbers with 4 players) at one step in five, for time.
    for player in range(players) if len(state.history()) % 5 == 0 else ():
        recall = [float(x) for x in encode_information_state(view_for(state.match, player))]
        assert state.information_state_tensor(player) == recall
        assert pyspiel.State.information_state_tensor(state, player) == recall
    assert state.observation_tensor() == state.observation_tensor(state.current_player())


@pytest.mark.sweep
@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_python_answers_are_the_cpp_layers(players: int) -> None:
    """At every step of random matches, the queries answered in Python agree with OpenSpiel's C++.

    Also on copies: clones and serialised states carry on with the same
    answers and the same history.
    """
    game = pyspiel.load_game("american_sniff", {"players": players, "max_moves": 700})
    rng = np.random.default_rng(players)
    for _ in range(2):
        state = game.new_initial_state()
        step = 0
        while not state.is_terminal():
            _same_answers(state, players)
            if step % 41 == 40:
                for copy in (
                    state.clone(),
                    pyspiel.deserialize_game_and_state(
                        pyspiel.serialize_game_and_state(game, state)
                    )[1],
                ):
                    assert copy.history() == state.history()
                    _same_answers(copy, players)
                    copy.apply_action(copy.legal_actions()[0])  # leaves the original alone
            if state.is_chance_node():
                _chance(state, rng)
            else:
                actions = state.legal_actions()
                state.apply_action(actions[rng.integers(len(actions))])
            step += 1
        _same_answers(state, players)


def test_every_round_is_dealt_by_chance_nodes_even_after_a_draw_that_blocks() -> None:
    """A round that ends blocked on a draw of the stock's last tile is followed by a dealt round.

    (The next round's hands come from chance nodes, not from the engine's own deal.)
    """
    game = pyspiel.load_game("american_sniff", {"players": 2})
    rng = np.random.default_rng(12)
    blocked_on_draws = 0
    for _ in range(12):
        state = game.new_initial_state()
        last_player_action = None
        chance_since = 0
        round_number = 0
        while not state.is_terminal():
            if state.is_chance_node():
                _chance(state, rng)
                chance_since += 1
                continue
            match = state.match
            if match.round != round_number:
                # The deal, and maybe a lot, since the last player's action (and its draw).
                assert chance_since >= 14
                last = match.last_round
                if last is not None and last.end is RoundEnd.BLOCKED:
                    blocked_on_draws += last_player_action == DRAW_ACTION
                round_number = match.round
            actions = state.legal_actions()
            last_player_action = actions[rng.integers(len(actions))]
            state.apply_action(last_player_action)
            chance_since = 0
    assert blocked_on_draws > 0


def test_bad_chance_outcomes_are_refused_and_change_nothing() -> None:
    """A tile already dealt, or not in the stock, or a lot for no seat, is a clear error."""
    game = pyspiel.load_game("american_sniff", {"players": 2})
    state = game.new_initial_state()
    with pytest.raises(ValueError, match="lot"):
        state.apply_action(5)
    state.apply_action(0)
    state.apply_action(3)
    with pytest.raises(ValueError, match="not a tile left to deal"):
        state.apply_action(3)
    assert [a for a, _ in state.chance_outcomes()] == [i for i in range(28) if i != 3]
    assert state.history() == [0, 3]
    assert state.move_number() == 2
    rng = np.random.default_rng(2)
    while state.is_chance_node() or DRAW_ACTION not in state.legal_actions():
        if state.is_chance_node():
            _chance(state, rng)
        else:
            actions = state.legal_actions()
            state.apply_action(actions[rng.integers(len(actions))])
    before = state.serialize()
    illegal = next(a for a in range(NUM_ACTIONS) if a not in state.legal_actions())
    with pytest.raises(IllegalMove):
        state.apply_action(illegal)
    assert state.serialize() == before
    state.apply_action(DRAW_ACTION)
    hand_tile = state.match.hands[state.match.turn][0].index
    with pytest.raises(ValueError, match="not a tile of the stock"):
        state.apply_action(hand_tile)
    assert state.is_chance_node()


def test_observations_of_no_player_are_refused() -> None:
    """An observation tensor for a seat the game lacks, or for chance, is OpenSpiel's error."""
    game = pyspiel.load_game("american_sniff", {"players": 3})
    state = game.new_initial_state()
    with pytest.raises(pyspiel.SpielError):
        state.observation_tensor()  # chance is to act
    with pytest.raises(pyspiel.SpielError):
        state.information_state_tensor(3)
    rng = np.random.default_rng(4)
    while state.is_chance_node():
        _chance(state, rng)
    for answer in (state.legal_actions, lambda player: pyspiel.State.legal_actions(state, player)):
        with pytest.raises(pyspiel.SpielError):
            answer(-1)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_cpp_code_plays_whole_matches_through_the_game(players: int) -> None:
    """OpenSpiel's C++ evaluate_bots, with its C++ random bots, plays whole matches.

    Every call then comes from C++ (chance outcomes, legal actions, applying,
    returns), through the hooks rather than the Python answers.
    """
    game = pyspiel.load_game("american_sniff", {"players": players})
    bots = [pyspiel.make_uniform_random_bot(p, 10 + p) for p in range(players)]
    returns = pyspiel.evaluate_bots(game.new_initial_state(), bots, 3)
    assert sorted(set(returns)) == [-1.0, 1.0]
    if players == 4:
        assert returns[0] == returns[2]
        assert returns[1] == returns[3]


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_declared_utility_is_what_the_returns_are(players: int) -> None:
    """ZERO_SUM (2 and 4 players, partners included) is declared only where the returns sum to 0.

    A whole random match is played under each reward, and one cut short by
    max_moves; the sums are checked against the type each game declares.
    """
    zero_sum = pyspiel.GameType.Utility.ZERO_SUM
    for reward in ("outcome", "points"):
        game = pyspiel.load_game("american_sniff", {"players": players, "reward": reward})
        declared = game.get_type().utility
        assert declared == utility_of(players, reward)
        assert (declared == zero_sum) == (reward == "outcome" and players != 3)
        state = game.new_initial_state()
        _play_random(state, np.random.default_rng(40 + players))
        returns = state.returns()
        assert state.match.winner is not None
        if declared == zero_sum:
            assert sum(returns) == 0.0
            assert game.utility_sum() == 0.0
            assert sorted(set(returns)) == [-1.0, 1.0]
        else:
            assert sum(returns) != 0.0  # (3 players: +1 and two -1; points: scores)
    short = pyspiel.load_game("american_sniff", {"players": players, "max_moves": 40})
    state = short.new_initial_state()
    _play_random(state, np.random.default_rng(3))
    assert state.returns() == [0.0] * players
    assert pyspiel.load_game("american_sniff").get_type().utility == GAME_TYPE.utility == zero_sum

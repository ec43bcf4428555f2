"""The OpenSpiel game's kernel (american_sniff.envs._kernel), without OpenSpiel.

The kernel is compiled in the platform wheel and needs no extra, so these
tests run on every build, the compiled one included.
"""

from __future__ import annotations

import copy
import pickle
import random

import pytest

from american_sniff import IllegalMove, MatchState, apply, legal_moves, new_match
from american_sniff.actions import DRAW_ACTION, action_of, legal_actions
from american_sniff.envs._kernel import CHANCE, TERMINAL, Kernel
from american_sniff.observation import RoundFacts
from american_sniff.rules import HAND_SIZE
from american_sniff.state import RoundEnd


def _kernel(players: int, max_moves: int = 10_000) -> Kernel:
    return Kernel(players, max_moves, new_match(players, seed=0))


def _deal_engine_round(kernel: Kernel, engine: MatchState, lot: bool) -> None:
    """Deal ``engine``'s round through the kernel's chance nodes: its lot, its hands."""
    assert kernel.player == CHANCE
    if lot:
        assert [o for o, _ in kernel.chance_outcomes()] == list(range(engine.players))
        kernel.apply(engine.opener)
    for hand in engine.hands:
        for tile in hand:
            assert kernel.player == CHANCE
            assert tile.index in kernel.chance_actions()
            kernel.apply(tile.index)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_kernel_follows_the_engine_through_whole_matches(players: int) -> None:
    """Dealt the engine's deals and draws, the kernel plays the engine's very match.

    At every decision its legal actions are the action layer's, its round
    facts those worked out from the history, and its chance outcomes at a
    draw are the stock's tiles, each as likely.
    """
    rng = random.Random(players)
    for match in range(3):
        engine = new_match(players, seed=100 + match)
        kernel = _kernel(players)
        _deal_engine_round(kernel, engine, lot=True)
        decisions = 0
        while engine.winner is None:
            state = kernel.state()
            assert kernel.player == state.turn == engine.turn
            assert state.hands == engine.hands
            assert sorted(state.stock) == sorted(engine.stock)
            assert kernel.legal_actions() == list(legal_actions(engine))
            assert kernel.round_facts() == RoundFacts.start(engine)
            moves = legal_moves(engine)
            move = moves[rng.randrange(len(moves))]
            action = action_of(engine, move)
            after = apply(engine, move)
            kernel.apply(action)
            decisions += 1
            if action == DRAW_ACTION:
                assert kernel.player == CHANCE
                outcomes = kernel.chance_outcomes()
                assert sorted(o for o, _ in outcomes) == sorted(t.index for t in engine.stock)
                assert {p for _, p in outcomes} == {1 / len(outcomes)}
                kernel.apply(engine.stock[0].index)
            if after.winner is None and after.round != engine.round:
                last = after.last_round
                assert last is not None
                _deal_engine_round(kernel, after, lot=last.end is RoundEnd.BLOCKED)
            engine = after
        assert kernel.player == TERMINAL
        assert kernel.state().scores == engine.scores
        assert kernel.state().winner == engine.winner
        assert decisions > 10


@pytest.mark.parametrize("players", [2, 4])
def test_a_round_deals_one_tile_at_a_time(players: int) -> None:
    """The lot, then one chance node per tile dealt, the outcomes those not dealt yet."""
    kernel = _kernel(players)
    assert kernel.chance_outcomes() == [(seat, 1 / players) for seat in range(players)]
    assert kernel.apply(players - 1) == CHANCE
    dealt: list[int] = []
    for n in range(players * HAND_SIZE[players]):
        left = [i for i in range(28) if i not in dealt]
        assert kernel.chance_outcomes() == [(i, 1 / len(left)) for i in left]
        assert kernel.chance_actions() == left
        pick = left[(7 * n) % len(left)]
        player = kernel.apply(pick)
        dealt.append(pick)
    assert player == players - 1  # the lot's seat opens
    state = kernel.state()
    size = HAND_SIZE[players]
    assert [[t.index for t in hand] for hand in state.hands] == [
        sorted(dealt[seat * size : (seat + 1) * size]) for seat in range(players)
    ]
    assert sorted(t.index for t in state.stock) == [i for i in range(28) if i not in dealt]
    assert kernel.moves == 1 + len(dealt)


def test_bad_outcomes_and_actions_are_refused_and_change_nothing() -> None:
    """A lot for no seat, a tile dealt twice, an illegal action: clear errors, nothing changed."""
    kernel = _kernel(2)
    with pytest.raises(ValueError, match="the lot's outcome is a seat, 0 to 1: 2"):
        kernel.apply(2)
    kernel.apply(0)
    kernel.apply(5)
    before = kernel.copy()
    with pytest.raises(ValueError, match="chance outcome 5 is not a tile left to deal"):
        kernel.apply(5)
    assert kernel.chance_actions() == before.chance_actions()
    for i in range(28):
        if kernel.player != CHANCE:
            break
        if i in kernel.chance_actions():
            kernel.apply(i)
    legal = kernel.legal_actions()
    illegal = next(a for a in range(450) if a not in legal)
    moves = kernel.moves
    with pytest.raises(IllegalMove, match=f"action {illegal} "):
        kernel.apply(illegal)
    with pytest.raises(ValueError, match="an action is an integer from 0 to 449"):
        kernel.apply(450)
    assert kernel.legal_actions() == legal
    assert kernel.moves == moves


def test_a_draw_then_the_drawn_tile_must_be_of_the_stock() -> None:
    """After a draw action, chance picks the tile among the stock's; another tile is refused."""
    rng = random.Random(3)
    kernel = _kernel(2)
    while True:
        if kernel.player == CHANCE:
            actions = kernel.chance_actions()
            kernel.apply(actions[rng.randrange(len(actions))])
            continue
        if DRAW_ACTION in kernel.legal_actions():
            break
        actions = kernel.legal_actions()
        kernel.apply(actions[rng.randrange(len(actions))])
    state = kernel.state()
    assert kernel.apply(DRAW_ACTION) == CHANCE
    assert kernel.chance_actions() == sorted(t.index for t in state.stock)
    held = state.hands[state.turn][0].index
    with pytest.raises(ValueError, match=f"chance outcome {held} is not a tile of the stock"):
        kernel.apply(held)
    tile = state.stock[-1]
    kernel.apply(tile.index)
    after = kernel.state()
    assert after.drawn_count == state.drawn_count + 1
    assert tile in after.hands[state.turn] or after.round != state.round


def _play(kernel: Kernel, rng: random.Random, steps: int) -> None:
    for _ in range(steps):
        if kernel.player == TERMINAL:
            return
        actions = kernel.chance_actions() if kernel.player == CHANCE else kernel.legal_actions()
        kernel.apply(actions[rng.randrange(len(actions))])


def test_copies_pickles_and_deep_copies_are_independent() -> None:
    """A copy carries on as the original would, and changing it leaves the original alone."""
    kernel = _kernel(3)
    _play(kernel, random.Random(1), 60)
    for other in (kernel.copy(), copy.deepcopy(kernel), pickle.loads(pickle.dumps(kernel))):
        assert other is not kernel
        assert other.state() == kernel.state()
        assert other.player == kernel.player
        assert other.round_facts() == kernel.round_facts()
        mine, theirs = copy.deepcopy(kernel), other
        _play(mine, random.Random(2), 80)
        _play(theirs, random.Random(2), 80)
        assert theirs.state() == mine.state()
        assert theirs.moves == mine.moves == kernel.moves + 80
    assert kernel.moves == kernel.copy().moves


def test_max_moves_ends_the_match() -> None:
    """The match ends, with no winner, at its limit of actions."""
    kernel = _kernel(4, max_moves=30)
    _play(kernel, random.Random(4), 100)
    assert kernel.player == TERMINAL
    assert kernel.moves == 30
    assert kernel.state().winner is None

"""A stateful Hypothesis machine that plays matches one action at a time.

Its main rule applies a random legal move; other rules try anything at all
(which must be refused unless it is legal) and fast-forward through whole
rounds. Invariants check the tiles, the scores, turn and draw discipline, and
that the state before the last action is exactly as it was.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import event, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
)

from american_sniff import Draw, MatchState, Move, Pass, Place, apply, legal_moves
from reference import (
    check_state,
    check_transition,
    placements,
    refuse,
    snapshot,
    tiles_accounted_for,
)
from strategies import any_moves, matches


class MatchMachine(RuleBasedStateMachine):
    """One match at a time, advanced by legal moves and probed with every other move."""

    def __init__(self) -> None:
        super().__init__()
        self.state: MatchState | None = None
        self.previous: MatchState | None = None
        self.previous_snapshot: tuple[object, ...] | None = None
        self.previous_legal: tuple[Move, ...] = ()
        self.previous_legal_copy: list[Move] = []

    @property
    def current(self) -> MatchState:
        """The state of the match now."""
        assert self.state is not None
        return self.state

    def step(self, move: Move) -> None:
        """Apply ``move``, check the action, and remember the state it was applied to."""
        before = self.current
        legal = legal_moves(before)
        kept = snapshot(before)
        after = apply(before, move)
        check_transition(before, move, after)
        if after.round != before.round:
            event("a round ended")
        if after.is_over:
            event("a match ended")
        self.previous = before
        self.previous_snapshot = kept
        self.previous_legal = legal
        self.previous_legal_copy = list(legal)
        self.state = after

    # -- rules ---------------------------------------------------------------

    @initialize(state=matches())
    def deal(self, state: MatchState) -> None:
        """Start from a freshly dealt match."""
        check_state(state)
        self.state = state

    @precondition(lambda self: not self.current.is_over)
    @rule(choice=st.integers(min_value=0, max_value=2**16))
    def play_a_legal_move(self, choice: int) -> None:
        """Apply one of the legal moves."""
        legal = legal_moves(self.current)
        self.step(legal[choice % len(legal)])

    @rule(move=any_moves())
    def try_any_move(self, move: object) -> None:
        """Try anything: a legal move is applied, anything else refused unchanged."""
        if move in legal_moves(self.current):
            self.step(move)  # `in` narrows `move` to a Move
        else:
            refuse(self.current, move)

    @precondition(lambda self: not self.current.is_over)
    @rule(
        steps=st.integers(min_value=1, max_value=120),
        choices=st.integers(min_value=0, max_value=2**32 - 1),
    )
    def fast_forward(self, steps: int, choices: int) -> None:
        """Play a run of random legal moves, to reach round ends and the end of the match."""
        rng = random.Random(choices)
        for _ in range(steps):
            legal = legal_moves(self.current)
            if not legal:
                break
            self.step(rng.choice(legal))

    @precondition(lambda self: self.current.is_over)
    @rule(state=matches())
    def deal_again(self, state: MatchState) -> None:
        """After a match ends, deal a new one."""
        check_state(state)
        self.state = state
        self.previous = None

    # -- invariants ----------------------------------------------------------

    @invariant()
    def tiles_are_accounted_for(self) -> None:
        """Hands, stock and table hold the 28 tiles, each once."""
        if self.state is not None:
            tiles_accounted_for(self.state)

    @invariant()
    def previous_state_is_unchanged(self) -> None:
        """The state the last action was applied to, and its listed legal moves, are intact."""
        if self.previous is not None:
            assert snapshot(self.previous) == self.previous_snapshot
            assert legal_moves(self.previous) is self.previous_legal
            assert list(self.previous_legal) == self.previous_legal_copy

    @invariant()
    def turn_and_draw_discipline(self) -> None:
        """Turns and draws follow the rules.

        A drawer moves again; a drawn tile that fits is the only tile to place;
        a draw needs a stock and a pass an empty one, and only without a placement.
        """
        if self.state is None:
            return
        state = self.state
        legal = legal_moves(state)
        if state.is_over:
            assert legal == ()
            return
        action = state.last_action
        if action is not None and action.move == Draw() and state.layout.tiles:
            assert state.turn == action.seat
        hand = state.hands[state.turn]
        if state.drawn is not None:
            assert set(legal) == placements((state.drawn,), state.layout)
            assert legal
        elif any(isinstance(m, Place) for m in legal):
            assert set(legal) == placements(hand, state.layout)
        else:
            assert not placements(hand, state.layout)
            assert legal == ((Draw(),) if state.stock_size else (Pass(),))

    @invariant()
    def whole_state_checks(self) -> None:
        """Every single-state rule holds (table geometry, legal moves, the win, rule 1)."""
        if self.state is not None:
            check_state(self.state)


# Whole matches, step by step: a sweep, which coverage does not trace (see conftest.py).
TestMatchMachine = pytest.mark.sweep(MatchMachine.TestCase)
TestMatchMachine.settings = settings()  # the loaded profile (see conftest.py)

"""Tables from random matches, shared by the render tests."""

from __future__ import annotations

import functools
import random

from american_sniff import Layout, apply, legal_moves, new_match

__all__ = ["random_tables"]


@functools.cache
def random_tables(finals: int, seed: int) -> tuple[tuple[Layout, ...], tuple[Layout, ...]]:
    """``finals`` final tables of random matches, and some tables from the middle of rounds.

    Random matches (2, 3 or 4 players) are played by choosing each move with a
    ``random.Random(seed)``. A final table is the layout a round ended with
    (``state.last_round.layout``) or the one on which the match was won; about
    one state in fifty also gives a mid-round table. Cached, so the test
    files share the tables.
    """
    rng = random.Random(seed)
    final: list[Layout] = []
    middle: list[Layout] = []
    while len(final) < finals:
        state = new_match(rng.choice((2, 3, 4)), seed=rng.randrange(2**32))
        last_round = None
        while len(final) < finals:
            state = apply(state, rng.choice(legal_moves(state)))
            if state.is_over:
                final.append(state.layout)
                break
            if state.last_round is not last_round:
                last_round = state.last_round
                assert last_round is not None
                final.append(last_round.layout)
            elif state.layout and rng.random() < 0.02:
                middle.append(state.layout)
    return tuple(final), tuple(middle)

"""Behaviour that mutation testing (mutmut, see CONTRIBUTING.md) found unpinned.

Each test pins something the rules, the docs or the docstrings define; the
mutants it was written for are named in its docstring's last line. The
mutants that no test can tell apart from the code are listed, with the reason,
in ``tests/mutmut-equivalents.md``.
"""

from __future__ import annotations

import random

import pytest

from american_sniff import MatchState, apply, legal_moves, new_match
from american_sniff import _fast as fast
from american_sniff.rng import MASK64, below, next_u64, shuffled

# -- the shuffle on 32-bit halves (the compiled build's shuffle) ------------------------


def _unshift(value: int, shift: int) -> int:
    """The x with ``x ^ (x >> shift) == value`` (64-bit)."""
    result = value
    for _ in range(64 // shift + 1):
        result = value ^ (result >> shift)
    return result


def _state_before(output: int) -> int:
    """A generator state whose next SplitMix64 output is ``output`` (the mix is a bijection)."""
    z = _unshift(output, 31)
    z = z * pow(0x94D049BB133111EB, -1, 1 << 64) & MASK64
    z = _unshift(z, 27)
    z = z * pow(0xBF58476D1CE4E5B9, -1, 1 << 64) & MASK64
    z = _unshift(z, 30)
    return (z - 0x9E3779B97F4A7C15) & MASK64


@pytest.mark.parametrize("count", [0, 1, 2, 3, 5, 7, 8, 13, 28, 31, 33, 63, 64])
def test_the_shuffle_on_halves_is_the_specified_shuffle(count: int) -> None:
    """The compiled build's shuffle gives rng.shuffled's order and generator state.

    Kills the mutants of ``_fast._times``, ``_fast._output`` and
    ``_fast.shuffled_indices_in_halves``.
    """
    chooser = random.Random(count)
    states = [0, 1, MASK64, 2**63, 2**32 - 1, 2**32] + [chooser.getrandbits(64) for _ in range(40)]
    for state in states:
        order, after = shuffled(tuple(range(count)), state)
        assert fast.shuffled_indices_in_halves(count, state) == (list(order), after)


@pytest.mark.parametrize("count", [3, 5, 6, 7, 28, 63])
def test_the_shuffle_on_halves_redraws_exactly_where_below_does(count: int) -> None:
    """An output at or above ``2**64 - 2**64 % n`` is drawn again; one just below it is kept.

    Outputs that high come once in about 2**60 draws, so the generator state is
    chosen to give them. Kills the comparison mutants of
    ``_fast.shuffled_indices_in_halves`` and of ``_fast._REDRAW``'s use.
    """
    limit = (1 << 64) - (1 << 64) % count
    for output in (limit - 1, limit, MASK64):
        state = _state_before(output)
        assert next_u64(state)[0] == output
        order, after = shuffled(tuple(range(count)), state)
        assert fast.shuffled_indices_in_halves(count, state) == (list(order), after)
        # The first swap took one draw below the limit, and two from it up.
        draws = 1 if output < limit else 2
        assert below(count, state)[1] == (state + draws * 0x9E3779B97F4A7C15) & MASK64


def test_the_shuffle_on_halves_takes_at_most_64_items() -> None:
    """Up to 64 items are shuffled; 65 are refused with a ValueError naming the count.

    Kills the mutants of the bound check in ``_fast.shuffled_indices_in_halves``.
    """
    assert sorted(fast.shuffled_indices_in_halves(64, 5)[0]) == list(range(64))
    with pytest.raises(ValueError, match=r"^the shuffle on halves takes up to 64 items, not 65$"):
        fast.shuffled_indices_in_halves(65, 5)


# -- the compiled build's constructors, run by the interpreter ---------------------------


def _random_play(state: MatchState, steps: int, seed: int) -> list[MatchState]:
    chooser = random.Random(seed)
    states = [state]
    for _ in range(steps):
        if state.winner is not None:
            break
        state = apply(state, chooser.choice(legal_moves(state)))
        states.append(state)
    return states


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_compiled_builds_code_paths_play_the_same_match(
    players: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The branches that only the mypyc build takes give the very same states and moves.

    ``_fast.COMPILED`` picks the compiled build's slot stores, legal-move cache
    and shuffle; run by the interpreter they must play the same match, state
    for state, as the pure-Python branches (the issue asks both builds to behave
    identically). Kills the mutants of the ``if COMPILED:`` branches of
    ``new_layout``, ``new_state``, ``set_legal_cache`` and ``shuffled_indices``.
    """
    interpreted = _random_play(new_match(players, seed=31 + players), 250, seed=players)
    monkeypatch.setattr(fast, "COMPILED", True)
    compiled = _random_play(new_match(players, seed=31 + players), 250, seed=players)
    assert compiled == interpreted
    for mine, theirs in zip(compiled, interpreted, strict=True):
        assert type(mine) is MatchState
        assert type(mine.layout) is type(theirs.layout)
        assert mine.layout.open_keys == theirs.layout.open_keys
        assert mine.layout.end_sum == theirs.layout.end_sum
        assert mine.layout.sniff is theirs.layout.sniff
        assert mine.layout.tile_mask == theirs.layout.tile_mask
        assert mine.layout.value_mask == theirs.layout.value_mask
        assert mine.layout.tiles == theirs.layout.tiles
        assert mine.history == theirs.history
        assert mine.drawn_count == theirs.drawn_count
        assert mine.drawn is theirs.drawn
        assert mine.winner == theirs.winner
        # The compiled build's store fills the cache that legal_moves reads back.
        moves = legal_moves(mine)
        assert fast.legal_cache(mine) is moves

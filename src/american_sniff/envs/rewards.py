"""The rewards the environments give, and how their episodes are seeded.

Two kinds of reward, chosen by name:

* ``"outcome"`` (the default): nothing until the match is won; then +1 to
  every seat of the winning side (both partners with 4 players) and -1 to
  every other seat.
* ``"points"``: after every action, each seat gets the change of its side's
  score: what a placement scored, for the placing side (shared by partners),
  and at the end of a round the settlement's deductions, as negative rewards.
  Summed over a match, it is the side's final score.

This module needs nothing beyond the library.
"""

from __future__ import annotations

import operator

from ..rng import MASK64
from ..rules import side_of
from ..state import MatchState

__all__ = ["REWARDS", "check_choice", "match_seed", "rewards"]

#: The names of the kinds of reward.
REWARDS = ("outcome", "points")


def check_choice(name: str, value: object, choices: tuple[str, ...]) -> str:
    """Return ``value`` if it is one of ``choices``.

    :raises ValueError: otherwise, naming the option and the choices.
    """
    if value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, choices))}, got {value!r}")
    return str(value)


def rewards(kind: str, before: MatchState, after: MatchState) -> tuple[float, ...]:
    """Each seat's reward for the actions that led from ``before`` to ``after``.

    ``kind`` is ``"outcome"`` or ``"points"`` (see the module's notes).
    """
    players = after.players
    if kind == "points":
        return tuple(
            float(after.scores[side_of(players, s)] - before.scores[side_of(players, s)])
            for s in range(players)
        )
    if after.winner is None:
        return (0.0,) * players
    return tuple(1.0 if side_of(players, s) == after.winner else -1.0 for s in range(players))


def match_seed(seed: object) -> int:
    """The seed of the match an episode plays, from the integer seed given to ``reset``.

    A seed given to ``reset`` is the match's seed itself, so that
    ``new_match(players, seed=seed)`` replays the episode's deal; a negative
    seed or one above 2**64 - 1 is taken modulo 2**64.

    :raises ValueError: if ``seed`` is not an integer.
    """
    try:
        if isinstance(seed, bool):
            raise TypeError
        value = operator.index(seed)  # type: ignore[arg-type]  # numpy integers too
    except TypeError:
        raise ValueError(f"a seed is an integer, got {seed!r}") from None
    return value & MASK64

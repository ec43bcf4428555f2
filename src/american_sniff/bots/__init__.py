"""Bots: players that choose a legal move from what their seat may see.

Every bot follows the :class:`~american_sniff.Bot` protocol: ``choose(view)`` takes a
:class:`~american_sniff.PlayerView` and returns one of its legal moves. The
bots of this package are seeded, so a match between them is reproducible,
and are made by name with :func:`~american_sniff.make_bot`:

>>> from american_sniff import new_match, view_for, apply
>>> bots = [make_bot("greedy"), make_bot("random", seed=7)]
>>> bots
[GreedyBot(seed=0), RandomBot(seed=7)]
>>> state = new_match(2, seed=1)
>>> while not state.is_over:
...     state = apply(state, bots[state.turn].choose(view_for(state, state.turn)))
>>> state.winner
0
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any

from ._seeded import bot_seed, decision_rng
from .base import Bot
from .greedy import GreedyBot
from .random_bot import RandomBot, random_match, random_match_bots
from .search import Determiniser, SearchBot, winning_moves

__all__ = [
    "BOTS",
    "LEVELS",
    "Bot",
    "Determiniser",
    "GreedyBot",
    "RandomBot",
    "SearchBot",
    "bot_seed",
    "decision_rng",
    "make_bot",
    "random_match",
    "random_match_bots",
    "winning_moves",
]

#: The difficulty levels a game can offer, easiest first: each is a
#: :class:`~american_sniff.SearchBot` with these options (read-only). ``"medium"`` is the
#: instant budget and ``"expert"`` the strong one: up to 64 playouts, dropping
#: the moves clearly behind as it goes (``prune=2.5``: a clear choice ends
#: after 8), and reading the other seats' choices (``infer=0.1``: worth about
#: three points with four players, nothing measurable with two). Beyond 64
#: playouts the bot hardly gains (128 win 50% and 54% of head-to-head matches
#: against 64, two and four players); ``benchmarks/bots-results.md`` measures
#: each level against the one below.
LEVELS: Mapping[str, Mapping[str, Any]] = MappingProxyType(
    {
        "easy": MappingProxyType({"playouts": 1}),
        "medium": MappingProxyType({"playouts": 8}),
        "hard": MappingProxyType({"playouts": 24}),
        "expert": MappingProxyType({"playouts": 64, "infer": 0.1, "prune": 2.5}),
    }
)


def _level(name: str) -> Callable[..., Bot]:
    """The factory of the level ``name``: a search bot with the level's options."""

    def make(seed: int = 0, **options: Any) -> SearchBot:
        return SearchBot(seed=seed, **{**LEVELS[name], **options})

    make.__name__ = make.__qualname__ = f"{name}_level"
    make.__doc__ = f"A SearchBot at the {name} level: {dict(LEVELS[name])}."
    return make


#: The bots of this package by name (read-only): ``"random"``, ``"greedy"``,
#: ``"search"``, then the levels of :data:`LEVELS` (search bots with set budgets).
BOTS: Mapping[str, Callable[..., Bot]] = MappingProxyType(
    {"random": RandomBot, "greedy": GreedyBot, "search": SearchBot}
    | {name: _level(name) for name in LEVELS}
)


def make_bot(name: str, seed: int = 0, **options: Any) -> Bot:
    """A new bot of the kind ``name``, with its generator at ``seed``.

    ``options`` go to the bot's class: for ``"search"`` and the levels,
    ``playouts``, ``seconds``, ``rollout`` and ``depth`` (see
    :class:`SearchBot`); a level's own options come first, and ``options``
    override them.

    >>> make_bot("search", seed=2, playouts=16)
    SearchBot(seed=2, playouts=16, seconds=None, rollout='greedy', depth=4)
    >>> make_bot("hard", seed=2)
    SearchBot(seed=2, playouts=24, seconds=None, rollout='greedy', depth=4)

    :raises ValueError: if no bot has that name, or an option or the seed is
        out of range.
    :raises TypeError: if the bot has no such option.
    """
    factory = BOTS.get(name)
    if factory is None:
        raise ValueError(f"no bot is named {name!r}; the bots are {', '.join(BOTS)}")
    try:
        return factory(seed=seed, **options)
    except TypeError as error:
        raise TypeError(f"the {name} bot does not take these options: {error}") from None

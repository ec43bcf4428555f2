"""One player against another over duplicate deals, seats swapped: win rates with intervals.

:func:`evaluate` plays player ``a`` against player ``b``. A player is a bot
name of the registry (:data:`american_sniff.bots.BOTS`), a bot (anything
with ``choose(view)``, see :class:`~american_sniff.Bot`), or a batched
*policy*, a callable on ``(observations, masks)`` returning one action a row
(the observations are :func:`~american_sniff.observation.encode`'s vectors,
the masks :func:`~american_sniff.actions.action_mask`'s, as numpy arrays; see
:mod:`american_sniff.envs.batched`). Policies need numpy; bots do not.

>>> result = evaluate("greedy", "random", players=2, deals=10, seed=1)
>>> result.matches, result.wins > 10
(20, True)

The schedule is the one the bot tables use (``benchmarks/versus.py``, which
now takes its deals and intervals from here: for bots by name, the two play
the same matches, a test checks):

* **Duplicate deals.** Deal ``i`` is the ``i + 1``-th output of SplitMix64
  from ``seed`` (:func:`~american_sniff.tournament.match_seeds`). Each deal is
  played once for each side of the table (the seat with 2 or 3 players, the
  partnership with 4): ``a`` holds that side, ``b`` every other seat. So each
  player gets each deal from each side, and luck of the deal cancels out.
* **Bots by name** are made afresh for each match, the bot at seat ``k`` of
  a deal ``s`` seeded ``s + k + 1`` (modulo 2**64), as in the tournaments. A
  bot given as an object is used as it is, in every match.
* **A lone legal move** (a forced draw or pass, or a single placement) is
  made without asking the player.
* **Policies are batched:** the matches are played side by side, and a
  policy is asked once for every match waiting on one of its seats.

``a`` *wins* a match when its side wins. The result gives the win rate with
its 95% Wilson score interval
(:func:`~american_sniff.tournament.wilson_interval`) and the rate of an even
contest, 1 / the number of sides: a player against itself wins about that
(exactly that for a player whose choices depend on the deal and the seat
alone, since each deal is then played out the same from every side).

**The ladder.** :func:`evaluate_ladder` plays one player against each of the
reference bots, :data:`LADDER` (``random``, ``greedy``, ``medium`` and
``expert``), on the same deals, and :meth:`Ladder.table` writes the results
as a Markdown table, a row a bot (for ``benchmarks/``):

>>> ladder = evaluate_ladder("greedy", ("random", "greedy"), deals=4, seed=1)
>>> print(ladder.table())
| against | players | matches | won | win rate | 95% interval | even |
| --- | --- | --- | --- | --- | --- | --- |
| random | 2 | 8 | 8 | 100.0% | 67.6% to 100.0% | 50.0% |
| greedy | 2 | 8 | 4 | 50.0% | 21.5% to 78.5% | 50.0% |

**Scaled observations.** With ``scaled=True`` a policy is given the
observations scaled as :func:`american_sniff.observation.scaled` scales them
(the scaling it was trained on, with ``AmericanSniffVectorEnv(scaled=True)``).

**The interval.** For ``w`` wins of ``n`` matches, rate ``p = w / n`` and
``z = 1.95996`` (the normal quantile of 97.5%), the Wilson score interval is
``(p + z²/2n ± z √(p(1 - p)/n + z²/4n²)) / (1 + z²/n)``: unlike the normal
approximation, it stays within [0, 1] and is sound for rates near 0 or 1
and for few matches (a test checks it on Newcombe's published examples).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import attrs

from .actions import action_mask, move_of
from .bots import BOTS, make_bot
from .engine import apply, legal_moves, new_match
from .moves import Move
from .rng import MASK64
from .rules import PLAYER_COUNTS, side_count, side_of
from .state import MatchState
from .tournament import match_seeds, wilson_interval
from .views import view_for

__all__ = ["LADDER", "Evaluation", "Ladder", "MatchOutcome", "evaluate", "evaluate_ladder"]

#: The reference bots a player is measured against, weakest first.
LADDER: tuple[str, ...] = ("random", "greedy", "medium", "expert")


@attrs.frozen
class MatchOutcome:
    """One match of an evaluation.

    :ivar seed: The deal's seed.
    :ivar side: The side that player ``a`` held.
    :ivar winner: The side that won.
    :ivar scores: Each side's final score.
    """

    seed: int
    side: int
    winner: int
    scores: tuple[int, ...]

    @property
    def a_won(self) -> bool:
        """Whether player ``a``'s side won."""
        return self.winner == self.side


@attrs.frozen
class Evaluation:
    """What :func:`evaluate` found: player ``a``'s wins against ``b``, with an interval.

    :ivar players: The number of players of each match.
    :ivar deals: The number of deals, each played once from every side.
    :ivar wins: The matches that ``a``'s side won.
    :ivar matches: The matches played (``deals`` times the number of sides).
    :ivar low: The lower end of the 95% Wilson interval of ``a``'s win rate.
    :ivar high: Its upper end.
    :ivar outcomes: Every match, deal by deal and side by side.
    """

    players: int
    deals: int
    wins: int
    matches: int
    low: float
    high: float
    outcomes: tuple[MatchOutcome, ...] = attrs.field(repr=False)

    @property
    def win_rate(self) -> float:
        """``a``'s share of the matches won."""
        return self.wins / self.matches

    @property
    def even(self) -> float:
        """The win rate of an even contest: 1 / the number of sides."""
        return 1 / side_count(self.players)

    def summary(self) -> str:
        """One line: the wins, the rate and its interval, and the even rate.

        >>> evaluate("greedy", "greedy", deals=3, seed=2).summary()
        'a won 3 of 6 matches: 50.0% (95% interval 18.8% to 81.2%; even is 50.0%)'
        """
        return (
            f"a won {self.wins} of {self.matches} matches: {self.win_rate:.1%} "
            f"(95% interval {self.low:.1%} to {self.high:.1%}; even is {self.even:.1%})"
        )


#: Options for a bot given by name (see :func:`~american_sniff.make_bot`).
BotOptions = Mapping[str, Any]


class _Seat:
    """How one player is asked for a move in one match: a bot, or a policy (batched)."""

    __slots__ = ("bot", "policy")

    def __init__(self, bot: Any, policy: Callable[[Any, Any], Any] | None) -> None:
        self.bot = bot
        self.policy = policy


def _check_player(name: str, player: object) -> None:
    if isinstance(player, str):
        if player not in BOTS:
            raise ValueError(f"{name}: no bot is named {player!r}; the bots are {', '.join(BOTS)}")
    elif not callable(getattr(player, "choose", None)) and not callable(player):
        raise TypeError(
            f"{name} must be a bot name, a bot (with choose(view)) or a policy, got {player!r}"
        )


def _seat(player: object, options: BotOptions, seed: int) -> _Seat:
    if isinstance(player, str):
        return _Seat(make_bot(player, seed=seed, **options), None)
    if callable(getattr(player, "choose", None)):
        return _Seat(player, None)
    return _Seat(None, player)  # type: ignore[arg-type]  # checked callable by _check_player


def evaluate(  # noqa: PLR0913 (the options are keyword-only, each with a default)
    a: object,
    b: object,
    *,
    players: int = 2,
    deals: int = 100,
    seed: int = 0,
    a_options: BotOptions | None = None,
    b_options: BotOptions | None = None,
    scaled: bool = False,
) -> Evaluation:
    """Play ``a`` against ``b`` over ``deals`` duplicate deals, each from every side.

    ``a_options`` and ``b_options`` are options for a player given as a bot
    name (for example ``{"playouts": 8}``). With ``scaled``, a policy is
    given scaled observations (see the module).

    :raises ValueError: if a bot name is unknown, ``players`` is not 2, 3 or
        4, ``deals`` is below 1, the seed is out of range, or a policy
        returns an action that is not legal.
    :raises TypeError: if a player is neither a bot name, nor a bot, nor a callable.
    """
    _check_player("a", a)
    _check_player("b", b)
    if type(players) is not int or players not in PLAYER_COUNTS:
        raise ValueError(f"American Sniff is played by 2, 3 or 4 players, got {players!r}")
    if type(deals) is not int or deals < 1:
        raise ValueError(f"deals must be a positive integer, got {deals!r}")
    sides = side_count(players)
    games: list[tuple[int, int]] = [
        (deal, side) for deal in match_seeds(seed, deals) for side in range(sides)
    ]
    states = [new_match(players, seed=deal) for deal, _ in games]
    seats: list[list[_Seat]] = []
    for deal, side in games:
        row = []
        for seat in range(players):
            mine = side_of(players, seat) == side
            player, options = (a, a_options) if mine else (b, b_options)
            row.append(_seat(player, options or {}, (deal + seat + 1) & MASK64))
        seats.append(row)
    _play_all(states, seats, scaled=scaled)
    outcomes = []
    for (deal, side), state in zip(games, states, strict=True):
        assert state.winner is not None  # _play_all plays every match to its end
        outcomes.append(MatchOutcome(deal, side, state.winner, state.scores))
    wins = sum(outcome.a_won for outcome in outcomes)
    low, high = wilson_interval(wins, len(outcomes))
    return Evaluation(players, deals, wins, len(outcomes), low, high, tuple(outcomes))


def _play_all(states: list[MatchState], seats: list[list[_Seat]], *, scaled: bool) -> None:
    """Play every match of ``states`` to its end, in place; policies are asked in batches."""
    live = [i for i, state in enumerate(states) if state.winner is None]
    while live:
        asking: dict[int, list[int]] = {}  # id of a policy -> the matches waiting on it
        policies: dict[int, Callable[[Any, Any], Any]] = {}
        for i in live:
            state = states[i]
            moves = legal_moves(state)
            seat = seats[i][state.turn]
            if len(moves) == 1:
                states[i] = apply(state, moves[0])
            elif seat.policy is None:
                states[i] = apply(state, seat.bot.choose(view_for(state, state.turn)))
            else:
                asking.setdefault(id(seat.policy), []).append(i)
                policies[id(seat.policy)] = seat.policy
        for key, waiting in asking.items():
            for i, move in zip(
                waiting, _ask(policies[key], [states[i] for i in waiting], scaled), strict=True
            ):
                states[i] = apply(states[i], move)
        live = [i for i in live if states[i].winner is None]


def _ask(policy: Callable[[Any, Any], Any], states: list[MatchState], scaled: bool) -> list[Move]:
    """The moves ``policy`` chooses for the seat to move of each of ``states``, in one call."""
    import numpy as np  # noqa: PLC0415 (policies need numpy; bots do not)

    from .observation import encode  # noqa: PLC0415
    from .observation import scaled as scale  # noqa: PLC0415

    vectors = [encode(view_for(s, s.turn)) for s in states]
    observations = np.array([scale(v) for v in vectors] if scaled else vectors, np.float32)
    masks = np.array([action_mask(s) for s in states], np.bool_)
    actions = np.asarray(policy(observations, masks)).reshape(-1)
    if len(actions) != len(states) or actions.dtype.kind not in "iu":
        raise ValueError(f"a policy must return {len(states)} integer actions, got {actions!r}")
    moves = []
    for row, (state, action) in enumerate(zip(states, actions.tolist(), strict=True)):
        if not 0 <= action < masks.shape[1] or not masks[row, action]:
            raise ValueError(f"a policy chose action {action}, which is not legal in its match")
        moves.append(move_of(state, action))
    return moves


@attrs.frozen
class Ladder:
    """What :func:`evaluate_ladder` found: one :class:`Evaluation` a reference bot, in order.

    :ivar results: ``(bot name, evaluation)`` pairs, in the order asked.
    """

    results: tuple[tuple[str, Evaluation], ...]

    def __getitem__(self, name: str) -> Evaluation:
        """The evaluation against the bot ``name``.

        :raises KeyError: if it was not played.
        """
        for bot, result in self.results:
            if bot == name:
                return result
        raise KeyError(name)

    def table(self) -> str:
        """The results as a Markdown table, a row a bot (see the module)."""
        lines = [
            "| against | players | matches | won | win rate | 95% interval | even |",
            "| --- | --- | --- | --- | --- | --- | --- |",
        ]
        lines.extend(
            f"| {bot} | {r.players} | {r.matches} | {r.wins} | {r.win_rate:.1%} | "
            f"{r.low:.1%} to {r.high:.1%} | {r.even:.1%} |"
            for bot, r in self.results
        )
        return "\n".join(lines)


def evaluate_ladder(  # noqa: PLR0913 (the options are keyword-only, each with a default)
    player: object,
    bots: tuple[str, ...] = LADDER,
    *,
    players: int = 2,
    deals: int = 100,
    seed: int = 0,
    options: BotOptions | None = None,
    scaled: bool = False,
) -> Ladder:
    """Play ``player`` against each bot of ``bots`` (by name) with :func:`evaluate`.

    Every bot meets ``player`` on the same ``deals`` duplicate deals from
    ``seed``, each from every side. ``options`` are ``player``'s, if it is a
    bot name; ``scaled`` as for :func:`evaluate`.

    :raises ValueError: as :func:`evaluate` raises, or if ``bots`` is empty
        or names a bot twice.
    :raises TypeError: as :func:`evaluate` raises.
    """
    if not bots or len(set(bots)) != len(bots):
        raise ValueError(f"bots must name each bot once, at least one, got {bots!r}")
    for bot in bots:
        _check_player("a bot of the ladder", bot)
    return Ladder(
        tuple(
            (
                bot,
                evaluate(
                    player,
                    bot,
                    players=players,
                    deals=deals,
                    seed=seed,
                    a_options=options,
                    scaled=scaled,
                ),
            )
            for bot in bots
        )
    )

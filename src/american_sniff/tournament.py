"""Tournaments between bots: seeded matches, rotating seats, a summary with confidence intervals.

A tournament plays ``matches`` whole matches between bot kinds named in the
bot registry (:data:`american_sniff.bots.BOTS`). Everything is derived from
one seed, match by match, so the results do not depend on how the matches are
spread over processes or machines:

* **Match seeds.** Match ``i`` (counting from 0) is dealt from the ``i + 1``-th
  output of SplitMix64 started at the tournament's seed (:mod:`american_sniff.rng`).
* **Bot seeds.** In a match dealt from ``s``, the bot in seat ``k`` is seeded
  ``s + k + 1`` (modulo 2**64), as in ``american-sniff demo``. Each match makes
  new bots, so no bot carries anything from one match to the next.
* **Seats.** The seats are grouped in *units*: each seat with 2 or 3 players,
  each partnership with 4 (seats 0+2 and 1+3; partners are always bots of the
  same kind). In match ``i``, unit ``u`` is played by kind
  ``bots[(u + i) % len(bots)]``. So over every ``len(bots)`` consecutive
  matches each unit is played by each kind exactly once: no kind keeps a seat
  (or a side) advantage. With more kinds than units, a kind sits some matches
  out; with fewer, a kind may hold several seats of one match (for example
  ``greedy, random, greedy`` with 3 players), and the rotation evens that out.
* **A lone legal move** (a forced draw or pass, or a single placement) is made
  without asking the bot: every bot of the registry returns it untouched,
  without using its generator, so this only saves building a view.

A kind *wins* a match when one of its seats is on the winning side. Its win
rate counts only the matches it played, with a 95% Wilson score interval.
"""

from __future__ import annotations

import concurrent.futures
import math
import multiprocessing
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

import attrs

from .bots import BOTS, RandomBot, make_bot
from .engine import apply, legal_moves, new_match
from .rng import MASK64, check_seed, next_u64
from .rules import PLAYER_COUNTS, side_count, side_of
from .state import RoundEnd
from .views import view_for

__all__ = [
    "BACKENDS",
    "BotStats",
    "MatchResult",
    "MatchSpec",
    "TournamentSummary",
    "lineup",
    "match_seeds",
    "play_match",
    "run_tournament",
    "schedule",
    "summarise",
    "wilson_interval",
]

#: Where the matches can run: ``"local"`` (this machine, ``jobs`` processes)
#: or ``"ray"`` (a Ray cluster; needs ``pip install american-sniff[ray]``).
BACKENDS = ("local", "ray")

#: Options for the bots, by bot name: ``{"search": {"playouts": 16}}``.
BotOptions = Mapping[str, Mapping[str, Any]]

#: A progress callback: called with (matches done, matches in all).
Progress = Callable[[int, int], None]


@attrs.frozen
class MatchSpec:
    """One match of a tournament: which match, its seed and who sits where.

    :ivar index: The match's number in the tournament, from 0.
    :ivar seed: The seed it is dealt from.
    :ivar lineup: The bot kind in each seat, seat 0 first.
    """

    index: int
    seed: int
    lineup: tuple[str, ...]


@attrs.frozen
class MatchResult:
    """What one match of a tournament gave.

    :ivar index: The match's number in the tournament, from 0.
    :ivar seed: The seed it was dealt from.
    :ivar lineup: The bot kind in each seat, seat 0 first.
    :ivar winner: The side that won (the seat with 2 or 3 players, the
        partnership with 4).
    :ivar scores: Each side's final score.
    :ivar rounds: The rounds played, the last one (cut short by the win) included.
    :ivar finished_rounds: The rounds that ended, by a domino or blocked.
    :ivar blocked_rounds: The rounds that ended blocked.
    :ivar points: The raw points each seat scored by its placements in the
        whole match (settlement not counted).
    """

    index: int
    seed: int
    lineup: tuple[str, ...]
    winner: int
    scores: tuple[int, ...]
    rounds: int
    finished_rounds: int
    blocked_rounds: int
    points: tuple[int, ...]

    @property
    def winners(self) -> frozenset[str]:
        """The bot kinds with a seat on the winning side."""
        players = len(self.lineup)
        return frozenset(
            name for seat, name in enumerate(self.lineup) if side_of(players, seat) == self.winner
        )


@attrs.frozen
class BotStats:
    """How one bot kind did in a tournament.

    :ivar name: The bot's registry name.
    :ivar matches: The matches it played (held at least one seat in).
    :ivar wins: The matches it won (one of its seats was on the winning side).
    :ivar low: The lower end of the 95% Wilson interval of its win rate.
    :ivar high: The upper end of that interval.
    :ivar points_per_round: The raw points one of its seats scored by
        placements in a round, on average over all its seats and rounds.
    """

    name: str
    matches: int
    wins: int
    low: float
    high: float
    points_per_round: float

    @property
    def win_rate(self) -> float:
        """``wins / matches`` (0 if it played no match)."""
        return self.wins / self.matches if self.matches else 0.0

    def to_dict(self) -> dict[str, Any]:
        """The stats as JSON values, as ``american-sniff simulate --json`` prints each bot's.

        The confidence interval is the list ``ci95``: ``[low, high]``.
        """
        return {
            "matches": self.matches,
            "wins": self.wins,
            "win_rate": self.win_rate,
            "ci95": [self.low, self.high],
            "points_per_round": self.points_per_round,
        }


@attrs.frozen
class TournamentSummary:
    """The summary of a tournament: per bot kind, and over all matches.

    :ivar players: The number of players in every match.
    :ivar matches: How many matches were played.
    :ivar seed: The tournament's seed.
    :ivar bots: The stats of each bot kind, in the order the kinds were given.
    :ivar rounds: The rounds played in all the matches.
    :ivar finished_rounds: The rounds that ended (by a domino or blocked).
    :ivar blocked_rounds: The rounds that ended blocked.
    """

    players: int
    matches: int
    seed: int
    bots: tuple[BotStats, ...]
    rounds: int
    finished_rounds: int
    blocked_rounds: int

    @property
    def blocked_rate(self) -> float:
        """The share of the rounds that ended which ended blocked.

        It is 0 when no round ended (every match was won in its first round).
        """
        return self.blocked_rounds / self.finished_rounds if self.finished_rounds else 0.0

    @property
    def rounds_per_match(self) -> float:
        """The mean number of rounds in a match (the last, cut-short round counted)."""
        return self.rounds / self.matches if self.matches else 0.0

    @property
    def wins(self) -> dict[str, int]:
        """Matches won by each bot kind."""
        return {bot.name: bot.wins for bot in self.bots}

    def to_dict(self) -> dict[str, Any]:
        """The summary as JSON values: what ``american-sniff simulate --json`` prints.

        It holds every field and every derived rate; ``bots`` maps each bot
        kind, in the order given, to :meth:`BotStats.to_dict`.
        """
        return {
            "players": self.players,
            "matches": self.matches,
            "seed": self.seed,
            "wins": self.wins,
            "bots": {bot.name: bot.to_dict() for bot in self.bots},
            "rounds": self.rounds,
            "rounds_per_match": self.rounds_per_match,
            "finished_rounds": self.finished_rounds,
            "blocked_rounds": self.blocked_rounds,
            "blocked_rate": self.blocked_rate,
        }

    def table(self) -> str:
        """The summary as a text table, one line per bot kind, then the totals."""
        header = ("bot", "matches", "wins", "win rate", "95% CI", "points/round")
        rows = [
            (
                bot.name,
                str(bot.matches),
                str(bot.wins),
                f"{bot.win_rate:.1%}",
                f"{bot.low:.1%} - {bot.high:.1%}",
                f"{bot.points_per_round:.2f}",
            )
            for bot in self.bots
        ]
        widths = [max(len(row[c]) for row in (header, *rows)) for c in range(len(header))]
        lines = [
            "  ".join(
                cell.ljust(width) if column == 0 else cell.rjust(width)
                for column, (cell, width) in enumerate(zip(row, widths, strict=True))
            )
            for row in (header, *rows)
        ]
        lines.insert(1, "  ".join("-" * width for width in widths))
        lines.append("")
        lines.append(
            f"{self.matches} matches of {self.players} players, seed {self.seed}: "
            f"{self.rounds_per_match:.2f} rounds per match, "
            f"{self.blocked_rate:.1%} of finished rounds blocked "
            f"({self.blocked_rounds} of {self.finished_rounds})"
        )
        return "\n".join(lines)


def wilson_interval(wins: int, trials: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """The Wilson score interval of a success rate (95% by default).

    >>> low, high = wilson_interval(75, 100)
    >>> round(low, 3), round(high, 3)
    (0.657, 0.825)

    :raises ValueError: if ``wins`` is not between 0 and ``trials``.
    """
    if not 0 <= wins <= trials:
        raise ValueError(f"wins must be from 0 to the number of trials, got {wins} of {trials}")
    if trials == 0:
        return 0.0, 1.0
    rate = wins / trials
    spread = z * z / trials
    centre = (rate + spread / 2) / (1 + spread)
    half = z * math.sqrt(rate * (1 - rate) / trials + spread / (4 * trials)) / (1 + spread)
    return max(0.0, centre - half), min(1.0, centre + half)


# -- the schedule --------------------------------------------------------------------


def lineup(bots: Sequence[str], players: int, index: int) -> tuple[str, ...]:
    """The bot kind in each seat of match ``index`` (see the module's notes).

    >>> lineup(["search", "greedy"], 4, 0), lineup(["search", "greedy"], 4, 1)
    (('search', 'greedy', 'search', 'greedy'), ('greedy', 'search', 'greedy', 'search'))
    >>> [lineup(["a", "b", "c"], 2, i) for i in range(3)]
    [('a', 'b'), ('b', 'c'), ('c', 'a')]
    """
    units = side_count(players)
    by_unit = [bots[(unit + index) % len(bots)] for unit in range(units)]
    return tuple(by_unit[side_of(players, seat)] for seat in range(players))


def match_seeds(seed: int, count: int) -> Iterator[int]:
    """The seeds of the first ``count`` matches: SplitMix64's outputs from ``seed``."""
    state = check_seed(seed)
    for _ in range(count):
        value, state = next_u64(state)
        yield value


def schedule(bots: Sequence[str], players: int, matches: int, seed: int) -> tuple[MatchSpec, ...]:
    """Every match of a tournament, in order.

    :raises ValueError: if a bot name is unknown or given twice, there is no
        bot, ``players`` is not 2, 3 or 4, ``matches`` is below 1 or the seed
        is out of range.
    """
    names = tuple(bots)
    if not names:
        raise ValueError("a tournament needs at least one bot")
    for name in names:
        if name not in BOTS:
            raise ValueError(f"no bot is named {name!r}; the bots are {', '.join(BOTS)}")
    if len(set(names)) != len(names):
        raise ValueError(f"each bot kind is named once, got {', '.join(names)}")
    if type(players) is not int or players not in PLAYER_COUNTS:
        raise ValueError(f"American Sniff is played by 2, 3 or 4 players, got {players!r}")
    if type(matches) is not int or matches < 1:
        raise ValueError(f"matches must be a positive integer, got {matches!r}")
    return tuple(
        MatchSpec(index, match_seed, lineup(names, players, index))
        for index, match_seed in enumerate(match_seeds(seed, matches))
    )


# -- playing -------------------------------------------------------------------------


def play_match(spec: MatchSpec, options: BotOptions | None = None) -> MatchResult:
    """Play one match of a tournament to its end.

    ``options`` gives each bot kind its options (see
    :func:`~american_sniff.make_bot`).

    >>> result = play_match(MatchSpec(0, 5, ("greedy", "random")))
    >>> result.winners, result.rounds
    (frozenset({'greedy'}), 9)
    """
    options = options or {}
    players = len(spec.lineup)
    bots = [
        make_bot(name, (spec.seed + seat + 1) & MASK64, **options.get(name, {}))
        for seat, name in enumerate(spec.lineup)
    ]
    # A random bot chooses from the legal moves alone: it is asked without a view.
    quick = [bot.choose_from_moves if type(bot) is RandomBot else None for bot in bots]
    state = new_match(players, seed=spec.seed)
    points = [0] * players
    finished = blocked = 0
    while state.winner is None:
        seat = state.turn
        moves = legal_moves(state)
        if len(moves) == 1:
            move = moves[0]
        else:
            pick = quick[seat]
            move = bots[seat].choose(view_for(state, seat)) if pick is None else pick(moves)
        state = apply(state, move)
        action = state.last_action
        assert action is not None  # every state after an apply has one
        points[seat] += action.points
        if action.round_result is not None:
            finished += 1
            blocked += action.round_result.end is RoundEnd.BLOCKED
    return MatchResult(
        index=spec.index,
        seed=spec.seed,
        lineup=spec.lineup,
        winner=state.winner,
        scores=state.scores,
        rounds=state.round,
        finished_rounds=finished,
        blocked_rounds=blocked,
        points=tuple(points),
    )


def _play_chunk(specs: Sequence[MatchSpec], options: BotOptions) -> list[MatchResult]:
    """Play several matches (one task for a worker process or a Ray worker)."""
    return [play_match(spec, options) for spec in specs]


def _chunks(specs: Sequence[MatchSpec], size: int) -> list[Sequence[MatchSpec]]:
    return [specs[start : start + size] for start in range(0, len(specs), size)]


def _run_local(specs: Sequence[MatchSpec], options: BotOptions, jobs: int) -> Iterator[MatchResult]:
    if jobs == 1:
        for spec in specs:
            yield play_match(spec, options)
        return
    # Small chunks keep the workers busy to the end; "spawn" starts clean
    # workers (forking a process that may hold threads is unsafe).
    size = max(1, min(16, len(specs) // (4 * jobs)))
    context = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
        chunks = _chunks(specs, size)
        for chunk in pool.map(_play_chunk, chunks, [options] * len(chunks)):
            yield from chunk


def _run_ray(
    specs: Sequence[MatchSpec], options: BotOptions, jobs: int, address: str | None
) -> Iterator[MatchResult]:
    try:
        import ray  # noqa: PLC0415 - an optional extra, loaded only for this backend
    except ImportError:
        raise RuntimeError("the ray backend needs Ray: pip install 'american-sniff[ray]'") from None
    started = not ray.is_initialized()
    if started:
        if address is None:
            ray.init(num_cpus=jobs, include_dashboard=False, log_to_driver=False)
        else:
            ray.init(address=address, log_to_driver=False)
    try:
        task = ray.remote(_play_chunk)
        size = max(1, min(64, len(specs) // (4 * jobs)))
        pending = [task.remote(chunk, dict(options)) for chunk in _chunks(specs, size)]
        for future in pending:  # in match order, whatever order they finish in
            yield from ray.get(future)
    finally:
        if started:
            ray.shutdown()


def run_tournament(
    bots: Sequence[str],
    *,
    players: int,
    matches: int,
    seed: int,
    jobs: int = 1,
    options: BotOptions | None = None,
    backend: str = "local",
    address: str | None = None,
    progress: Progress | None = None,
) -> TournamentSummary:
    """Play a tournament and summarise it; the same seed gives the same summary.

    ``jobs`` is the number of worker processes (``"local"``), or the CPUs of
    the Ray instance started when ``backend="ray"`` and ``address`` is None.
    With an ``address`` the matches run on that Ray cluster (``"auto"``, or
    ``"ray://host:10001"``), whose workers must have this package installed.

    >>> summary = run_tournament(["greedy", "random"], players=2, matches=4, seed=1)
    >>> summary.wins
    {'greedy': 4, 'random': 0}

    :raises ValueError: if an argument is out of range (see :func:`schedule`),
        ``jobs`` is below 1 or the backend is unknown.
    :raises RuntimeError: if the ray backend is asked for but Ray is not installed.
    """
    specs = schedule(bots, players, matches, seed)
    if type(jobs) is not int or jobs < 1:
        raise ValueError(f"jobs must be a positive integer, got {jobs!r}")
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}; the backends are {', '.join(BACKENDS)}")
    options = dict(options or {})
    for name, bot_options in options.items():
        make_bot(name, 0, **bot_options)  # refuse bad options before any match is played
    if backend == "ray":
        stream = _run_ray(specs, options, jobs, address)
    else:
        stream = _run_local(specs, options, jobs)
    results = []
    for result in stream:
        results.append(result)
        if progress is not None:
            progress(len(results), len(specs))
    return summarise(results, tuple(bots), players, seed)


def summarise(
    results: Iterable[MatchResult], bots: Sequence[str], players: int, seed: int
) -> TournamentSummary:
    """The summary of the ``results`` of a tournament between ``bots``."""
    played = dict.fromkeys(bots, 0)
    won = dict.fromkeys(bots, 0)
    points = dict.fromkeys(bots, 0)
    seat_rounds = dict.fromkeys(bots, 0)
    count = rounds = finished = blocked = 0
    for result in results:
        count += 1
        rounds += result.rounds
        finished += result.finished_rounds
        blocked += result.blocked_rounds
        for name in set(result.lineup):
            played[name] += 1
        for name in result.winners:
            won[name] += 1
        for seat, name in enumerate(result.lineup):
            points[name] += result.points[seat]
            seat_rounds[name] += result.rounds
    stats = []
    for name in bots:
        low, high = wilson_interval(won[name], played[name])
        per_round = points[name] / seat_rounds[name] if seat_rounds[name] else 0.0
        stats.append(BotStats(name, played[name], won[name], low, high, per_round))
    return TournamentSummary(
        players=players,
        matches=count,
        seed=seed,
        bots=tuple(stats),
        rounds=rounds,
        finished_rounds=finished,
        blocked_rounds=blocked,
    )

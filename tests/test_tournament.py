"""Tournaments: the schedule, seat rotation, playing matches and the summary."""

from __future__ import annotations

import builtins
import json
import math
from collections import Counter
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from american_sniff import new_match
from american_sniff.rng import next_u64
from american_sniff.tournament import (
    MatchSpec,
    lineup,
    match_seeds,
    play_match,
    run_tournament,
    schedule,
    summarise,
    wilson_interval,
)

_KINDS = ("search", "greedy", "random")


@given(
    players=st.sampled_from([2, 3, 4]),
    kinds=st.integers(1, 3),
    start=st.integers(0, 1000),
)
def test_every_seat_is_played_by_every_kind_once_per_cycle(
    players: int, kinds: int, start: int
) -> None:
    """Over any len(bots) matches in a row, each seat gets each kind once; partners match."""
    bots = _KINDS[:kinds]
    seen = [
        Counter(lineup(bots, players, index)[seat] for index in range(start, start + kinds))
        for seat in range(players)
    ]
    for counts in seen:
        assert counts == Counter(bots)
    for index in range(start, start + kinds):
        seats = lineup(bots, players, index)
        if players == 4:  # partners are one kind; with two kinds or more, the sides differ
            assert seats[0] == seats[2]
            assert seats[1] == seats[3]
            assert (seats[0] != seats[1]) == (kinds > 1)


def test_the_lineups_for_three_players_and_two_kinds_even_out() -> None:
    """With 3 seats and 2 kinds a kind holds 2 seats, then 1: 3 each over two matches."""
    assert lineup(["a", "b"], 3, 0) == ("a", "b", "a")
    assert lineup(["a", "b"], 3, 1) == ("b", "a", "b")


def test_match_seeds_are_splitmix64_outputs_and_bot_seeds_follow_the_demo() -> None:
    """Match i is dealt from output i + 1 of SplitMix64; seat k's bot is seeded s + k + 1."""
    state = 7
    expected = []
    for _ in range(5):
        value, state = next_u64(state)
        expected.append(value)
    assert list(match_seeds(7, 5)) == expected
    specs = schedule(["greedy", "random"], 2, 5, 7)
    assert [spec.seed for spec in specs] == expected
    assert [spec.index for spec in specs] == [0, 1, 2, 3, 4]
    assert specs[1].lineup == ("random", "greedy")


def test_play_match_reports_the_match_as_played() -> None:
    """The result's winner, scores, rounds and points agree with a replay of the match."""
    spec = MatchSpec(3, 11, ("greedy", "random", "greedy", "random"))
    result = play_match(spec)
    assert result.index == 3
    assert result.seed == 11
    assert result.lineup == spec.lineup
    assert result.scores[result.winner] >= new_match(4, seed=11).target
    assert result.winners == {"greedy", "random"} - {spec.lineup[1 - result.winner]}
    assert 1 <= result.finished_rounds + 1 == result.rounds
    assert 0 <= result.blocked_rounds <= result.finished_rounds
    assert all(points % 5 == 0 and points >= 0 for points in result.points)
    assert play_match(spec) == result  # reproducible


def test_the_summary_counts_wins_matches_rounds_and_points() -> None:
    """Wins add up to the matches; each kind's stats come from its own seats."""
    summary = run_tournament(
        ["greedy", "random", "search"],
        players=2,
        matches=6,
        seed=3,
        options={"search": {"playouts": 2}},
    )
    assert summary.matches == 6
    assert sum(summary.wins.values()) == 6
    for bot in summary.bots:
        assert bot.matches == 4  # 3 kinds on 2 seats: each sits out one match in three
        assert bot.low <= bot.win_rate <= bot.high
        assert bot.points_per_round > 0
    assert summary.rounds >= 6
    assert summary.finished_rounds == summary.rounds - 6
    assert math.isclose(summary.rounds_per_match, summary.rounds / 6)
    doc = summary.to_dict()
    assert doc["matches"] == 6
    assert doc["wins"] == summary.wins
    assert json.loads(json.dumps(doc)) == doc
    assert "points/round" in summary.table()


def test_an_empty_summary_has_no_rates() -> None:
    """Summarising no results gives zeros and the widest interval, not a division by zero."""
    summary = summarise([], ["greedy"], 2, 1)
    assert summary.bots[0].win_rate == 0.0
    assert (summary.bots[0].low, summary.bots[0].high) == (0.0, 1.0)
    assert summary.blocked_rate == 0.0
    assert summary.rounds_per_match == 0.0


def test_the_same_seed_gives_the_same_summary_with_any_number_of_jobs() -> None:
    """Two worker processes give exactly what one process gives; another seed differs."""
    args: dict[str, Any] = {"players": 3, "matches": 6, "seed": 5}
    one = run_tournament(["greedy", "random"], jobs=1, **args)
    two = run_tournament(["greedy", "random"], jobs=2, **args)
    assert one == two
    assert run_tournament(["greedy", "random"], players=3, matches=6, seed=6) != one


def test_progress_is_reported_after_each_match() -> None:
    """The progress callback sees every count from 1 to the number of matches."""
    calls: list[tuple[int, int]] = []
    run_tournament(
        ["greedy"],
        players=2,
        matches=3,
        seed=1,
        progress=lambda done, total: calls.append((done, total)),
    )
    assert calls == [(1, 3), (2, 3), (3, 3)]


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"bots": []}, ValueError, "at least one bot"),
        ({"bots": ["clever"]}, ValueError, "no bot is named 'clever'"),
        ({"bots": ["greedy", "greedy"]}, ValueError, "each bot kind is named once"),
        ({"players": 5}, ValueError, "2, 3 or 4 players"),
        ({"matches": 0}, ValueError, "matches must be a positive integer"),
        ({"seed": -1}, ValueError, "seed"),
        ({"jobs": 0}, ValueError, "jobs must be a positive integer"),
        ({"backend": "cloud"}, ValueError, "unknown backend 'cloud'"),
        ({"options": {"greedy": {"playouts": 2}}}, TypeError, "does not take these options"),
        ({"options": {"search": {"playouts": -2}}}, ValueError, "playouts must be"),
    ],
)
def test_bad_tournaments_are_refused_before_any_match(
    kwargs: dict[str, Any], error: type[Exception], message: str
) -> None:
    """Each bad argument is named."""
    args: dict[str, Any] = {"bots": ["greedy"], "players": 2, "matches": 1, "seed": 1}
    args.update(kwargs)
    bots = args.pop("bots")
    with pytest.raises(error, match=message):
        run_tournament(bots, **args)


def test_wilson_interval() -> None:
    """Known values, the edges, and a refusal of impossible counts."""
    low, high = wilson_interval(50, 100)
    assert math.isclose(low, 0.4038, abs_tol=1e-4)
    assert math.isclose(high, 0.5962, abs_tol=1e-4)
    assert wilson_interval(0, 10)[0] == 0.0
    assert math.isclose(wilson_interval(10, 10)[1], 1.0)
    with pytest.raises(ValueError, match="wins must be from 0"):
        wilson_interval(11, 10)


def test_the_ray_backend_without_ray_says_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Asking for Ray where it is not installed names the extra to install."""
    real_import = builtins.__import__

    def no_ray(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "ray":
            raise ImportError("No module named 'ray'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_ray)
    with pytest.raises(RuntimeError, match=r"pip install 'american-sniff\[ray\]'"):
        run_tournament(["greedy"], players=2, matches=1, seed=1, backend="ray")


def test_the_ray_backend_gives_the_local_results() -> None:
    """On a local Ray instance, the same seed gives exactly the local summary."""
    pytest.importorskip("ray")
    args: dict[str, Any] = {"players": 2, "matches": 8, "seed": 9}
    local = run_tournament(["greedy", "random"], **args)
    remote = run_tournament(["greedy", "random"], backend="ray", jobs=2, **args)
    assert remote == local

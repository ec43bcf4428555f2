"""The evaluation harness (american_sniff.evaluation): duplicate deals, seats swapped, intervals."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import pytest

from american_sniff import GreedyBot, apply, legal_moves, make_bot, new_match, view_for
from american_sniff.evaluation import LADDER, Evaluation, evaluate, evaluate_ladder
from american_sniff.observation import scaled
from american_sniff.rules import side_of
from american_sniff.tournament import match_seeds, wilson_interval


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_bot_against_itself_wins_exactly_the_even_share(players: int) -> None:
    """Bots made by name are seeded by deal and seat: each deal plays out alike from every side."""
    result = evaluate("greedy", "greedy", players=players, deals=6, seed=3)
    sides = 2 if players != 3 else 3
    assert result.matches == 6 * sides
    assert result.win_rate == pytest.approx(1 / sides)
    assert result.even == pytest.approx(1 / sides)
    assert result.low < result.even < result.high


def test_the_schedule_is_duplicate_deals_from_every_side() -> None:
    """Each deal of the SplitMix64 stream is played once with a at each side."""
    result = evaluate("random", "greedy", players=3, deals=4, seed=9)
    deals = list(match_seeds(9, 4))
    assert [(o.seed, o.side) for o in result.outcomes] == [(d, s) for d in deals for s in range(3)]
    assert result.wins == sum(o.a_won for o in result.outcomes)


@pytest.mark.sweep
def test_random_is_clearly_below_greedy() -> None:
    """The random bot against the greedy one: the whole interval is below even."""
    result = evaluate("random", "greedy", deals=40, seed=1)
    assert result.high < 0.5
    flipped = evaluate("greedy", "random", deals=40, seed=1)
    assert flipped.wins == flipped.matches - result.wins  # the same matches, seen from b


@pytest.mark.sweep
def test_policies_are_players_too() -> None:
    """A random policy loses to greedy; a policy of its seat's view alone ties itself exactly."""
    np = pytest.importorskip("numpy")
    from american_sniff.envs.batched import RandomPolicy

    calls: list[int] = []

    def first_legal(observations: Any, masks: Any) -> Any:
        calls.append(len(masks))
        assert observations.shape == (len(masks), 375)
        return np.argmax(masks, axis=1)

    even = evaluate(first_legal, first_legal, players=4, deals=5, seed=2)
    assert even.win_rate == 0.5
    assert max(calls) > 1  # the matches waiting on the policy were asked together
    beaten = evaluate(RandomPolicy(seed=4), "greedy", deals=40, seed=5)
    assert beaten.high < 0.5
    # A bot object is a player as it is, and a policy may face it.
    mixed = evaluate(first_legal, GreedyBot(seed=1), deals=5, seed=2)
    assert isinstance(mixed, Evaluation)
    assert mixed.matches == 10


def test_a_policy_that_cheats_is_named() -> None:
    """A policy returning an illegal action, or the wrong count, gets a clear error."""
    np = pytest.importorskip("numpy")
    with pytest.raises(ValueError, match="not legal"):
        evaluate(lambda o, m: np.full(len(m), 449), "greedy", deals=1)
    with pytest.raises(ValueError, match="integer actions"):
        evaluate(lambda o, m: np.zeros(len(m) + 1, int), "greedy", deals=1)


def test_bot_options_and_summary() -> None:
    """Options reach bots made by name; the summary states the numbers."""
    result = evaluate("search", "greedy", deals=1, seed=4, a_options={"playouts": 2})
    assert result.matches == 2
    assert "of 2 matches" in result.summary()
    with pytest.raises(TypeError, match="does not take these options"):
        evaluate("greedy", "search", deals=1, b_options={"bogus": 1})


def test_misuse_is_refused() -> None:
    """Unknown bots, bad counts and non-players get clear errors."""
    with pytest.raises(ValueError, match="no bot is named"):
        evaluate("grandmaster", "greedy")
    with pytest.raises(TypeError, match="bot name, a bot"):
        evaluate(42, "greedy")
    with pytest.raises(ValueError, match="2, 3 or 4"):
        evaluate("greedy", "greedy", players=5)
    with pytest.raises(ValueError, match="deals"):
        evaluate("greedy", "greedy", deals=0)


def test_the_bot_tables_play_the_same_matches() -> None:
    """benchmarks/versus.py (the bot tables' tool) and evaluate() play the same matches."""
    path = Path(__file__).parent.parent / "benchmarks" / "versus.py"
    spec = importlib.util.spec_from_file_location("versus", path)
    assert spec is not None
    assert spec.loader is not None
    versus = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(versus)
    for players in (2, 4):
        result = evaluate("greedy", "random", players=players, deals=3, seed=11)
        theirs = [
            versus.play(("greedy", "random", players, deal, side))[0]
            for deal in versus.deal_seeds(11, 3)
            for side in (0, 1)
        ]
        assert [int(o.a_won) for o in result.outcomes] == theirs
        # (versus.py rounds z to 1.959964: the same interval to 1e-7.)
        low, high = versus.wilson(result.wins, result.matches)
        assert (low, high) == pytest.approx((result.low, result.high), abs=1e-7)


@pytest.mark.parametrize(
    ("wins", "matches", "low", "high"),
    [
        # Newcombe (1998), Statistics in Medicine 17:857, table I, method 3 (Wilson, no correction).
        (81, 263, 0.2553, 0.3662),
        (15, 148, 0.0624, 0.1605),
        (0, 20, 0.0, 0.1611),
        (1, 29, 0.0061, 0.1718),
    ],
)
def test_the_interval_is_wilsons_on_published_values(
    wins: int, matches: int, low: float, high: float
) -> None:
    """The harness's 95% interval matches the published Wilson intervals to four places."""
    result = Evaluation(2, matches // 2, wins, matches, *wilson_interval(wins, matches), ())
    assert (round(result.low, 4), round(result.high, 4)) == (low, high)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_duplicate_deals_really_swap_seats(players: int) -> None:
    """Each match is the deal played with a at its side's seats and b at the others'.

    Every match is replayed by hand, each seat's bot made as the module says,
    and must end with the same scores; each deal is played from every side.
    """
    result = evaluate("greedy", "random", players=players, deals=2, seed=7)
    for outcome in result.outcomes:
        bots = [
            make_bot(
                "greedy" if side_of(players, seat) == outcome.side else "random",
                seed=(outcome.seed + seat + 1) % 2**64,
            )
            for seat in range(players)
        ]
        state = new_match(players, seed=outcome.seed)
        while state.winner is None:
            moves = legal_moves(state)
            move = (
                moves[0]
                if len(moves) == 1
                else bots[state.turn].choose(view_for(state, state.turn))
            )
            state = apply(state, move)
        assert (state.winner, state.scores) == (outcome.winner, outcome.scores)
    by_deal: dict[int, list[int]] = {}
    for outcome in result.outcomes:
        by_deal.setdefault(outcome.seed, []).append(outcome.side)
    sides = 3 if players == 3 else 2
    assert all(sorted(held) == list(range(sides)) for held in by_deal.values())
    assert len(by_deal) == 2


def test_the_ladder() -> None:
    """evaluate_ladder plays each bot on the same deals; its table has a row a bot."""
    ladder = evaluate_ladder("greedy", ("random", "greedy"), players=3, deals=2, seed=5)
    assert [bot for bot, _ in ladder.results] == ["random", "greedy"]
    assert ladder["greedy"].win_rate == pytest.approx(1 / 3)
    assert ladder["random"] == evaluate("greedy", "random", players=3, deals=2, seed=5)
    rows = ladder.table().splitlines()
    assert len(rows) == 4
    assert rows[3].startswith("| greedy | 3 | 6 | 2 | 33.3% |")
    with pytest.raises(KeyError):
        ladder["expert"]
    assert LADDER == ("random", "greedy", "medium", "expert")
    with pytest.raises(ValueError, match="each bot once"):
        evaluate_ladder("greedy", ("random", "random"))
    with pytest.raises(ValueError, match="each bot once"):
        evaluate_ladder("greedy", ())
    with pytest.raises(ValueError, match="no bot is named"):
        evaluate_ladder("greedy", ("random", "grandmaster"))


def test_a_policy_can_be_given_scaled_observations() -> None:
    """With scaled=True a policy sees observation.scaled's numbers (float32), else encode's."""
    np = pytest.importorskip("numpy")
    seen: list[Any] = []

    def first_legal(observations: Any, masks: Any) -> Any:
        seen.append(np.array(observations))
        return np.argmax(masks, axis=1)

    raw = evaluate(first_legal, "greedy", deals=1, seed=3)
    shown_raw = seen[:]
    seen.clear()
    scaled_result = evaluate(first_legal, "greedy", deals=1, seed=3, scaled=True)
    assert scaled_result.outcomes == raw.outcomes  # (the policy ignores what it sees)
    for before, after in zip(shown_raw, seen, strict=True):
        expected = np.array([scaled(tuple(int(x) for x in row)) for row in before], np.float32)
        assert (after == expected).all()
    assert max(float(a.max()) for a in seen) <= 1.2 < max(float(b.max()) for b in shown_raw)

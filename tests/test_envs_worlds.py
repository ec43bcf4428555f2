"""The worlds of an information state in the OpenSpiel game: american_sniff.envs._worlds.

These run without OpenSpiel: the game's kernel replays the worlds' histories.
The sampler is checked against an independent enumeration that knows nothing
of voids or arrivals: it tries every way the hidden chance outcomes could have
gone and keeps those whose replay is legal and shows the player what it saw.
"""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter

import pytest

from american_sniff.engine import new_match
from american_sniff.envs._kernel import CHANCE, TERMINAL, Kernel
from american_sniff.envs._worlds import Worlds
from american_sniff.moves import Place
from american_sniff.observation import encode_information_state, information_state
from american_sniff.state import MatchState
from american_sniff.tiles import ALL_TILES
from american_sniff.views import view_for

_MAX = 10_000


def _play(players: int, seed: int, steps: int) -> tuple[MatchState, Kernel, list[int]]:
    """A match of random play (chance included) for at most ``steps`` actions."""
    rng = random.Random(seed)
    blank = new_match(players, seed=0)
    kernel = Kernel(players, _MAX, blank)
    history: list[int] = []
    for _ in range(steps):
        if kernel.player == TERMINAL:
            break
        actions = kernel.chance_actions() if kernel.player == CHANCE else kernel.legal_actions()
        action = rng.choice(actions)
        history.append(action)
        kernel.apply(action)
    return blank, kernel, history


def _replay(players: int, blank: MatchState, history: list[int]) -> Kernel:
    """The kernel after ``history``; raises if an action is not legal."""
    kernel = Kernel(players, _MAX, blank)
    for action in history:
        actions = kernel.chance_actions() if kernel.player == CHANCE else kernel.legal_actions()
        assert action in actions
        kernel.apply(action)
    return kernel


def _seen(kernel: Kernel, player: int) -> tuple[str, int]:
    """What ``player`` sees of the kernel's match, and who acts."""
    return information_state(view_for(kernel.state(), player)), kernel.player


def _round_start(players: int, blank: MatchState, history: list[int]) -> int:
    """Where the round under way begins: the last action at which a deal began."""
    kernel = Kernel(players, _MAX, blank)
    start, was_dealing = 0, False
    for i, action in enumerate(history):
        if kernel.dealing and not was_dealing:
            start = i
        was_dealing = kernel.dealing
        kernel.apply(action)
    return len(history) if kernel.dealing and not was_dealing else start


def _chance_steps(start: Kernel, steps: list[int]) -> list[tuple[str, int]]:
    """Each action of the round: ("deal", seat), ("draw", seat), or ("other", -1)."""
    kernel = start.copy()
    size = kernel.deal_size // kernel.players
    kinds = []
    for action in steps:
        if kernel.dealing and not kernel.lot_due:
            kinds.append(("deal", len(kernel.deal) // size))
        elif kernel.drawing:
            kinds.append(("draw", kernel.state().turn))
        else:
            kinds.append(("other", -1))
        kernel.apply(action)
    return kinds


def _key(kinds: list[tuple[str, int]], steps: list[int], player: int) -> tuple[object, ...]:
    """A world's chance outcomes of the round: each other seat's deal (a set), then the draws."""
    deals: dict[int, list[int]] = {}
    for (kind, seat), action in zip(kinds, steps, strict=True):
        if kind == "deal" and seat != player:
            deals.setdefault(seat, []).append(action)
    draws = tuple(a for (kind, _), a in zip(kinds, steps, strict=True) if kind == "draw")
    return tuple(tuple(sorted(deals[s])) for s in sorted(deals)), draws


def _placed(kernel: Kernel) -> dict[int, list[int]]:
    """The tiles each seat placed this round."""
    placed: dict[int, list[int]] = {seat: [] for seat in range(kernel.players)}
    for action in kernel.state().history:
        if isinstance(action.move, Place):
            placed[action.seat].append(action.move.tile.index)
    return placed


def _draw_counts(kinds: list[tuple[str, int]]) -> Counter[int]:
    return Counter(seat for kind, seat in kinds if kind == "draw")


def _tries(kernel: Kernel, kinds: list[tuple[str, int]], player: int) -> int:
    """How many worlds the brute force tries (to keep its positions small)."""
    hands = kernel.state().hands
    placed = _placed(kernel)
    unknown = len(ALL_TILES) - sum(map(len, placed.values())) - len(hands[player])
    draws = _draw_counts(kinds)
    total = 1
    for seat in range(kernel.players):
        if seat != player:
            total *= math.comb(unknown, len(hands[seat]))
            total *= math.perm(len(placed[seat]) + len(hands[seat]), draws[seat])
            unknown -= len(hands[seat])
    return total


def _enumerate(
    players: int, blank: MatchState, history: list[int], player: int
) -> set[tuple[object, ...]]:
    """Every world, by brute force, as its :func:`_key`.

    Each split of the unknown tiles among the other hands and the stock, and
    each choice of which tiles each seat drew (in order), is replayed; a world
    is kept if its replay is legal and shows ``player`` what the real one did.
    """
    round_start = _round_start(players, blank, history)
    start = _replay(players, blank, history[:round_start])
    steps = history[round_start:]
    kinds = _chance_steps(start, steps)
    real = _replay(players, blank, history)
    seen = _seen(real, player)
    hands = real.state().hands
    placed = _placed(real)
    draws = _draw_counts(kinds)
    others = [seat for seat in range(players) if seat != player]
    unknown = set(range(len(ALL_TILES))) - {t.index for t in hands[player]}
    unknown -= {t for tiles in placed.values() for t in tiles}
    found = set()

    def splits(seats: list[int], pool: set[int]) -> list[list[set[int]]]:
        if not seats:
            return [[]]
        return [
            [set(hand), *rest]
            for hand in itertools.combinations(sorted(pool), len(hands[seats[0]]))
            for rest in splits(seats[1:], pool - set(hand))
        ]

    for held in splits(others, unknown):
        choices = []
        for seat, hand in zip(others, held, strict=True):
            owned = set(placed[seat]) | hand
            choices.append(
                [(seat, owned - set(d), d) for d in itertools.permutations(owned, draws[seat])]
            )
        for choice in itertools.product(*choices):
            world = list(steps)
            dealt = {seat: sorted(deal) for seat, deal, _ in choice}
            drawn = {seat: list(d) for seat, _, d in choice}
            for i, (kind, seat) in enumerate(kinds):
                if seat in dealt and kind == "deal":
                    world[i] = dealt[seat].pop(0)
                elif seat in drawn and kind == "draw":
                    world[i] = drawn[seat].pop(0)
            kernel = start.copy()
            for action in world:
                legal = (
                    kernel.chance_actions() if kernel.player == CHANCE else kernel.legal_actions()
                )
                if action not in legal:
                    break
                kernel.apply(action)
            else:
                if _seen(kernel, player) == seen:
                    found.add(_key(kinds, world, player))
    return found


def _small_position(seed: int) -> tuple[int, MatchState, list[int], int]:
    """A position late in a round of random play, with few worlds for the brute force."""
    players = 2 + seed % 3
    rng = random.Random(seed)
    blank = new_match(players, seed=0)
    kernel = Kernel(players, _MAX, blank)
    history: list[int] = []
    player = rng.randrange(players)
    while kernel.player != TERMINAL:
        actions = kernel.chance_actions() if kernel.player == CHANCE else kernel.legal_actions()
        action = rng.choice(actions)
        history.append(action)
        kernel.apply(action)
        if kernel.player >= 0 and rng.random() < 0.3:
            start = _round_start(players, blank, history)
            kinds = _chance_steps(_replay(players, blank, history[:start]), history[start:])
            if 1 < _tries(kernel, kinds, player) <= 4000:
                return players, blank, history, player
    raise AssertionError("no small position")  # pragma: no cover


def _chi_squared_p(counts: list[int], total: int) -> float:
    """The p-value of counts against equal probabilities (Wilson-Hilferty's approximation)."""
    expected = total / len(counts)
    statistic = sum((c - expected) ** 2 / expected for c in counts)
    df = len(counts) - 1
    z = ((statistic / df) ** (1 / 3) - (1 - 2 / (9 * df))) / math.sqrt(2 / (9 * df))
    return 0.5 * math.erfc(z / math.sqrt(2))


def _sampled_keys(
    position: tuple[int, MatchState, list[int], int], n: int, seed: int
) -> tuple[Worlds, Counter[tuple[object, ...]]]:
    """``n`` worlds drawn at ``position`` (players, blank, history, player), by their keys."""
    players, blank, history, player = position
    worlds = Worlds(players, _MAX, blank, history, player)
    start = worlds.round_start
    kinds = _chance_steps(_replay(players, blank, history[:start]), history[start:])
    rng = random.Random(seed)
    keys = Counter(_key(kinds, worlds.sample(rng)[start:], player) for _ in range(n))
    return worlds, keys


@pytest.mark.sweep
@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_sampled_world_is_consistent_with_what_the_player_saw(players: int) -> None:
    """Worlds from random positions replay legally, show the player the same, and keep the voids.

    The world's history is its own: replaying it gives the world (the same
    player to move, the same information state, so the same perfect-recall
    vector), and the seats' hands show none of the values they are known to lack.
    """
    rng = random.Random(players)
    worlds_seen = changed = 0
    for _ in range(25):
        blank, real, history = _play(players, rng.randrange(10**6), rng.randrange(1, 600))
        for player in range(players):
            worlds = Worlds(players, _MAX, blank, history, player)
            assert worlds.history == history
            view = view_for(real.state(), player)
            for _ in range(4):
                world = worlds.sample(rng)
                assert world[: worlds.round_start] == history[: worlds.round_start]
                kernel = _replay(players, blank, world)
                assert _seen(kernel, player) == _seen(real, player)
                assert encode_information_state(view_for(kernel.state(), player)) == (
                    encode_information_state(view)
                )
                state = kernel.state()
                for seat, hand in enumerate(state.hands):
                    assert len(hand) == len(real.state().hands[seat])
                    assert not any({t.low, t.high} & view.voids[seat] for t in hand), seat
                worlds_seen += 1
                changed += world != history
    assert worlds_seen == 25 * players * 4
    assert changed > worlds_seen // 2  # the hidden tiles really are dealt again


@pytest.mark.parametrize("seed", [6, 13, 21, 22, 26, 28])
def test_the_worlds_are_exactly_those_of_a_brute_force(seed: int) -> None:
    """On small positions, the count is the brute force's and every sampled world is among its own.

    (The brute force knows nothing of voids: it replays every way the hidden
    chance outcomes could have gone. These positions are ones where the voids
    and the draws rule many of them out.)
    """
    players, blank, history, player = _small_position(seed)
    every = _enumerate(players, blank, history, player)
    worlds, keys = _sampled_keys((players, blank, history, player), 300, seed)
    start = worlds.round_start
    kinds = _chance_steps(_replay(players, blank, history[:start]), history[start:])
    assert _key(kinds, history[start:], player) in every  # the real world
    assert worlds.count() == len(every)
    assert set(keys) <= every
    assert len(every) < _tries(_replay(players, blank, history), kinds, player)


@pytest.mark.sweep
@pytest.mark.parametrize("seed", [6, 13, 22, 26, 28])
def test_the_sampling_is_uniform_by_a_chi_squared_test(seed: int) -> None:
    """The worlds drawn are uniform over the brute force's worlds (fixed seeds: deterministic)."""
    players, blank, history, player = _small_position(seed)
    every = sorted(_enumerate(players, blank, history, player), key=repr)
    draws = 100 * len(every)
    _, keys = _sampled_keys((players, blank, history, player), draws, seed)
    assert set(keys) <= set(every)
    assert _chi_squared_p([keys[k] for k in every], draws) > 0.001


def test_the_chi_squared_test_sees_a_bias() -> None:
    """The test above fails a sampler that makes some worlds 1.5 times as likely as others."""
    assert _chi_squared_p([120] * 10 + [80] * 10, 2000) < 0.001
    assert _chi_squared_p([51, 49, 50, 50, 48, 52], 300) > 0.5


def test_a_finished_match_has_one_world_the_real_one() -> None:
    """Once the match is over, the only world is the real history."""
    blank, kernel, history = _play(2, 11, 100_000)
    assert kernel.player == TERMINAL
    worlds = Worlds(2, _MAX, blank, history, 0)
    assert worlds.count() == 1
    assert worlds.sample(random.Random(1)) == history


@pytest.mark.sweep
@pytest.mark.parametrize("players", [2, 4])
def test_worlds_during_the_deal_and_before_a_drawn_tile(players: int) -> None:
    """While a round is dealt, and while a draw waits for its tile, the worlds are consistent."""
    rng = random.Random(players)
    checked = set()
    for seed in range(60):
        blank, real, history = _play(players, seed, rng.randrange(1, 400))
        if not (real.dealing or real.drawing):
            continue
        checked.add("dealing" if real.dealing else "drawing")
        for player in range(players):
            worlds = Worlds(players, _MAX, blank, history, player)
            for _ in range(3):
                kernel = _replay(players, blank, worlds.sample(rng))
                assert (kernel.dealing, kernel.drawing) == (real.dealing, real.drawing)
                assert kernel.state().hands[player] == real.state().hands[player]
    assert checked == {"dealing", "drawing"}

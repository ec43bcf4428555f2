"""The worlds a player of the OpenSpiel game cannot tell apart, counted exactly and drawn uniformly.

A *world* of a player's information state is a way the chance nodes of the
round under way could have gone (the other seats' deals, the tiles they drew
unseen) such that replaying the real actions with them is legal play that
shows the player exactly what it saw: its own deal and draws, every public
action with who made it, the draws and the passes, the hand sizes, the table.
Every chance outcome of the game has the same probability, so every world
(its deal taken as one set per hand, its draws in order) is equally likely a
priori, and :class:`Worlds` draws them uniformly.

**What a world must satisfy.** A seat other than the player holds, over the
round, its dealt tiles and the tiles it drew. A draw the seat placed at once
is public (the tile placed is the tile drawn); any other draw is hidden. Each
tile the seat ever held (those it placed, those still in its hand) came with
one of the seat's *arrivals* (the deal, or one hidden draw), and the seat had
no legal placement at each of its draws and passes: every tile it held then
shows none of the values open then. That is a condition on each (tile,
arrival) pair: the tile avoids the values open at the seat's draws and passes
after the arrival (and, for a placed tile, before its placement, which must
come after the arrival). One more condition ties the seats together: with the
stock empty, the round goes on only while some seat holds a legal placement
(the rules declare the block at once), so if the player holds none, some other
hand must.

**Counting.** Arrivals of one seat with the same compatible tiles are
interchangeable, so they are grouped; a world is then an assignment of each
unknown tile to a group (or to the stock) that fills every group exactly,
times a number of orderings inside the groups that is the same for every
assignment. :class:`Worlds` counts the assignments by dynamic programming over
the tiles, with the groups' remaining room as the state, and draws one with
probability proportional to its completions: exactly uniform.

**Earlier rounds** keep their real chance outcomes: they ended with every hand
shown, their tiles are all back in the new deal, and they leave nothing to the
round under way but the public scores and opener.

The module is pure Python (no OpenSpiel): it replays the game's actions with
the game's own :class:`~american_sniff.envs._kernel.Kernel`.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from ..actions import ACTION_MOVES, DRAW_ACTION, PASS_ACTION
from ..moves import Place
from ..rules import HAND_SIZE
from ..state import MatchState
from ..tiles import ALL_TILES
from ._kernel import TERMINAL, Kernel

__all__ = ["Worlds"]

# The kinds of a round's steps.
_LOT, _DEAL, _MOVE, _DRAWN = range(4)
# Each tile's values as a mask (bit v for the value v).
_SHOWS = tuple(1 << t.low | 1 << t.high for t in ALL_TILES)
# The tile of each placement action.
_TILE_OF = tuple(m.tile.index for m in ACTION_MOVES if isinstance(m, Place))


class Worlds:
    """The worlds of ``player``'s information state after ``history`` (see the module).

    :param players: The game's number of players.
    :param max_moves: The game's limit of actions.
    :param blank: The game's match before its first chance node.
    :param history: The actions so far, chance outcomes included (OpenSpiel's history).
    :param player: The seat whose information state it is.
    :raises ValueError: if ``history`` is not a legal sequence of actions.
    """

    #: Where the round under way begins in the history (its first chance node).
    round_start: int
    #: The history, as a list.
    history: list[int]

    def __init__(
        self, players: int, max_moves: int, blank: MatchState, history: Sequence[int], player: int
    ) -> None:
        self.history = list(history)
        self._player = player
        kernel = Kernel(players, max_moves, blank)
        size = HAND_SIZE[players]
        steps: list[tuple[int, int, int, int]] = []  # (kind, seat, action, values open)
        self.round_start = 0
        was_dealing = False
        for i, action in enumerate(self.history):
            if kernel.dealing:
                if not was_dealing:
                    self.round_start, steps = i, []
                if kernel.lot_due:
                    steps.append((_LOT, -1, action, 0))
                else:
                    steps.append((_DEAL, len(kernel.deal) // size, action, 0))
            elif kernel.drawing:
                steps.append((_DRAWN, kernel.state().turn, action, 0))
            else:
                state = kernel.state()
                steps.append((_MOVE, state.turn, action, state.layout.value_mask))
            was_dealing = kernel.dealing
            kernel.apply(action)
        if kernel.dealing and not was_dealing:  # a round has just ended: the next one's turn
            self.round_start, steps = len(self.history), []
        self._steps = steps
        self._memo: dict[tuple[int, tuple[int, ...], bool], int] = {}
        if kernel.player == TERMINAL:
            self._trivial = True  # nothing of the round is played any more
            return
        self._trivial = False
        self._work_out(kernel)

    def _work_out(self, kernel: Kernel) -> None:
        """The unknown tiles, the groups of arrivals, and which tile may go where."""
        steps, player = self._steps, self._player
        now = kernel.state()
        placed = {_TILE_OF[a] for k, _, a, _ in steps if k == _MOVE and a < DRAW_ACTION}
        unknown = sorted(set(range(len(ALL_TILES))) - placed - {t.index for t in now.hands[player]})
        # Each other seat's arrivals (the deal: -1; a hidden draw: its step), its draws and
        # passes (step, values open), and its placements of tiles of unknown arrival.
        arrivals: dict[int, list[int]] = {}
        moments: dict[int, list[tuple[int, int]]] = {}
        plays: list[tuple[int, int, int]] = []  # (seat, step, tile)
        self._deal_steps: dict[int, list[int]] = {}
        for i, (kind, seat, action, values) in enumerate(steps):
            if seat == player or seat < 0:
                continue
            arrivals.setdefault(seat, [])
            moments.setdefault(seat, [])
            if kind == _DEAL:
                self._deal_steps.setdefault(seat, []).append(i)
                arrivals[seat].append(-1)
            elif kind == _DRAWN:
                later = steps[i + 1] if i + 1 < len(steps) else None
                if later is None or later[0] != _MOVE or later[2] in (DRAW_ACTION, PASS_ACTION):
                    arrivals[seat].append(i)  # hidden: not placed at once
            elif action in (DRAW_ACTION, PASS_ACTION):
                moments[seat].append((i, values))
            elif steps[i - 1][0] != _DRAWN:
                plays.append((seat, i, _TILE_OF[action]))
        # Group each seat's arrivals by the items they may take. Items: the placed tiles of
        # unknown arrival first, then the unknown tiles.
        items = [(seat, tile) for seat, _, tile in plays] + [(-1, t) for t in unknown]
        groups: dict[tuple[int, frozenset[int]], list[int]] = {}
        for seat, own in arrivals.items():
            for arrival in own:
                fits = []
                for n, (owner, tile) in enumerate(items):
                    if owner == -1:
                        ok = all(not _SHOWS[tile] & v for at, v in moments[seat] if at > arrival)
                    elif owner == seat:
                        step = plays[n][1]
                        ok = arrival < step and all(
                            not _SHOWS[tile] & v for at, v in moments[seat] if arrival < at < step
                        )
                    else:
                        ok = False
                    if ok:
                        fits.append(n)
                groups.setdefault((seat, frozenset(fits)), []).append(arrival)
        self._groups = list(groups.items())
        self._items = items
        self._options = [
            [g for g, ((_, fits), _) in enumerate(self._groups) if n in fits]
            for n in range(len(items))
        ]
        self._room = tuple(len(slots) for _, slots in self._groups)
        # The block: with the stock empty and the round on, some hand holds a placement.
        open_now = now.layout.value_mask
        self._need_fit = (
            not kernel.dealing
            and not kernel.drawing
            and not kernel.left
            and not any(_SHOWS[t.index] & open_now for t in now.hands[player])
        )
        self._fits_now = [owner == -1 and bool(_SHOWS[t] & open_now) for owner, t in items]

    def count(self) -> int:
        """How many worlds there are (1 once the match is over: the real one)."""
        if self._trivial:
            return 1
        return self._count(0, self._room, not self._need_fit)

    def _count(self, n: int, room: tuple[int, ...], fitted: bool) -> int:
        """The ways to place items ``n`` on, with ``room`` left in the groups."""
        items = self._items
        if n == len(items):
            return int(fitted and not any(room))
        key = (n, room, fitted)
        memo = self._memo
        found = memo.get(key)
        if found is not None:
            return found
        total = 0
        fits = fitted or self._fits_now[n]
        for g in self._options[n]:
            if room[g]:
                total += self._count(n + 1, room[:g] + (room[g] - 1,) + room[g + 1 :], fits)
        if items[n][0] == -1 and len(items) - n > sum(room):  # the stock has room
            total += self._count(n + 1, room, fitted)
        memo[key] = total
        return total

    def sample(self, rng: random.Random) -> list[int]:
        """The history of one world, drawn uniformly (the real prefix before the round kept).

        :raises ValueError: if there is no world (the history was not of legal play).
        """
        if self._trivial:
            return self.history.copy()
        room = self._room
        fitted = not self._need_fit
        total = self._count(0, room, fitted)
        if total == 0:
            raise ValueError("no world is consistent with this information state")
        pick = rng.randrange(total)
        taken: list[list[int]] = [[] for _ in self._groups]
        items = self._items
        for n in range(len(items)):
            fits = fitted or self._fits_now[n]
            chosen = -1
            for g in self._options[n]:
                if room[g]:
                    after = room[:g] + (room[g] - 1,) + room[g + 1 :]
                    ways = self._count(n + 1, after, fits)
                    if pick < ways:
                        chosen, room, fitted = g, after, fits
                        break
                    pick -= ways
            if chosen < 0:  # the stock
                assert items[n][0] == -1
            else:
                taken[chosen].append(items[n][1])
        # Inside each group, the tiles go to its arrivals in a random order.
        world = self.history.copy()
        start = self.round_start
        deals: dict[int, list[int]] = {}
        for ((seat, _), arrivals), tiles in zip(self._groups, taken, strict=True):
            rng.shuffle(tiles)
            for arrival, tile in zip(arrivals, tiles, strict=True):
                if arrival < 0:
                    deals.setdefault(seat, []).append(tile)
                else:
                    world[start + arrival] = tile
        for seat, at in self._deal_steps.items():
            tiles = deals[seat]
            rng.shuffle(tiles)
            for i, tile in zip(at, tiles, strict=True):
                world[start + i] = tile
        return world

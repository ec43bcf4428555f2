"""The search bot: determinised Monte Carlo over the deals a view allows.

A seat cannot see the other hands or the stock, so the bot samples them: a
*determinisation* is a whole :class:`~american_sniff.MatchState` that agrees
with everything the view shows (the table, the scores, whose turn it is, this
seat's hand, every hand size and the stock size) and with what each of the
other seats' tiles is known not to show
(:func:`~american_sniff.bots.search.tile_voids`, read from the round's
history: a tile kept since before a draw keeps the voids known then).
Every way to fill those tile slots is equally likely:
:class:`~american_sniff.bots.Determiniser` counts them exactly and samples one
uniformly.

For each sampled deal the bot plays every legal move, then plays on for a few
placements with a fast default policy for every seat (greedy by default), and
scores the outcome for its own side. The move with the best total over all the samples is
chosen; each move is tried on the same deals, which makes the comparison fair
with few samples. With pruning, the moves clearly behind leave the search as
it goes, and a clear choice ends early.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping
from types import MappingProxyType
from typing import ClassVar

import attrs

from ..moves import Move, Place
from ..rng import check_seed
from ..rules import placement_points, side_count, side_of
from ..state import Action, MatchState
from ..views import PlayerView
from ._infer import DealPool, inferred_deals, play_deals, view_tables
from ._kernel import (
    count_deals,
    deal_tables,
    outcome,
    racing,
    sample_world,
    slot_voids,
)
from ._seeded import decision_rng_of
from .base import moves_to_choose_from
from .endgame import endgame_values

__all__ = [
    "ENDGAME_NODES",
    "ROLLOUT_POLICIES",
    "SETTLE_WEIGHTS",
    "Determiniser",
    "SearchBot",
    "playout_value",
    "tile_voids",
    "winning_moves",
]

#: How many nodes of the exact endgame each playout of the budget buys, by the
#: number of players. With four players each sampled split is a guess, and 16
#: nodes a playout gave up about 2.5 points a decision against perfect play of
#: what the view allows; 64 give up about 1, for no measurable CPU time per
#: decision where the search runs in C (without the C extension such a
#: decision costs about three times as much; ``benchmarks/bots-results.md``).
ENDGAME_NODES: Mapping[int, int] = MappingProxyType({2: 64, 4: 64})

#: How much the settlement that the hands would cost counts when a playout is
#: cut short in a round, by the number of players (1: in full). With two
#: players a quarter of it plays best: the round is far from over after a few
#: placements, and its full weight made the bot shed heavy tiles too eagerly
#: (``benchmarks/bots-results.md``); with three and four, in full.
SETTLE_WEIGHTS: Mapping[int, float] = MappingProxyType({2: 0.25, 3: 1.0, 4: 1.0})

#: With ``prune``, how many playouts go between two looks at which moves are
#: clearly behind (the first look comes after as many).
_RACE_EVERY = 8

#: The default policies a playout can use, by name.
ROLLOUT_POLICIES = ("greedy", "random")

#: A split of one group of tiles: how many go to each location.
_Split = tuple[int, ...]


def tile_voids(view: PlayerView) -> tuple[tuple[frozenset[int], ...], ...]:
    """For each seat, the values each of its hidden tiles is known not to show, oldest first.

    :attr:`PlayerView.voids <american_sniff.PlayerView.voids>` knows one set per
    seat, and forgets what was known before a draw: the drawn tile may show
    anything. But the tiles the seat held before the draw still show none of
    the values it could not match then. This reads the round's history and
    keeps one set per tile *slot* of each other seat (the view's own seat
    gets an empty tuple):

    * a round starts with one slot per dealt tile, knowing nothing;
    * when a seat draws or passes, it holds nothing that matches a value
      then open: every slot it holds learns those values; a draw then adds a
      new slot that knows nothing yet;
    * a placement right after the seat's own draw is of the tile just drawn:
      the newest slot goes;
    * a placement by choice could be of any slot whose values allow the
      tile; the *oldest* such slot goes. The slots' sets are nested (a slot
      learns everything a newer one learns), so this keeps the weakest
      knowledge that agrees with the facts: nothing is ever excluded that the
      seat may hold.

    The newest slot's set is the seat's :attr:`~american_sniff.PlayerView.voids`
    entry, or a superset of it; older slots often know more.

    >>> from american_sniff import new_match, view_for
    >>> mine, theirs = tile_voids(view_for(new_match(2, seed=1), 0))
    >>> mine, theirs == (frozenset(),) * 7
    ((), True)
    """
    return slot_voids(view.players, view.seat, view.history)


class Determiniser:
    """Samples whole match states that agree with one :class:`~american_sniff.PlayerView`.

    The tiles the view does not show (not in the seat's hand, not on the
    table) lie in the other hands and the stock. A tile may lie in seat ``j``'s
    hand only if neither of its halves is in ``view.voids[j]``; it may always
    lie in the stock. Among all the ways to share the hidden tiles out that
    respect this and the hand and stock sizes, :meth:`sample` picks one
    uniformly (it counts them exactly), then puts the stock in a uniformly
    random order.

    With ``history=True`` (the default) each hidden tile of a seat must also
    agree with what is known of one of that seat's tile slots
    (:func:`~american_sniff.bots.search.tile_voids`: a tile kept since
    before a draw keeps the voids known then); each slot takes one tile, and
    every way to fill the slots is equally likely. ``history=False`` uses the seat-wide voids only.

    A sampled state starts at the view's moment: it has the view's table,
    scores, turn, round, opener and drawn tile, an empty action history, seed
    0 and a sampled generator state for the deals of later rounds. The engine
    plays on from it like from any state (but :func:`~american_sniff.validate_state`
    would refuse it: its table has no history).

    >>> from american_sniff import new_match, view_for
    >>> state = new_match(3, seed=5)
    >>> world, rng = Determiniser(view_for(state, 0)).sample(7)
    >>> world.hands[0] == state.hands[0], [len(h) for h in world.hands], world.stock_size
    (True, [6, 6, 6], 10)

    :ivar count: How many ways to share the hidden tiles agree with the view
        (the stock's order not counted): with ``history=False``, ways to share
        them among the hands and the stock; with the history, among the
        kinds of tile slot (slots that know the same) and the stock, so a hand
        may be counted once for each way its tiles fill its slots.
    :raises TypeError: if ``view`` is not a :class:`~american_sniff.PlayerView`.
    :raises ValueError: if no deal agrees with the view (the view is not one
        that a real match can show), or the match is over.
    """

    __slots__ = ("_capacities", "_choices", "_groups", "_others", "_view", "count")

    count: int

    def __init__(self, view: PlayerView, *, history: bool = True) -> None:
        if not isinstance(view, PlayerView):
            raise TypeError(f"Determiniser needs a PlayerView, got {view!r}")
        if view.winner is not None:
            raise ValueError("the match is over: there is nothing hidden to sample")
        self._setup(view, tile_voids(view) if history else ())

    @classmethod
    def _of(cls, view: PlayerView, slots: tuple[tuple[frozenset[int], ...], ...]) -> Determiniser:
        """A determiniser of ``view``, a view of a match going on, with its ``slots`` known."""
        self = cls.__new__(cls)
        self._setup(view, slots)
        return self

    def _setup(self, view: PlayerView, slots: tuple[tuple[frozenset[int], ...], ...]) -> None:
        """Count the deals that agree with ``view`` and the slots (:func:`tile_voids`, or none)."""
        self._view = view
        self._others, capacities, self._groups = deal_tables(view, slots)
        self._capacities = capacities
        self._choices: dict[tuple[int, tuple[int, ...]], tuple[list[_Split], list[int]]] = {}
        self.count = count_deals(self._groups, 0, capacities, self._choices)
        if self.count == 0:
            raise ValueError(
                "no deal agrees with the view: the seats' known voids leave too few "
                "tiles for their hands"
            )

    # -- sampling ------------------------------------------------------------

    def sample(self, rng: int) -> tuple[MatchState, int]:
        """One determinisation, drawn with the SplitMix64 state ``rng``: ``(state, new_rng)``.

        The draws, in order: for each group of tiles that may lie in the same
        places (groups sorted by those places), a ``below`` over the weighted
        ways to split it, and a shuffle of its tiles; then a shuffle of the
        stock; then one output as the generator state for later rounds.
        """
        return sample_world(
            self._view, self._groups, self._choices, self._capacities, self._others, rng
        )


# -- playouts ----------------------------------------------------------------------


def playout_value(start: MatchState, end: MatchState, seat: int, *, settle: float = 1.0) -> float:
    """How good ``end`` is for ``seat``'s side, compared with ``start``.

    If a side won the match in between, the value is ``2 * target`` when it
    is ``seat``'s side and ``-2 * target`` otherwise, however many points
    the win took: a won match is worth the same however it is won, so a
    playout never prefers a bigger, later win to a win now.

    Otherwise it is the points ``seat``'s side gained from ``start`` to
    ``end`` less the mean of what the other sides gained. A round that ended
    counts its settlement. A round still going at ``end`` counts what
    settlement would take if it ended there (each hand's pips rounded,
    :func:`~american_sniff.round_hand`, taken from its side), ``settle``
    times: in full by default, not at all with 0 (or False). So shedding
    heavy tiles counts, not only the points scored. (The search bot weighs
    it by :data:`~american_sniff.bots.search.SETTLE_WEIGHTS`.)

    :raises ValueError: if ``settle`` is negative or not a finite number.
    """
    if not isinstance(settle, (int, float)) or not 0 <= settle < math.inf:
        raise ValueError(f"settle must be a finite number from 0 up, got {settle!r}")
    return outcome(start, end, seat, float(settle))


def winning_moves(view: PlayerView) -> tuple[Move, ...]:
    """The legal moves of ``view`` that win the match at once, in ``legal_moves`` order.

    A placement wins when the points it scores take its side to the target.

    >>> from american_sniff import new_match, view_for
    >>> winning_moves(view_for(new_match(2, seed=1), 1))
    ()
    """
    side = side_of(view.players, view.seat)
    need = view.target - view.scores[side]
    wins: list[Move] = []
    for move in view.legal_moves:
        if type(move) is Place:
            points = placement_points(view.layout.place(move.tile, move.at).end_sum)
            if points and points >= need:
                wins.append(move)
    return tuple(wins)


@attrs.define(eq=False)
class SearchBot:
    """Determinised Monte Carlo: tries each legal move on sampled deals, keeps the best.

    A lone legal move is returned at once. A placement that wins the match at
    once is always played (the first such in ``view.legal_moves`` order, see
    :func:`~american_sniff.bots.winning_moves`): a won match is worth the same however it is won.
    Otherwise, for each of ``playouts`` deals sampled by
    :class:`~american_sniff.bots.Determiniser` (or as many as fit in
    ``seconds``), every legal move is played, then the game goes on with the
    ``rollout`` policy for every seat for ``depth`` more placements (or to the
    end of the round); :func:`~american_sniff.bots.search.playout_value`
    scores the result for this seat's side, the settlement that the hands
    would cost at the cut weighed by
    :data:`~american_sniff.bots.search.SETTLE_WEIGHTS` (a quarter with two
    players). The move with the best total wins; on a tie, the first in
    ``view.legal_moves`` order. With ``prune``, the moves clearly behind
    leave the search as it goes, and a clear choice ends early.

    Once the stock is empty, with two or four players, the bot searches the
    rest of the round exactly instead
    (:func:`~american_sniff.bots.endgame.endgame_values`): with two players
    the view then shows every tile, so this is exact play to the round's end;
    with four, up to ``playouts`` deals are sampled and each is searched
    exactly. The search may use ``playouts * 64`` nodes (positions) in all,
    with two players or four
    (:data:`~american_sniff.bots.search.ENDGAME_NODES`; and no more than
    ``seconds``, with a time budget); if not even one deal fits, the bot
    samples and plays out as above.

    The bot keeps no state between choices. Each choice draws from a
    generator started at :func:`~american_sniff.bots.decision_rng` of the
    seed and the view, so with a playout budget (``seconds=None``) a choice
    is a pure function of the bot's fields and the view, and ``eval(repr(bot))``
    rebuilds the bot exactly, at any moment of a match. A time budget makes
    the number of samples depend on the machine, so the same seed may choose
    differently.

    >>> from american_sniff import new_match, view_for
    >>> bot = SearchBot(seed=3, playouts=8)
    >>> bot
    SearchBot(seed=3, playouts=8, seconds=None, rollout='greedy', depth=4)
    >>> state = new_match(2, seed=1)
    >>> bot.choose(view_for(state, state.turn))
    Place(Tile(4, 6))

    :ivar seed: Where each choice's generator is derived from (0 to 2**64 - 1);
        it drives the sampling of deals and random playouts.
    :ivar playouts: How many deals to sample for each choice (at least 1);
        each legal move is played out once on each.
    :ivar seconds: A time budget per choice instead: sample deals until it is
        spent (at least one); None to use ``playouts``.
    :ivar rollout: The default policy of the playouts: ``"greedy"`` (see
        :func:`~american_sniff.bots.greedy.greedy_choice`) or ``"random"``.
    :ivar depth: How many placements (by any seat) a playout makes after the
        move tried before it is scored; it also stops at the end of the round
        or match. None plays every playout to the end of the round.
    :ivar infer: None (the default) to sample the deals uniformly among those
        that fit the voids. A number ``beta`` (0 or more) weighs the deals by
        the other seats' placements since their last draws, a seat placing
        with a chance proportional to ``exp(beta * points)``: each playout's
        deal is then drawn by those weights from a pool of ``infer_pool`` times
        the playouts (the private module ``american_sniff.bots._infer``
        explains the model); with a time budget, 8 playouts at a time. The
        exact endgame still samples uniformly. The ``repr`` shows it only
        when it is set. ``benchmarks/bots-results-infer.md`` measures it:
        beta 0.1 gains nothing at 8 playouts, and a few points at most at 64.
    :ivar prune: None (the default) to play every move out on every deal.
        A number ``z`` (above 0) drops a move from the search once it is
        clearly behind: after every 8 playouts, each move is compared with
        the leader (the best total so far) deal by deal, and leaves when the
        leader's mean lead over it exceeds ``z`` standard errors, or when
        the lead is the same on every deal
        (``racing`` of the private module ``american_sniff.bots._kernel``). The choice ends when
        one move is left, so a clear choice costs a fraction of the budget,
        and the budget goes to the close ones. The looks are repeated with
        no correction, so a move is dropped more readily than one test at
        ``z`` would; ``benchmarks/prune_offline.py`` measures what it loses.
        With ``infer``, the pool's deals are then resampled 8 playouts at a
        time, and a deal drawn ``k`` times counts as ``k`` deals. With a
        time budget the looks come after 8, 16, 32, 64, ... playouts (each
        look reads every deal so far). The exact endgame does not prune. The
        ``repr`` shows it only when it is set; ``benchmarks/bots-results.md``
        measures it.
    """

    #: The bot's name in the registry (:func:`~american_sniff.make_bot`).
    name: ClassVar[str] = "search"
    #: Whether the sampling reads the history for each tile's voids
    #: (:func:`~american_sniff.bots.search.tile_voids`); a subclass may turn
    #: it off to measure its worth.
    history: ClassVar[bool] = True
    #: Whether a playout cut short in a round counts the settlement that the
    #: hands would cost then, weighed by
    #: :data:`~american_sniff.bots.search.SETTLE_WEIGHTS` for the number of
    #: players (:func:`~american_sniff.bots.search.playout_value`); a subclass
    #: may turn it off.
    settle: ClassVar[bool] = True
    #: Once the stock is empty (with 2 or 4 players), how many nodes of exact
    #: search (:func:`~american_sniff.bots.endgame.endgame_values`) each
    #: playout of the budget buys; 0 turns the exact endgame off, and None
    #: (the default) takes :data:`~american_sniff.bots.search.ENDGAME_NODES`
    #: for the number of players (a subclass may set a number, to measure its
    #: worth).
    endgame: ClassVar[int | None] = None
    #: With ``infer``, how many deals are sampled for each playout's one; with
    #: 1, every deal is played and its playouts count by its weight instead.
    infer_pool: ClassVar[int] = 3

    seed: int = attrs.field(default=0, converter=check_seed)
    playouts: int = attrs.field(default=32)
    seconds: float | None = attrs.field(default=None)
    rollout: str = attrs.field(default="greedy")
    depth: int | None = attrs.field(default=4)
    infer: float | None = attrs.field(default=None)
    prune: float | None = attrs.field(default=None)

    @playouts.validator
    def _check_playouts(self, _: object, value: object) -> None:
        if type(value) is not int or value < 1:
            raise ValueError(f"playouts must be a positive integer, got {value!r}")

    @seconds.validator
    def _check_seconds(self, _: object, value: object) -> None:
        if value is not None and (
            not isinstance(value, (int, float)) or isinstance(value, bool) or not value > 0
        ):
            raise ValueError(f"seconds must be a positive number or None, got {value!r}")

    @depth.validator
    def _check_depth(self, _: object, value: object) -> None:
        if value is not None and (type(value) is not int or value < 1):
            raise ValueError(f"depth must be a positive integer or None, got {value!r}")

    @infer.validator
    def _check_infer(self, _: object, value: object) -> None:
        if value is not None and (
            not isinstance(value, (int, float))
            or isinstance(value, bool)
            or not 0 <= value < math.inf
        ):
            raise ValueError(f"infer must be a number from 0 up, or None, got {value!r}")

    @prune.validator
    def _check_prune(self, _: object, value: object) -> None:
        if value is not None and (
            not isinstance(value, (int, float))
            or isinstance(value, bool)
            or not 0 < value < math.inf
        ):
            raise ValueError(f"prune must be a positive finite number, or None, got {value!r}")

    def __repr__(self) -> str:
        shown = ", ".join(
            f"{field.name}={getattr(self, field.name)!r}"
            for field in attrs.fields(type(self))
            if field.name not in ("infer", "prune") or getattr(self, field.name) is not None
        )
        return f"{type(self).__name__}({shown})"

    @rollout.validator
    def _check_rollout(self, _: object, value: object) -> None:
        if value not in ROLLOUT_POLICIES:
            raise ValueError(f"rollout must be one of {', '.join(ROLLOUT_POLICIES)}, got {value!r}")

    def choose(self, view: PlayerView) -> Move:
        """The move with the best total over the sampled deals (see the class notes).

        :raises TypeError: if ``view`` is not a :class:`~american_sniff.PlayerView`.
        :raises ValueError: if the view's seat has no move to make.
        """
        moves = moves_to_choose_from(view, self)
        if len(moves) == 1:
            return moves[0]
        wins = winning_moves(view)
        if wins:
            return wins[0]
        # (The view builds its history when read: read it once.)
        actions = view.history
        determiniser = Determiniser._of(
            view, slot_voids(view.players, view.seat, actions) if self.history else ()
        )
        # decision_rng(seed, view), from the history already read:
        rng = decision_rng_of(self.seed, view.round, len(actions), view.seat)
        deadline = None if self.seconds is None else time.monotonic() + self.seconds
        if (
            self.endgame_nodes(view.players)
            and view.stock_size == 0
            and side_count(view.players) == 2
        ):
            exact = self._endgame(view, moves, determiniser, rng, deadline)
            if exact is not None:
                return exact
        return self._playouts(view, actions, moves, determiniser, rng, deadline)

    def _playouts(  # noqa: PLR0913, PLR0917 - one decision's parts, passed on
        self,
        view: PlayerView,
        actions: tuple[Action, ...],
        moves: tuple[Move, ...],
        determiniser: Determiniser,
        rng: int,
        deadline: float | None,
    ) -> Move:
        """The best move by its total over the sampled deals' playouts (see the class notes).

        Deals are played one at a time, or, when reading the other seats'
        choices, a pool's resampled deals at a time (all the playouts at
        once with a playout budget and no pruning, else 8). With ``prune``,
        :func:`~american_sniff.bots._kernel.racing` drops the moves that
        are clearly behind after every 8 playouts, and the choice ends when one
        is left.
        """
        random = self.rollout == "random"
        depth = -1 if self.depth is None else self.depth
        seat = view.seat
        settle = SETTLE_WEIGHTS.get(view.players, 1.0) if self.settle else 0.0
        prune = self.prune
        totals = [0.0] * len(moves)
        alive = list(range(len(moves)))
        trying = moves
        # With pruning: each move's value on every deal, and each deal's weight.
        rows: list[list[float]] = [[] for _ in moves]
        weights: list[float] = []
        tables = None if self.infer is None else view_tables(view, actions, float(self.infer))
        if tables is not None and not tables[0]:
            tables = None  # no choice to read: the deals are sampled as without reading
        pool = DealPool(
            view,
            determiniser._groups,
            determiniser._choices,
            determiniser._capacities,
            determiniser._others,
        )
        # Playouts between two looks at the race (all of them without one).
        step = self.playouts if prune is None else _RACE_EVERY
        kept = None if prune is None else rows
        spent = 0
        while True:
            if deadline is None:
                size = min(step, self.playouts - spent)
            else:
                # With a time budget, checked after each deal (or pool).
                size = 1 if tables is None else _RACE_EVERY
            if tables is not None:
                played, factors, rng = inferred_deals(
                    tables, pool, size, size * self.infer_pool, rng
                )
                rng = play_deals(
                    pool, played, factors, 0, trying, alive, seat, random, depth, settle,
                    totals, kept, weights, rng,
                )  # fmt: skip
            else:
                rng = play_deals(
                    pool, None, [], size, trying, alive, seat, random, depth, settle,
                    totals, kept, weights, rng,
                )  # fmt: skip
            spent += size
            if deadline is None:
                if spent >= self.playouts:
                    break
            elif time.monotonic() >= deadline:
                break
            if (
                prune is not None
                and spent % _RACE_EVERY == 0
                # With a time budget, at 8, 16, 32, ...: the looks cost in all
                # about what the last one costs.
                and (deadline is None or spent & (spent - 1) == 0)
            ):
                alive = racing(rows, weights, alive, totals, prune)
                if len(alive) == 1:
                    break
                trying = tuple([moves[index] for index in alive])
        best = alive[0]
        for index in alive:
            if totals[index] > totals[best]:
                best = index
        return moves[best]

    def endgame_nodes(self, players: int) -> int:
        """The nodes of exact endgame that each playout buys with ``players`` (0: none).

        :attr:`endgame` if a subclass set it, else
        :data:`~american_sniff.bots.search.ENDGAME_NODES`.
        """
        if self.endgame is None:
            return ENDGAME_NODES.get(players, 0)
        return self.endgame

    def _endgame(
        self,
        view: PlayerView,
        moves: tuple[Move, ...],
        determiniser: Determiniser,
        rng: int,
        deadline: float | None,
    ) -> Move | None:
        """The move with the best exact value over sampled deals, or None if none fits the budget.

        The stock is empty (see :mod:`~american_sniff.bots.endgame`): up to
        ``playouts`` deals are sampled (with two players the one deal the view
        allows, once) and each is searched to the round's end within what is
        left of ``playouts * endgame_nodes(players)`` nodes. A deal whose search would need
        more is dropped, and so are the later ones; so is one still going at
        the ``deadline`` of a time budget.
        """
        left = self.playouts * self.endgame_nodes(view.players)
        # With one other hand and no stock, the unseen tiles are that hand: one world.
        opponents = view.players - 1
        worlds = 1 if opponents == 1 else self.playouts
        totals = [0.0] * len(moves)
        searched = 0
        for _ in range(worlds):
            world, rng = determiniser.sample(rng)
            found = endgame_values(world, view.seat, moves, left, deadline=deadline)
            if found is None:
                break
            values, spent = found
            left -= spent
            totals = [total + value for total, value in zip(totals, values, strict=True)]
            searched += 1
        if not searched:
            return None
        return moves[totals.index(max(totals))]

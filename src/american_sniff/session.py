"""One game controller for every front end: turn order, undo, hints and bot choices.

A :class:`Session` holds the states of one match played by people and bots,
and answers what every front end asks of it: whose move it is, whether a
person must draw or pass (the front end makes that move for them), what a
bot plays, what the hint is and why (:func:`hint_reason`), and how far an
undo goes back. The terminal game (``american-sniff play``) and the browser
game (:mod:`american_sniff.web.game`) are views of it: the terminal adds the
screen, the browser the tokens, the stored log and the links.

How its bots are seeded is the one thing the two front ends choose
(:class:`Seeding`):

* :attr:`Seeding.PER_CHOICE` (the browser): a fresh bot for every choice,
  seeded :func:`~american_sniff.bots.bot_seed` of the match's seed, the seat
  and the number of actions so far, and the hint bot with that seed ``^ 1``.
  A bot's choice is then a pure function of what it sees and of that seed,
  so a host that restarts and replays its log goes on exactly as before.
* :attr:`Seeding.PER_MATCH` (the terminal): one bot per seat for the whole
  match, seeded ``seed + seat + 1`` (modulo 2**64, as the demo seeds its
  bots), and a hint bot made afresh with ``seed + actions + 1``: ``play
  --seed`` plays the same match again.

The hint's reason is said in a player's words: the bot weighs playouts, not
reasons, so the line says what is plain from the seat's own view about the
move it chose: that it wins the match, goes out, scores (and what the ends
add up to), sheds a heavy tile or a double, or keeps the next seats from
scoring. It reads only the seat's view: nothing hidden from that seat is
used, nor told.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from typing import Any

from .bots import Bot, bot_seed, make_bot
from .engine import legal_moves
from .layout import Layout, end_sum_after
from .moves import Draw, Move, Pass, Place
from .rng import MASK64
from .rules import placement_points, side_of
from .state import MatchState
from .tiles import ALL_TILES, Tile
from .views import PlayerView, view_for

__all__ = [
    "HEAVY_PIPS",
    "BotKind",
    "GameError",
    "Seeding",
    "Session",
    "SessionView",
    "hint_reason",
    "lone_move",
]

#: A bot as a session makes it: the library's bot kind and its options
#: (for :func:`~american_sniff.bots.make_bot`).
BotKind = tuple[str, Mapping[str, Any]]


class GameError(ValueError):
    """A request the game refuses: the message says why, for the player to read."""


class Seeding(enum.Enum):
    """How a :class:`Session` seeds its bots and its hint bot (see the module's notes)."""

    #: A fresh bot for every choice, seeded by ``bot_seed(seed, seat, actions)``.
    PER_CHOICE = "per choice"
    #: One bot per seat for the match, seeded ``seed + seat + 1``.
    PER_MATCH = "per match"


class Session:
    """The states of one match and its rules of play between people and bots.

    :param states: The match's states from its first (at least that one);
        the session keeps this list, and the front end appends each new state. The first state's
        seed seeds the bots.
    :param bots: The bot in each seat a bot plays, by seat; every other seat
        is a person's.
    :param hint_bot: The bot that gives hints.
    :param seeding: How the bots and the hint bot are seeded.
    :param floor: How many actions of the match an undo may never take back
        (the terminal's resumed match keeps what was played before).
    :raises ValueError: if ``states`` is empty, a seat is out of the match,
        or ``floor`` is not one of the states.
    """

    def __init__(
        self,
        states: list[MatchState],
        bots: Mapping[int, BotKind],
        hint_bot: BotKind,
        *,
        seeding: Seeding,
        floor: int = 0,
    ) -> None:
        if not states:
            raise ValueError("a session begins from at least the match's first state")
        players = states[0].players
        if any(not 0 <= seat < players for seat in bots):
            raise ValueError(f"a bot's seat is one of 0 to {players - 1}")
        if not 0 <= floor < len(states):
            raise ValueError(f"the undo floor {floor} is not one of the states")
        #: Every state of the match, the first first and the current last.
        self.states = states
        #: The match's seed, which seeds the bots.
        self.seed = seed = states[0].seed
        self.bots: Mapping[int, BotKind] = dict(bots)
        self.hint_bot = hint_bot
        self.seeding = seeding
        self.floor = floor
        self._made: dict[int, Bot] = {}
        if seeding is Seeding.PER_MATCH:
            self._made = {
                seat: make_bot(kind, (seed + seat + 1) & MASK64, **options)
                for seat, (kind, options) in self.bots.items()
            }

    # -- what it is now ----------------------------------------------------------------

    @property
    def state(self) -> MatchState:
        """The current state."""
        return self.states[-1]

    @property
    def seq(self) -> int:
        """How many actions the match has had."""
        return len(self.states) - 1

    def is_human(self, seat: int) -> bool:
        """Whether a person plays ``seat``."""
        return seat not in self.bots

    def humans(self) -> list[int]:
        """The seats people play, in order."""
        return [seat for seat in range(self.state.players) if self.is_human(seat)]

    def against_bots_only(self, seat: int) -> bool:
        """Whether ``seat`` is the only seat a person plays."""
        return self.humans() == [seat]

    def forced(self) -> Move | None:
        """A draw or a pass that a person to move must make (made for them), else None."""
        state = self.state
        if state.winner is not None or not self.is_human(state.turn):
            return None
        return lone_move(state)

    # -- bots and hints ----------------------------------------------------------------

    def bot(self, seat: int) -> Bot:
        """The bot that makes ``seat``'s next choice.

        :raises KeyError: if a person plays ``seat``.
        """
        if self.seeding is Seeding.PER_MATCH:
            return self._made[seat]
        kind, options = self.bots[seat]
        return make_bot(kind, bot_seed(self.seed, seat, self.seq), **options)

    def bot_move(self) -> Move:
        """The move of the bot to move; nothing is applied.

        :raises KeyError: if a person is to move.
        """
        state = self.state
        return self.bot(state.turn).choose(view_for(state, state.turn))

    def hint(self, seat: int) -> Move:
        """What the hint bot would play for ``seat`` now.

        :raises GameError: if ``seat`` is not to move.
        """
        state = self.state
        if state.winner is not None or state.turn != seat:
            raise GameError("a hint is given when it is your turn")
        if self.seeding is Seeding.PER_MATCH:
            seed = (self.seed + self.seq + 1) & MASK64
        else:
            seed = bot_seed(self.seed, seat, self.seq) ^ 1
        kind, options = self.hint_bot
        return make_bot(kind, seed, **options).choose(view_for(state, seat))

    # -- undo --------------------------------------------------------------------------

    def undo_point(self, seat: int) -> int | None:
        """How many actions the match goes back to if ``seat`` takes back its last placement.

        None if it may not: another person plays too, the match is over, or
        the seat has placed nothing since the :attr:`floor`.
        """
        if not self.against_bots_only(seat) or self.state.winner is not None:
            return None
        for index in range(len(self.states) - 1, self.floor, -1):
            action = self.states[index].last_action
            if action is not None and action.seat == seat and isinstance(action.move, Place):
                return index - 1
        return None

    def checked_undo_point(self, seat: int) -> int:
        """:meth:`undo_point`, refused with the reason when the seat may not undo.

        :raises GameError: if it may not (see :meth:`undo_point`).
        """
        point = self.undo_point(seat)
        if point is None:
            raise GameError("undo is for a match against bots only, after a placement of yours")
        return point

    def undo(self, seat: int) -> int:
        """Take back ``seat``'s last placement and every action after it; the actions left.

        :raises GameError: if it may not (see :meth:`undo_point`).
        """
        point = self.checked_undo_point(seat)
        self.go_back(point)
        return point

    def go_back(self, point: int) -> None:
        """Keep the first ``point`` actions of the match, dropping the rest.

        :raises ValueError: if the match has not had ``point`` actions.
        """
        if not 0 <= point <= self.seq:
            raise ValueError(f"the match has had {self.seq} actions, not {point}")
        del self.states[point + 1 :]


class SessionView:
    """A front end on a :class:`Session`: the match's states as the session holds them.

    A subclass sets :attr:`session`; the terminal game and the browser's
    :class:`~american_sniff.web.game.Game` are such views.
    """

    #: The game controller the view shows.
    session: Session

    @property
    def states(self) -> list[MatchState]:
        """Every state of the match, the first first (the session's)."""
        return self.session.states

    @property
    def state(self) -> MatchState:
        """The current state."""
        return self.session.state

    @property
    def seq(self) -> int:
        """How many actions the match has had: the views' sequence number."""
        return self.session.seq


def lone_move(state: MatchState) -> Move | None:
    """The draw or pass that is the only legal move in ``state``, else None (a choice)."""
    moves = legal_moves(state)  # the seat's own legal moves, as its view gives them
    if len(moves) == 1 and isinstance(moves[0], (Draw, Pass)):
        return moves[0]
    return None


# -- the hint's reason ---------------------------------------------------------------


#: A tile with this many pips or more is "heavy": it would cost its holder
#: 10 or more at a settlement (8 pips round up to 10).
HEAVY_PIPS = 8


def _best_reply(layout: Layout, unseen: tuple[Tile, ...]) -> int:
    """The most that any tile the seat cannot see would score on ``layout``."""
    best = 0
    for tile in unseen:
        for point in layout.fits(tile):
            best = max(best, placement_points(end_sum_after(layout, tile, point.order)))
    return best


def _order(move: Place) -> int | None:
    return None if move.at is None else move.at.order


def hint_reason(view: PlayerView, move: Move) -> str:
    """Why ``move`` is a good move for ``view``'s seat, in one line of a player's words.

    ``move`` must be one of ``view.legal_moves`` (the hint bot's choice).

    >>> from american_sniff import new_match, view_for
    >>> view = view_for(new_match(2, seed=1), 1)
    >>> str(view.legal_moves[-1]), hint_reason(view, view.legal_moves[-1])
    ('[4|6] opens', 'scores 10: the ends add up to 10')

    :raises ValueError: if ``move`` is not one of ``view.legal_moves``.
    """
    if move not in view.legal_moves:
        raise ValueError(f"{move} is not one of the seat's legal moves")
    if type(move) is Draw:
        return "none of your tiles fits, so you draw from the stock"
    if type(move) is Pass:
        return "nothing fits and the stock is empty, so you pass"
    assert type(move) is Place
    layout = view.layout
    end_sum = end_sum_after(layout, move.tile, _order(move))
    points = placement_points(end_sum)
    side = side_of(view.players, view.seat)
    if points and view.scores[side] + points >= view.target:
        total = view.scores[side] + points
        needed = view.target
        return f"scores {points}, which makes {total} of the {needed} needed: it wins the match"
    if len(view.hand) == 1:
        scored = f"scores {points} and " if points else ""
        return f"{scored}goes out: your last tile, so the others pay for their hands"
    places = [m for m in view.legal_moves if type(m) is Place]
    if len(places) == 1:
        scored = f"scores {points}: the ends add up to {end_sum}; " if points else ""
        return f"{scored}it is your only move"
    scores = {m: placement_points(end_sum_after(layout, m.tile, _order(m))) for m in places}
    best = max(scores.values())
    if points and points == best:
        return f"scores {points}: the ends add up to {end_sum}"
    seen = set(view.hand) | set(layout.tiles)
    unseen = tuple(t for t in ALL_TILES if t not in seen)
    threat = _best_reply(layout.place(move.tile, move.at), unseen)
    if best > points:
        # The bot gave up points: say so where the table it leaves is safer.
        greedy = min(
            _best_reply(layout.place(m.tile, m.at), unseen) for m in places if scores[m] == best
        )
        now = f"scores {points} (the ends add up to {end_sum})" if points else "scores nothing now"
        if threat < greedy:
            return (
                f"{now}, but leaves the others at most {threat}: "
                f"the move scoring {best} would let them score {greedy}"
            )
        return f"{now}: playing on from here, the computer found the move scoring {best} worse"
    pips = move.tile.pips
    playable = {m.tile for m in places}
    if pips >= HEAVY_PIPS and pips == max(t.pips for t in playable):
        return f"gets rid of {pips} pips, which would count against you at the settlement"
    if move.tile.is_double:
        return "plays the double while it fits: a double has only one number to go on"
    if threat == 0:
        return "nothing scores now, and after it no tile of the others can score either"
    return f"nothing scores now; after it the others can score at most {threat}"

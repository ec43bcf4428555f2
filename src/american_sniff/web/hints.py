"""The one-line reason shown beside a hint, in a player's words.

The hint is the search bot's choice (:meth:`~american_sniff.web.game.Game.hint`);
the bot weighs playouts, not reasons, so the line says what is plain from the
seat's own view about the move it chose: that it wins the match, goes out,
scores (and what the ends add up to), sheds a heavy tile or a double, or keeps
the next seats from scoring. It reads only the seat's view: nothing hidden
from that seat is used, nor told.
"""

from __future__ import annotations

from ..layout import Layout, end_sum_after
from ..moves import Draw, Move, Pass, Place
from ..rules import placement_points, side_of
from ..tiles import ALL_TILES, Tile
from ..views import PlayerView

__all__ = ["HEAVY_PIPS", "hint_reason"]

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

"""The bot protocol: a bot is given a :class:`~american_sniff.PlayerView` and returns a move.

A bot never sees a :class:`~american_sniff.MatchState`: only what its seat may
see, so it cannot cheat. Whoever runs the match (the ``play`` and ``simulate``
commands, a game server) makes the view with
:func:`~american_sniff.view_for` and applies the move the bot returns::

    move = bot.choose(view_for(state, state.turn))
    state = apply(state, move)

The returned move is one of ``view.legal_moves`` (the very object). Bots are
seeded with SplitMix64 (:mod:`american_sniff.rng`), so a match between bots is
reproducible from the seeds alone: the random bot keeps a generator state
(its public ``rng``) that starts at its seed and advances only as its
documentation says, and the search bot derives a fresh generator for each
choice from its seed and the view
(:func:`~american_sniff.bots.decision_rng`). Each bot's ``repr`` rebuilds it
exactly at any moment, so a restarted server can resume its bots. Each seat
needs its own bot object.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from ..moves import Move
from ..views import PlayerView

__all__ = ["Bot", "moves_to_choose_from"]


@runtime_checkable
class Bot(Protocol):
    """Anything that picks a legal move from what one seat may see.

    Implement :meth:`choose`; the bots of this package also have a ``seed``
    and a ``repr`` that rebuilds them.
    """

    def choose(self, view: PlayerView) -> Move:
        """One of ``view.legal_moves``, for the seat of ``view`` (whose turn it is).

        :raises TypeError: if ``view`` is not a :class:`~american_sniff.PlayerView`.
        :raises ValueError: if the view's seat has no move to make (it is not
            its turn, or the match is over).
        """
        ...  # pragma: no cover - a protocol has no body


def moves_to_choose_from(view: object, bot: object) -> tuple[Move, ...]:
    """The legal moves of ``view``, after checking that a bot may choose among them.

    :raises TypeError: if ``view`` is not a :class:`~american_sniff.PlayerView`
        (a bot is never given a whole match state).
    :raises ValueError: if the match is over or it is not the view's seat's turn.
    """
    if not isinstance(view, PlayerView):
        raise TypeError(
            f"{bot!r} chooses from a PlayerView (view_for(state, seat)), "
            f"never from a {type(view).__name__}"
        )
    if view.winner is not None:
        raise ValueError("the match is over: there is no legal move to choose")
    if not view.legal_moves:
        raise ValueError(
            f"it is seat {view.turn}'s turn, not seat {view.seat}'s: "
            "there is no legal move to choose"
        )
    return view.legal_moves

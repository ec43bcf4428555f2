"""What the seeded bots share: the seed, the per-decision generator, the lone-move rule.

And :func:`bot_seed`, the seed a host gives the bot it makes for each choice.
"""

from __future__ import annotations

import attrs

from ..moves import Move
from ..rng import MASK64, check_seed, next_u64
from ..views import PlayerView
from .base import moves_to_choose_from

__all__ = ["SeededBot", "bot_seed", "decision_rng", "decision_rng_of"]


def bot_seed(seed: int, seat: int, seq: int) -> int:
    """The seed of the bot a host makes for ``seat``'s choice after ``seq`` actions of a match.

    ``seed`` is the match's seed and ``seq`` its sequence number at the
    choice (:attr:`~american_sniff.MatchState.seq`). A host that makes a
    fresh bot for every choice, ``make_bot(kind, bot_seed(state.seed,
    state.turn, state.seq))``, needs to keep no bot between choices: each
    bot's choice is a pure function of this seed and of the view, so a host
    that restarts, replays its log and asks again gets exactly the move the
    bot would have made before the restart, in any process. The browser game
    (``american-sniff serve``) seeds its bots so, and its hints with
    ``bot_seed(...) ^ 1``, so that a hint is not the bot's own choice.

    The value is one SplitMix64 output (:mod:`american_sniff.rng`) of
    ``seed + 0x9E3779B97F4A7C15 * (4 * seq + seat + 1)`` modulo 2**64.

    >>> from american_sniff import apply, make_bot, new_match, view_for
    >>> state = new_match(2, seed=8)
    >>> def bot_move(state):
    ...     bot = make_bot("random", seed=bot_seed(state.seed, state.turn, state.seq))
    ...     return bot.choose(view_for(state, state.turn))
    >>> for _ in range(6):
    ...     state = apply(state, bot_move(state))
    >>> restarted = state                 # say, replayed from the log after a restart
    >>> bot_move(restarted) == bot_move(state)
    True
    >>> bot_seed(1, 0, 0) == bot_seed(1, 0, 0) != bot_seed(1, 0, 1)
    True

    :raises ValueError: if ``seed`` is not a seed (an integer from 0 to
        2**64 - 1), or ``seat`` or ``seq`` is not an integer of at least 0.
    """
    check_seed(seed)
    for name, value in (("seat", seat), ("seq", seq)):
        if type(value) is not int or value < 0:
            raise ValueError(f"the {name} is an integer of at least 0, got {value!r}")
    return next_u64((seed + 0x9E3779B97F4A7C15 * (seq * 4 + seat + 1)) & MASK64)[0]


def decision_rng(seed: int, view: PlayerView) -> int:
    """The generator state a stateless bot seeded ``seed`` starts from for ``view``'s decision.

    Three SplitMix64 steps (:mod:`american_sniff.rng`) mix in the round, the
    number of actions in the round so far (``len(view.history)``) and the
    seat: ``s = seed``, then for each ``x`` of ``(round, actions, seat)``,
    ``s = output of next_u64((s ^ x) mod 2**64)``. So every decision of a
    match gets its own generator, a pure function of the seed and the view:
    a bot rebuilt from its ``repr`` after a restart chooses exactly as the
    bot it replaces.

    >>> from american_sniff import new_match, view_for
    >>> view = view_for(new_match(2, seed=1), 1)
    >>> decision_rng(5, view) == decision_rng(5, view) != decision_rng(6, view)
    True
    """
    return decision_rng_of(seed, view.round, len(view.history), view.seat)


def decision_rng_of(seed: int, round_: int, actions: int, seat: int) -> int:
    """:func:`decision_rng` from its parts: the round, the round's actions so far, the seat."""
    state = seed
    for part in (round_, actions, seat):
        state, _ = next_u64((state ^ part) & MASK64)
    return state


@attrs.define(eq=False, repr=False)
class SeededBot:
    """A bot with its own SplitMix64 generator state, which starts at its seed.

    Subclasses say how they pick among several legal moves in
    :meth:`_choose_among`; a lone legal move is returned at once, and the
    generator is left alone. The generator state is public, so a bot can be
    saved and rebuilt: its ``repr`` shows ``rng`` once it differs from the
    seed, and ``eval(repr(bot))`` is a bot that chooses exactly as this one
    will.

    :ivar seed: Where the bot's generator starts: an integer from 0 to 2**64 - 1.
    :ivar rng: The generator's state now (0 to 2**64 - 1); the seed if not given.
    """

    seed: int = attrs.field(default=0, converter=check_seed)
    rng: int = attrs.field(
        default=attrs.Factory(lambda self: self.seed, takes_self=True), converter=check_seed
    )

    def __repr__(self) -> str:
        if self.rng == self.seed:
            return f"{type(self).__name__}(seed={self.seed})"
        return f"{type(self).__name__}(seed={self.seed}, rng={self.rng})"

    def choose(self, view: PlayerView) -> Move:
        """One of the legal moves of ``view``, chosen as the class notes say.

        A lone legal move is returned at once, without using the generator.

        :raises TypeError: if ``view`` is not a :class:`~american_sniff.PlayerView`.
        :raises ValueError: if the view's seat has no move to make.
        """
        moves = moves_to_choose_from(view, self)
        if len(moves) == 1:
            return moves[0]
        return self._choose_among(moves, view)

    def _choose_among(self, moves: tuple[Move, ...], view: PlayerView) -> Move:
        """The bot's pick among ``moves`` (two or more), the legal moves of ``view``."""
        raise NotImplementedError  # pragma: no cover - every subclass overrides it

"""The OpenSpiel game ``american_sniff``: a whole match, with the deals and draws as chance nodes.

Needs the ``openspiel`` extra (``pip install 'american-sniff[openspiel]'``).
Importing this module registers the game with OpenSpiel:

>>> import pyspiel
>>> import american_sniff.envs.openspiel
>>> game = pyspiel.load_game("american_sniff", {"players": 3})
>>> game.num_players(), game.num_distinct_actions(), game.observation_tensor_size()
(3, 450, 375)

**Parameters.** ``players`` (2, 3 or 4; 2 by default); ``reward``
(``"outcome"``, the default, or ``"points"``: see the returns below); and
``max_moves`` (10000 by default): a match that reaches that many actions,
chance outcomes included, ends there with every return 0 under
``"outcome"``. (Matches between sensible players take a few hundred; random
play a few thousand at the very most.)

**Chance nodes.** Each round begins with chance nodes: first a lot for the
opener, where the rules call for one (the first round, and after a blocked
round), with outcomes 0 to ``players - 1`` (the seat); then the deal, one
tile at a time, seat 0's hand first, each outcome a tile's
:attr:`~american_sniff.Tile.index` among the tiles not yet dealt. The stock is
left unordered: a player's draw action (448) is followed by a chance node
that picks the drawn tile among the stock's, uniformly. Every chance outcome
has the same probability.

**Players' actions** are those of :mod:`american_sniff.actions`, and the
legal ones are :func:`~american_sniff.actions.legal_actions`.

**Observations.** The observation tensor is the 375 numbers of
:func:`american_sniff.observation.encode` and the observation string
:func:`~american_sniff.observation.observation_string`, of the player's
:class:`~american_sniff.PlayerView`: where the round stands. The
information-state tensor is perfect-recall: the numbers of
:func:`~american_sniff.observation.encode_information_state` (the
observation, then the player's deal, then every action of the round in order
with who made it; 7,858, 10,483 or 13,318 numbers for 2, 3 or 4 players), and
the information-state string
:func:`~american_sniff.observation.information_state`. The observation tensor
is worked out with :func:`~american_sniff.observation.encode_state` from the
round's public facts, kept as the actions happen, which gives the view's very
numbers without building the view.

**Returns** are per side and come at the end (OpenSpiel's MCTS bot needs
terminal rewards). With the parameter ``reward="outcome"`` (the default), +1
to each player of the winning side (both partners with 4 players) and -1 to
every other player, as in :mod:`american_sniff.envs.rewards`; with
``reward="points"``, each player's side's final score, the sum of that
module's points rewards.

**Utility.** The game's type (``game.get_type().utility``) says what its
returns are. With ``reward="outcome"`` and 2 or 4 players they sum to 0
(one side's +1 against the other's -1, partners sharing theirs; 0 each when
``max_moves`` ends the match), so the game is ``ZERO_SUM``. With 3 players
one +1 meets two -1 (a sum of -1, or 0 when ``max_moves`` ends the match),
and with ``reward="points"`` the returns are scores, so both are
``GENERAL_SUM``. :data:`GAME_TYPE`, the type registered, is the default
game's (2 players, ``"outcome"``).

``resample_from_infostate`` (which OpenSpiel's IS-MCTS bot searches with)
draws a world uniformly among those the player cannot tell from the real one:
the other seats' deals and unseen draws of the round under way agree with
everything the player saw (its hand and draws, the table, who drew and who
passed, and so the voids), and the world's history is its own.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import numpy as np
import pyspiel

from ..actions import ACTION_MOVES, NUM_ACTIONS
from ..engine import new_match
from ..observation import (
    OBSERVATION_SIZE,
    encode_information_state,
    encode_list,
    information_state,
    information_state_size,
    observation_string,
)
from ..rules import PLAYER_COUNTS, TARGET, side_of
from ..state import MatchState
from ..tiles import ALL_TILES
from ..views import view_for
from ._kernel import CHANCE, TERMINAL, Kernel
from ._worlds import Worlds
from .rewards import REWARDS, check_choice, rewards

__all__ = ["GAME_TYPE", "AmericanSniffGame", "AmericanSniffState", "utility_of"]

_DEFAULT_MAX_MOVES = 10_000
_CHANCE = int(pyspiel.PlayerId.CHANCE)
_TERMINAL = int(pyspiel.PlayerId.TERMINAL)
assert (_CHANCE, _TERMINAL) == (CHANCE, TERMINAL), "OpenSpiel's player ids"


def utility_of(players: int, reward: str) -> pyspiel.GameType.Utility:
    """What the returns of the game for ``players`` players and ``reward`` are (see the module).

    ``ZERO_SUM`` for ``"outcome"`` with 2 or 4 players, else ``GENERAL_SUM``.
    """
    if reward == "outcome" and players in (2, 4):
        return pyspiel.GameType.Utility.ZERO_SUM
    return pyspiel.GameType.Utility.GENERAL_SUM


def _game_type(utility: pyspiel.GameType.Utility) -> pyspiel.GameType:
    """The game's type, with ``utility``; the rest is the same for every player count."""
    return pyspiel.GameType(
        short_name="american_sniff",
        long_name="American Sniff",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=utility,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=max(PLAYER_COUNTS),
        min_num_players=min(PLAYER_COUNTS),
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification={
            "players": 2,
            "max_moves": _DEFAULT_MAX_MOVES,
            "reward": "outcome",
        },
    )


#: The game's type, as registered with OpenSpiel under the short name
#: ``american_sniff``: the default game's (2 players, ``"outcome"``: ``ZERO_SUM``).
#: Each game's own type (``game.get_type()``) has the utility of its parameters.
GAME_TYPE = _game_type(utility_of(2, "outcome"))


class AmericanSniffGame(pyspiel.Game):
    """The OpenSpiel game ``american_sniff`` (see the module); ``params`` as there."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = dict(params or {})
        players = params.get("players", 2)
        max_moves = params.get("max_moves", _DEFAULT_MAX_MOVES)
        reward = check_choice("reward", params.get("reward", "outcome"), REWARDS)
        if players not in PLAYER_COUNTS:
            raise ValueError(f"players must be 2, 3 or 4, got {players!r}")
        if type(max_moves) is not int or max_moves < 1:
            raise ValueError(f"max_moves must be a positive integer, got {max_moves!r}")
        utility = utility_of(players, reward)
        zero_sum = utility == pyspiel.GameType.Utility.ZERO_SUM
        info = pyspiel.GameInfo(
            num_distinct_actions=NUM_ACTIONS,
            max_chance_outcomes=len(ALL_TILES),
            num_players=players,
            # Points: a side's score, at most the target plus the best
            # placement (35); a round costs at least 15 moves and its
            # settlement at most 170, hence the floor.
            min_utility=-1.0 if reward == "outcome" else -12.0 * max_moves,
            max_utility=1.0 if reward == "outcome" else float(TARGET[players] + 35),
            utility_sum=0.0 if zero_sum else None,
            max_game_length=max_moves,
        )
        super().__init__(
            _game_type(utility),
            info,
            {"players": players, "max_moves": max_moves, "reward": reward},
        )
        self.reward = reward
        self.players = players
        self.max_moves = max_moves
        # The state every match starts from before its first deal (its own
        # deal is replaced by the chance nodes').
        self.blank = new_match(players, seed=0)

    def new_initial_state(self) -> AmericanSniffState:
        """A match before its first chance node."""
        return AmericanSniffState(self)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: dict[str, Any] | None = None
    ) -> _Observer:
        """The observer of the tensors and strings (see the module)."""
        if params:
            raise ValueError(f"the observer takes no parameters, got {params!r}")
        if iig_obs_type is not None and iig_obs_type.perfect_recall:
            return _Observer(information_state, information_state_size(self.players))
        return _Observer(observation_string, OBSERVATION_SIZE)


class AmericanSniffState(pyspiel.State):
    """A moment of a match of ``american_sniff``: the engine's state, and the chance nodes due.

    :ivar match: The engine's :class:`~american_sniff.MatchState`. While a
        round is being dealt it holds the tiles dealt so far, and the rest
        lie in its stock.

    **Speed.** Every call from Python into OpenSpiel's C++ layer and back
    costs about a microsecond. So the queries that Python code makes at every
    step (:meth:`is_chance_node`, :meth:`legal_actions`,
    :meth:`observation_tensor` and :meth:`information_state_tensor`) are
    answered here in Python, with the very results the C++ layer gives (which
    C++ callers still get, through the usual hooks); applying an action goes
    through OpenSpiel as always, so that its history and move number stay its
    own. The game's own work (the chance nodes, the legal actions with their
    moves, applying an action, the round's public facts that observations
    need) is a kernel's, :class:`american_sniff.envs._kernel.Kernel`, which
    the compiled build runs as native code beside the engine; this class only
    hands the calls on to it.
    """

    def __init__(self, game: AmericanSniffGame) -> None:
        super().__init__(game)
        self._players = game.players
        self._reward = game.reward
        self._resamples = 0  # how many times resample_from_infostate was called on this state
        self._worlds = _WorldCache()
        self._kernel = Kernel(game.players, game.max_moves, game.blank)
        self._player = _CHANCE  # who acts now: CHANCE, TERMINAL or the seat to move

    @property
    def match(self) -> MatchState:
        """The engine's state (see the class)."""
        return self._kernel.state()

    @match.setter
    def match(self, state: MatchState) -> None:
        self._kernel.set_state(state)

    # -- the OpenSpiel API ---------------------------------------------------

    def current_player(self) -> int:
        """The player to move, or CHANCE, or TERMINAL."""
        return self._player

    def is_chance_node(self) -> bool:
        """Whether chance acts now (as OpenSpiel's own, without the trip through C++)."""
        return self._player == _CHANCE

    def is_terminal(self) -> bool:
        """Whether a side has won, or the match reached ``max_moves`` actions."""
        return self._player == _TERMINAL

    def legal_actions(self, player: int | None = None) -> list[int]:
        """The legal actions of ``player`` (by default the one to act), as OpenSpiel's own.

        At a chance node, the chance outcomes' actions; at the end, none; for
        a player not to move, none.

        :raises pyspiel.SpielError: for a negative ``player`` other than the one to act.
        """
        acting = self._player
        if acting >= 0 and (player is None or player == acting):
            return self._kernel.legal_actions()
        if acting == _TERMINAL:
            return []
        if acting == _CHANCE:
            return self._kernel.chance_actions()
        if player is not None and player < 0:
            raise pyspiel.SpielError(f"Called LegalActions for pseudo-player {player}")
        return []

    def _legal_actions(self, player: int) -> list[int]:
        return self._kernel.legal_actions()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The outcomes of this chance node, each with the same probability."""
        return self._kernel.chance_outcomes()

    def observation_tensor(self, player: int | None = None) -> list[float]:
        """``player``'s observation tensor (by default the player to act), as OpenSpiel's own.

        :raises pyspiel.SpielError: if ``player`` is not a player of the game.
        """
        if player is None:
            player = self._player
        if type(player) is not int or not 0 <= player < self._players:
            raise pyspiel.SpielError(f"no observation for player {player!r}")
        kernel = self._kernel
        return encode_list(kernel.state(), player, kernel.round_facts(), 1.0)

    def information_state_tensor(self, player: int | None = None) -> list[float]:
        """``player``'s perfect-recall information-state tensor (by default the player to act).

        The numbers of :func:`~american_sniff.observation.encode_information_state`.

        :raises pyspiel.SpielError: if ``player`` is not a player of the game.
        """
        if player is None:
            player = self._player
        if type(player) is not int or not 0 <= player < self._players:
            raise pyspiel.SpielError(f"no information state for player {player!r}")
        return [float(x) for x in encode_information_state(view_for(self.match, player))]

    def _apply_action(self, action: int) -> None:
        self._player = self._kernel.apply(action)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            kernel = self._kernel
            if kernel.dealing and kernel.lot_due:
                return f"lot: seat {action} opens"
            return f"{'deal' if kernel.dealing else 'draw'} {ALL_TILES[action]}"
        return str(ACTION_MOVES[action])

    def returns(self) -> list[float]:
        """Each player's return, at the end; 0 before (see the module)."""
        if not self.is_terminal():
            return [0.0] * self._players
        state = self.match
        if self._reward == "points":
            return [float(state.scores[side_of(self._players, s)]) for s in range(self._players)]
        if state.winner is None:  # max_moves reached
            return [0.0] * self._players
        return list(rewards("outcome", state, state))

    def resample_from_infostate(
        self, player: int, sampler: Callable[[], float]
    ) -> AmericanSniffState:
        """A world that ``player`` cannot tell from this state, drawn uniformly among all such.

        The world's round under way has other seats' deals and unseen draws
        that agree with everything ``player`` saw (see
        :mod:`american_sniff.envs._worlds`); its :meth:`history` is its own
        (replaying it gives the world), and earlier rounds keep the real
        chance outcomes. Every consistent world has the same probability, as
        every chance outcome of the game does. The draw is seeded with
        ``sampler()`` (a number in [0, 1)) and with how many times this state
        has been resampled: OpenSpiel's IS-MCTS makes a new sampler, which
        gives the same first number, for every world it samples, and the
        worlds must still differ. The worlds are worked out once per state
        and player, and each further draw costs one replay of the round.

        :raises pyspiel.SpielError: if ``player`` is not a player of the game.
        """
        if type(player) is not int or not 0 <= player < self._players:
            raise pyspiel.SpielError(f"no information state for player {player!r}")
        self._resamples += 1
        history = self.history()
        cache = self._worlds
        if cache.key != (player, history):
            game = self.get_game()
            assert isinstance(game, AmericanSniffGame)
            found = Worlds(game.players, game.max_moves, game.blank, history, player)
            before = game.new_initial_state()
            for action in history[: found.round_start]:
                before.apply_action(action)
            cache.key, cache.worlds, cache.start = (player, history), found, before
        worlds, start = cache.worlds, cache.start
        assert worlds is not None
        assert start is not None
        rng = random.Random(f"{sampler()!r}/{self._resamples}")
        world = start.clone()
        for action in worlds.sample(rng)[worlds.round_start :]:
            world.apply_action(action)
        return world

    def __str__(self) -> str:
        kernel = self._kernel
        state = kernel.state()
        hands = " / ".join(" ".join(map(str, hand)) for hand in state.hands)
        table = " ".join(map(str, state.layout.tiles))
        return (
            f"round {state.round}; scores {list(state.scores)}; hands {hands}; "
            f"table {table or '-'}; stock {state.stock_size}; "
            f"{'dealing' if kernel.dealing else 'drawing' if kernel.drawing else 'playing'}"
        )


class _WorldCache:
    """The worlds of a state's last resampling, kept for the next (not copied with the state)."""

    def __init__(self) -> None:
        self.key: tuple[int, list[int]] | None = None
        self.worlds: Worlds | None = None
        self.start: AmericanSniffState | None = None

    def __deepcopy__(self, memo: dict[int, object]) -> _WorldCache:
        return _WorldCache()

    def __reduce__(self) -> tuple[object, ...]:
        return (_WorldCache, ())


class _Observer:
    """OpenSpiel's observer of a player: the encoded view, and a string function."""

    def __init__(self, text: Callable[..., str], size: int) -> None:
        self.tensor = np.zeros(size, np.float32)
        self.dict = {"observation": self.tensor}
        self._text = text

    def set_from(self, state: AmericanSniffState, player: int) -> None:
        """Fill :attr:`tensor` with ``player``'s observation (or information state) of ``state``."""
        if len(self.tensor) == OBSERVATION_SIZE:
            self.tensor[:] = encode_list(state.match, player, state._kernel.round_facts(), 1.0)
        else:
            self.tensor[:] = encode_information_state(view_for(state.match, player))

    def string_from(self, state: AmericanSniffState, player: int) -> str:
        """``player``'s observation (or information state) of ``state`` as text."""
        return self._text(view_for(state.match, player))


pyspiel.register_game(GAME_TYPE, AmericanSniffGame)

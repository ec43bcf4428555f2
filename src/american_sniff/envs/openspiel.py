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

**Observations.** The observation and information-state tensors are the 375
numbers of :func:`american_sniff.observation.encode`; the observation string
is :func:`~american_sniff.observation.observation_string` and the
information-state string :func:`~american_sniff.observation.information_state`,
all of the player's :class:`~american_sniff.PlayerView`. (The tensor is the
same for both: it is not perfect-recall.) The tensors are worked out with
:func:`~american_sniff.observation.encode_state` from the round's public facts,
kept as the actions happen, which gives the view's very numbers without
building the view.

**Returns** are per side and come at the end (OpenSpiel's MCTS bot needs
terminal rewards). With the parameter ``reward="outcome"`` (the default), +1
to each player of the winning side (both partners with 4 players) and -1 to
every other player, as in :mod:`american_sniff.envs.rewards` (the game is
general-sum with 3 players); with ``reward="points"``, each player's side's
final score, the sum of that module's points rewards.

``resample_from_infostate`` deals the tiles a player cannot see again,
respecting every seat's known voids where it can, so that OpenSpiel's IS-MCTS
bot can search it.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any, Generic, TypeVar

import numpy as np
import pyspiel

from ..actions import ACTION_MOVES, NUM_ACTIONS, legal_action_moves, move_of
from ..engine import apply, new_match
from ..moves import Draw, Move
from ..observation import (
    OBSERVATION_SIZE,
    RoundFacts,
    encode_list,
    information_state,
    observation_string,
)
from ..rules import HAND_SIZE, PLAYER_COUNTS, TARGET, side_of
from ..state import MatchState, RoundEnd
from ..tiles import ALL_TILES, Tile
from ..views import view_for
from .rewards import REWARDS, check_choice, rewards

__all__ = ["GAME_TYPE", "AmericanSniffGame", "AmericanSniffState"]

_DEFAULT_MAX_MOVES = 10_000
_T = TypeVar("_T")
_CHANCE = int(pyspiel.PlayerId.CHANCE)
_DRAW = Draw()
_ALL_INDICES = tuple(range(len(ALL_TILES)))
#: The actions of a round since its facts were last brought up to date, newest
#: first: (seat, move, the open values before it, the node before) or None.
_Record = tuple[int, Move, int, "_Record"] | None
_TERMINAL = int(pyspiel.PlayerId.TERMINAL)

#: The game's type, as registered with OpenSpiel under the short name ``american_sniff``.
GAME_TYPE = pyspiel.GameType(
    short_name="american_sniff",
    long_name="American Sniff",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.GENERAL_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=max(PLAYER_COUNTS),
    min_num_players=min(PLAYER_COUNTS),
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification={"players": 2, "max_moves": _DEFAULT_MAX_MOVES, "reward": "outcome"},
)


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
        info = pyspiel.GameInfo(
            num_distinct_actions=NUM_ACTIONS,
            max_chance_outcomes=len(ALL_TILES),
            num_players=players,
            # Points: a side's score, at most the target plus the best
            # placement (35); a round costs at least 15 moves and its
            # settlement at most 170, hence the floor.
            min_utility=-1.0 if reward == "outcome" else -12.0 * max_moves,
            max_utility=1.0 if reward == "outcome" else float(TARGET[players] + 35),
            max_game_length=max_moves,
        )
        super().__init__(
            GAME_TYPE, info, {"players": players, "max_moves": max_moves, "reward": reward}
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
        perfect_recall = iig_obs_type is not None and iig_obs_type.perfect_recall
        return _Observer(information_state if perfect_recall else observation_string)


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
    own. The legal actions are kept with the engine's moves once worked out,
    the tiles left to deal are kept as the deal goes, and the round's public
    facts that observations need (what each seat placed, its known voids) are
    kept as actions happen rather than worked out from a view (see
    :class:`american_sniff.observation.RoundFacts`).
    """

    def __init__(self, game: AmericanSniffGame) -> None:
        super().__init__(game)
        self._players = game.players
        self._max_moves = game.max_moves
        # The round's state before its deal, the tiles dealt so far (by index,
        # in order), those not dealt yet, and the engine's state with them
        # dealt (made when needed).
        self._base = _Shared(game.blank)
        self._deal: tuple[int, ...] = ()
        self._left: tuple[int, ...] = _ALL_INDICES
        self._match: _Shared[MatchState] | None = None
        self._lot_due = True  # the round's opener is still to be drawn by lot
        self._dealing = True
        self._drawing = False  # a draw action awaits the chance node that picks the tile
        self._moves = 0
        self._reward = game.reward
        self._resamples = 0  # how many times resample_from_infostate was called on this state
        self._opener = 0  # the round's opener, once known
        self._player = _CHANCE  # who acts now: CHANCE, TERMINAL or the seat to move
        # The legal actions with their moves, once worked out: shared by copies
        # (it describes this very moment, and copies replace it, never change it).
        self._legal: _Shared[tuple[list[int], dict[int, Move]]] | None = None
        # The round's public facts as of some action, and the actions since
        # (newest first, as (seat, move, open values before, older) nodes).
        self._facts = _Shared(RoundFacts(1, (0,) * game.players, (0,) * game.players))
        self._since: _Shared[_Record] = _Shared(None)

    @property
    def match(self) -> MatchState:
        """The engine's state (see the class)."""
        match = self._match
        if match is None:
            match = self._match = _Shared(self._dealt())
        return match.value

    @match.setter
    def match(self, state: MatchState) -> None:
        self._match = _Shared(state)
        self._legal = None

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
            legal = self._legal
            return (self._legal_pairs() if legal is None else legal.value)[0].copy()
        if acting == _TERMINAL:
            return []
        if acting == _CHANCE:
            return [outcome for outcome, _ in self.chance_outcomes()]
        if player is not None and player < 0:
            raise pyspiel.SpielError(f"Called LegalActions for pseudo-player {player}")
        return []

    def _legal_actions(self, player: int) -> list[int]:
        return self._legal_pairs()[0].copy()

    def _legal_pairs(self) -> tuple[list[int], dict[int, Move]]:
        """The legal actions of the player to move, and the move of each (worked out once)."""
        legal = self._legal
        if legal is None:
            moves = dict(legal_action_moves(self.match))
            legal = self._legal = _Shared((list(moves), moves))
        return legal.value

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The outcomes of this chance node, each with the same probability."""
        if self._dealing:
            outcomes: Sequence[int] = range(self._players) if self._lot_due else self._left
        else:  # the tile drawn
            outcomes = sorted([tile.index for tile in self.match.stock])
        p = 1.0 / len(outcomes)
        return [(outcome, p) for outcome in outcomes]

    def observation_tensor(self, player: int | None = None) -> list[float]:
        """``player``'s observation tensor (by default the player to act), as OpenSpiel's own.

        :raises pyspiel.SpielError: if ``player`` is not a player of the game.
        """
        if player is None:
            player = self._player
        if type(player) is not int or not 0 <= player < self._players:
            raise pyspiel.SpielError(f"no observation for player {player!r}")
        return encode_list(self.match, player, self._round_facts(), 1.0)

    def information_state_tensor(self, player: int | None = None) -> list[float]:
        """The same numbers as :meth:`observation_tensor` (see the module)."""
        return self.observation_tensor(player)

    def _apply_action(self, action: int) -> None:
        # First the action, so that one refused changes nothing.
        if self._dealing:
            self._deal_one(action)
        else:
            self._play(action)
        self._moves += 1
        self._legal = None
        # Who acts next: CHANCE, TERMINAL or the seat to move.
        if self._moves >= self._max_moves:
            self._player = _TERMINAL
        elif self._dealing or self._drawing:
            self._player = _CHANCE
        else:
            state = self.match
            self._player = _TERMINAL if state.winner is not None else state.turn

    def _play(self, action: int) -> None:
        """A player's action, or the chance node of a drawn tile."""
        state = self.match
        if self._drawing:
            if not any(tile.index == action for tile in state.stock):
                raise ValueError(f"chance outcome {action} is not a tile of the stock")
            self._drawing = False
            deck, start = state.info.deck, state.drawn_count
            rest = tuple(t for t in deck[start:] if t.index != action)
            deck = deck[:start] + (ALL_TILES[action],) + rest
            stacked = state.evolve(info=state.info.evolve(deck=deck))
            self._record(stacked, _DRAW, apply(stacked, _DRAW))
            return
        legal = self._legal
        move = (self._legal_pairs() if legal is None else legal.value)[1].get(action)
        if move is None:
            move_of(state, action)  # raises the error that says why
        assert move is not None
        if type(move) is Draw:
            self._drawing = True
            return
        self._record(state, move, apply(state, move))

    def _deal_one(self, action: int) -> None:
        """The chance node of a round's lot or of one tile of its deal."""
        if self._lot_due:
            if type(action) is not int or not 0 <= action < self._players:
                raise ValueError(f"the lot's outcome is a seat, 0 to {self._players - 1}: {action}")
            self._lot_due = False
            self._opener = action
        else:
            left = self._left
            try:
                at = left.index(action)
            except ValueError:
                raise ValueError(f"chance outcome {action} is not a tile left to deal") from None
            self._left = left[:at] + left[at + 1 :]
            self._deal = (*self._deal, action)
            if len(self._deal) == self._players * HAND_SIZE[self._players]:
                self._dealing = False
        self._match = None

    def _record(self, before: MatchState, move: Move, after: MatchState) -> None:
        """Make ``after`` the engine's state, and note the action for the round's facts.

        A move that ended the round (a placement, or drawing the last tile
        when that blocks the round) leads to the next round's chance nodes.
        """
        self._match = _Shared(after)
        if after.round == before.round:
            self._since = _Shared((before.turn, move, before.layout.value_mask, self._since.value))
            return
        players = self._players
        self._facts = _Shared(RoundFacts(after.round, (0,) * players, (0,) * players))
        self._since = _Shared(None)
        if after.winner is None:
            # A new round: its deal (and its lot, after a block) are chance nodes.
            last = after.last_round
            self._lot_due = last is not None and last.end is RoundEnd.BLOCKED
            self._opener = after.opener
            self._base = _Shared(after)
            self._deal = ()
            self._left = _ALL_INDICES
            self._match = None
            self._dealing = True

    def _round_facts(self) -> RoundFacts:
        """The public facts of the round so far (brought up to date with the actions since)."""
        node = self._since.value
        facts = self._facts.value
        if node is not None:
            pending = []
            while node is not None:
                pending.append(node)
                node = node[3]
            for seat, move, values, _ in reversed(pending):
                facts = facts.step(seat, move, values)
            self._facts = _Shared(facts)
            self._since = _Shared(None)
        return facts

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            if self._dealing and self._lot_due:
                return f"lot: seat {action} opens"
            return f"{'deal' if self._dealing else 'draw'} {ALL_TILES[action]}"
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
        """A copy of this state with the tiles ``player`` cannot see dealt again.

        Other hands keep their sizes and, where the deal allows it, their known
        voids; the stock gets the rest. The shuffle is seeded with ``sampler()``
        (a number in [0, 1)) and with how many times this state has been
        resampled: OpenSpiel's IS-MCTS makes a new sampler, which gives the
        same first number, for every world it samples, and the worlds must
        still differ. The copy gives ``player`` the same information state.
        """
        self._resamples += 1
        world = self.clone()
        if not (self._dealing or self._drawing or self.is_terminal()):
            rng = random.Random(f"{sampler()!r}/{self._resamples}")
            world.match = _resampled(self.match, player, rng)
        return world

    def __str__(self) -> str:
        state = self.match
        hands = " / ".join(" ".join(map(str, hand)) for hand in state.hands)
        table = " ".join(map(str, state.layout.tiles))
        return (
            f"round {state.round}; scores {list(state.scores)}; hands {hands}; "
            f"table {table or '-'}; stock {state.stock_size}; "
            f"{'dealing' if self._dealing else 'drawing' if self._drawing else 'playing'}"
        )

    # -- helpers --------------------------------------------------------------

    def _dealt(self) -> MatchState:
        """The round's state with the tiles dealt so far in the hands, the rest in the stock."""
        base = self._base.value
        size = HAND_SIZE[self._players]
        deal = self._deal
        hands = tuple(
            tuple(ALL_TILES[i] for i in sorted(deal[seat * size : (seat + 1) * size]))
            for seat in range(self._players)
        )
        stock = tuple(ALL_TILES[i] for i in self._left)
        opener = base.opener if self._lot_due else self._opener
        info = base.info.evolve(deck=stock, opener=opener)
        return base.evolve(info=info, hands=hands, turn=opener, drawn_count=0)


def _resampled(state: MatchState, seat: int, rng: random.Random) -> MatchState:
    """``state`` with the tiles hidden from ``seat`` shared out again (other hands, stock)."""
    view = view_for(state, seat)
    keep = state.drawn if state.turn != seat else None
    pool = [t for s, hand in enumerate(state.hands) if s != seat for t in hand if t is not keep]
    pool += state.stock
    wanted = {
        s: len(hand) - (keep is not None and keep in hand)
        for s, hand in enumerate(state.hands)
        if s != seat
    }
    for _ in range(100):
        rng.shuffle(pool)
        hands, rest = _fill(pool, wanted, view.voids)
        if hands is not None:
            break
    else:  # the voids leave no room that a few tries find: ignore them
        hands, rest = _fill(pool, wanted, tuple(frozenset[int]() for _ in view.voids))
    assert hands is not None
    new_hands = []
    for s, hand in enumerate(state.hands):
        if s == seat:
            new_hands.append(hand)
        else:
            mine = hands[s] + ([keep] if keep is not None and keep in hand else [])
            new_hands.append(tuple(sorted(mine)))
    deck = state.info.deck[: state.drawn_count] + tuple(rest)
    return state.evolve(hands=tuple(new_hands), info=state.info.evolve(deck=deck))


def _fill(
    pool: list[Tile], wanted: dict[int, int], voids: tuple[frozenset[int], ...]
) -> tuple[dict[int, list[Tile]] | None, list[Tile]]:
    """Deal ``pool`` in order to the seats of ``wanted``: each tile to the first that takes it."""
    hands: dict[int, list[Tile]] = {s: [] for s in wanted}
    rest: list[Tile] = []
    stock_room = len(pool) - sum(wanted.values())
    for tile in pool:
        for s, size in wanted.items():
            if len(hands[s]) < size and tile.low not in voids[s] and tile.high not in voids[s]:
                hands[s].append(tile)
                break
        else:
            if len(rest) == stock_room:
                return None, []
            rest.append(tile)
    return hands, rest


class _Shared(Generic[_T]):
    """An immutable value that the copies of a state share: a deep copy is the value itself.

    OpenSpiel clones a Python game's state with :func:`copy.deepcopy`; engine
    states never change, so copying one would only cost time.
    """

    __slots__ = ("value",)

    def __init__(self, value: _T) -> None:
        self.value = value

    def __deepcopy__(self, memo: dict[int, object]) -> _Shared[_T]:
        return self


class _Observer:
    """OpenSpiel's observer of a player: the encoded view, and a string function."""

    def __init__(self, text: Callable[..., str]) -> None:
        self.tensor = np.zeros(OBSERVATION_SIZE, np.float32)
        self.dict = {"observation": self.tensor}
        self._text = text

    def set_from(self, state: AmericanSniffState, player: int) -> None:
        """Fill :attr:`tensor` with ``player``'s observation of ``state``."""
        self.tensor[:] = encode_list(state.match, player, state._round_facts(), 1.0)

    def string_from(self, state: AmericanSniffState, player: int) -> str:
        """``player``'s observation (or information state) of ``state`` as text."""
        return self._text(view_for(state.match, player))


pyspiel.register_game(GAME_TYPE, AmericanSniffGame)

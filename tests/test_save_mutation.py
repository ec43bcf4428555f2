"""Mutated saves: every save the loader accepts is one that legal play reaches (issue 26).

A Hypothesis test takes real saves (``MatchState.to_json()``) of 2-, 3- and
4-player matches, dealt from the seed and from given deals, at any point of
play: mid-round, at the start of a round after a settlement, round 2 and
later, and at the match's end. It mutates each save (a field edited, tiles
swapped, an action edited, an element dropped or repeated, a round relabelled,
several of these at once) and loads it. Each example also forges a round-3
save whose first seeded round was dealt from a generator state a few outputs
off what play gives (``window_forgery``, issue 42), keeping all a host binds.
Whatever the loader accepts is checked by an independent replay written here
from docs/formats.md and RULES.md, which
never calls the loader's own checks (:mod:`american_sniff.validation`): from
the save's declared source, ``new_match(players, seed=..., deals=...)``, where
the deals are the rounds the save marks as dealt from a given deal (rebuilt
from their hands as revealed, what was placed and what was drawn) followed by
the deals still to use, then every recorded move of the rounds the save holds,
through :func:`american_sniff.apply`. The replay must give the very save.

A save holds at most two rounds: the previous one and the current one. From
round 3 on, the rounds before the previous one are not in it, so the replay
takes them from the host's own record of the match (its moves and deals), as
docs/embedding.md tells a host to keep. An accepted save that this replay does
not give must then differ from the host's record in something the host keeps
and checks itself (players, seed, round, the sequence number, or the scores the
rounds it no longer holds left): a host that binds them refuses it. Anything
else fails the test.

The count of mutants follows the loaded profile (tests/conftest.py):
``max(10, max_examples // 40)`` per example, so about 300 under ``ci`` and
25,000 under ``thorough`` (``HYPOTHESIS_PROFILE=thorough``).
"""

from __future__ import annotations

import copy
import functools
import json
import random
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from american_sniff import (
    ALL_TILES,
    TARGET,
    Deal,
    InvalidState,
    MatchState,
    Place,
    apply,
    legal_moves,
    new_match,
    parse_move,
    parse_tile,
)
from american_sniff.engine import _start_round

#: SplitMix64's increment (docs/rules.md, "How the library deals").
GAMMA = 0x9E3779B97F4A7C15
MASK = 2**64 - 1
#: Mutants drawn per example: the loaded profile's examples scaled (see the module's notes).
MUTANTS = max(10, settings().max_examples // 40)
#: What the test saw, by verdict; printed at the end of the module (``pytest -s``).
COUNTS: Counter[str] = Counter()

Doc = dict[str, Any]
#: How a mutation draws its choices: ``data.draw``.
Draw = Callable[[st.SearchStrategy[Any]], Any]


# -- the matches -------------------------------------------------------------------


class Match:
    """A match played to its end, as a host would record it.

    :ivar players: The number of players.
    :ivar seed: The seed given to new_match.
    :ivar deals: The deals given to new_match.
    :ivar states: Every state of the match, its start first.
    :ivar moves: ``moves[i]`` led from ``states[i]`` to ``states[i + 1]``.
    :ivar rounds: The moves of each round, by round number.
    """

    def __init__(self, players: int, seed: int, deals: tuple[Deal, ...], play: int) -> None:
        self.players, self.seed, self.deals = players, seed, deals
        state = new_match(players, seed=seed, deals=deals)
        chooser = random.Random(play)
        self.states = [state]
        self.moves: list[Any] = []
        self.rounds: dict[int, list[Any]] = {}
        while state.winner is None:
            move = chooser.choice(legal_moves(state))
            self.rounds.setdefault(state.round, []).append(move)
            self.moves.append(move)
            state = apply(state, move)
            self.states.append(state)

    def round_starts(self) -> list[int]:
        """The indices of the states that start a round after the first (just settled)."""
        return [
            i
            for i in range(1, len(self.states))
            if self.states[i].round != self.states[i - 1].round
        ]


def _deal(players: int, chooser: random.Random, opener: bool) -> Deal:
    tiles = list(ALL_TILES)
    chooser.shuffle(tiles)
    size = {2: 7, 3: 6, 4: 5}[players]
    hands = [tiles[s * size : (s + 1) * size] for s in range(players)]
    seat = chooser.randrange(players) if opener else None
    return Deal(hands, tiles[players * size :], seat)


@functools.lru_cache(maxsize=512)
def match(players: int, number: int, given_count: int) -> Match:
    """A match of ``players`` from a seed chosen by ``number``, with ``given_count`` given deals."""
    chooser = random.Random(f"{players}/{number}/{given_count}")
    seed = chooser.getrandbits(64) if number % 4 else number  # some small seeds too
    deals = tuple(_deal(players, chooser, chooser.random() < 0.5) for _ in range(given_count))
    return Match(players, seed, deals, chooser.getrandbits(32))


@st.composite
def saves(draw: st.DrawFn) -> tuple[Match, int]:
    """A match and the index of one of its states, taken where saves are interesting."""
    players = draw(st.sampled_from([2, 3, 4]))
    recorded = match(players, draw(st.integers(0, 63)), draw(st.sampled_from([0, 0, 1, 2])))
    last = len(recorded.states) - 1
    starts = recorded.round_starts()
    where = draw(st.sampled_from(["anywhere", "round start", "end", "round 2", "early"]))
    if where == "round start" and starts:
        index = draw(st.sampled_from(starts))
    elif where == "end":
        index = last
    elif where == "round 2" and starts:
        index = draw(st.integers(starts[0], starts[1] if len(starts) > 1 else last))
    elif where == "early":
        index = draw(st.integers(0, min(last, 12)))
    else:
        index = draw(st.integers(0, last))
    return recorded, index


# -- the mutations -----------------------------------------------------------------


def _paths(node: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Any]]:
    """Every (path, value) of a JSON document, containers included."""
    yield path, node
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _paths(value, (*path, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _paths(value, (*path, index))


def _get(doc: Any, path: tuple[Any, ...]) -> Any:
    for step in path:
        doc = doc[step]
    return doc


def _set(doc: Any, path: tuple[Any, ...], value: Any) -> None:
    _get(doc, path[:-1])[path[-1]] = value


def _is_tile(value: Any) -> bool:
    return isinstance(value, str) and value.startswith("[") and value.endswith("]")


class Skip(Exception):
    """A mutation that cannot apply to a document that earlier mutations changed."""


def _index(draw: Draw, count: object) -> int:
    """An index below ``count``; Skip if there is none."""
    if type(count) is not int or count <= 0 or count > 10**6:
        raise Skip
    index: int = draw(st.integers(0, count - 1))
    return index


def _pick(draw: Draw, items: list[Any]) -> Any:
    return items[_index(draw, len(items))]


def _histories(doc: Doc) -> list[list[Doc]]:
    found = [doc["history"]]
    if isinstance(doc.get("last_round"), dict):
        found.append(doc["last_round"]["history"])
    return found


def edit_int(doc: Doc, draw: Draw) -> str:
    """An integer anywhere (scores, round, turn, opener, seats, sums, points, ...) moved."""
    ints = [p for p, v in _paths(doc) if type(v) is int and p[-1] != "format_version"]
    path = _pick(draw, ints)
    delta = draw(st.sampled_from([-1, 1, -5, 5, -10, 10, 15, -170, 235, 1000, -1_000_000]))
    _set(doc, path, _get(doc, path) + delta)
    return f"int {path[-1]}"


def edit_generator(doc: Doc, draw: Draw) -> str:
    """``seed`` or ``rng`` moved by a few generator outputs, or by one."""
    name = draw(st.sampled_from(["seed", "rng"]))
    steps = draw(st.sampled_from([-28, -27, -1, 1, 27, 28, 3, -3, 55, -56]))
    step = draw(st.sampled_from([GAMMA, 1]))
    doc[name] = str((int(doc[name]) + steps * step) & MASK)
    return f"generator {name}"


def swap_tiles(doc: Doc, draw: Draw) -> str:
    """Two tiles anywhere (hands, stock, drawn tiles, revealed hands, deals) trade places."""
    spots = [p for p, v in _paths(doc) if _is_tile(v)]
    first, second = _pick(draw, spots), _pick(draw, spots)
    a, b = _get(doc, first), _get(doc, second)
    _set(doc, first, b)
    _set(doc, second, a)
    for path in (first, second):  # keep hands sorted, as the writer does
        if path[-3:-2] == ("hands",):
            _get(doc, path[:-1]).sort(key=lambda t: parse_tile(t).index)
    return f"swap {first[0]}/{second[0]}"


def edit_move(doc: Doc, draw: Draw) -> str:
    """An action's move replaced by a draw, a pass or a placement of some tile somewhere."""
    history = _pick(draw, [h for h in _histories(doc) if h])
    action = _pick(draw, history)
    kind = draw(st.sampled_from(["draw", "pass", "place", "seat", "tile"]))
    tiles = [str(t) for t in ALL_TILES]
    if kind == "draw":
        action.update(move="draw", tile=_pick(draw, tiles), end_sum=None, points=None)
    elif kind == "pass":
        action.update(move="pass", tile=None, end_sum=None, points=None)
    elif kind == "place":
        on = draw(st.sampled_from(["low", "high", "line_a", "line_b", "branch_a", "branch_b"]))
        tile, target = _pick(draw, tiles), _pick(draw, tiles)
        action["move"] = f"{tile} opens" if draw(st.booleans()) else f"{tile} on {target} {on}"
    elif kind == "seat":
        action["seat"] = _index(draw, doc["players"])
    else:
        action["tile"] = _pick(draw, tiles)
    return f"move {kind}"


def drop_or_repeat(doc: Doc, draw: Draw) -> str:
    """An element of any list dropped, repeated, or moved next to its neighbour."""
    lists = [p for p, v in _paths(doc) if isinstance(v, list) and v]
    path = _pick(draw, lists)
    items = _get(doc, path)
    index = _index(draw, len(items))
    how = draw(st.sampled_from(["drop", "repeat", "swap"]))
    if how == "drop":
        del items[index]
    elif how == "repeat":
        items.insert(index, copy.deepcopy(items[index]))
    elif index + 1 < len(items):
        items[index], items[index + 1] = items[index + 1], items[index]
    return f"{how} {path[-1] if path else 'top'}"


def relabel(doc: Doc, draw: Draw) -> str:
    """A round's source flipped, with rng wound back over a deal or not (families 1 and 2)."""
    holder = doc
    if isinstance(doc.get("last_round"), dict) and draw(st.booleans()):
        holder = doc["last_round"]
    holder["dealt_from"] = "deal" if holder["dealt_from"] == "seed" else "seed"
    back = draw(st.sampled_from([0, 27, 28]))
    doc["rng"] = str((int(doc["rng"]) - back * GAMMA) & MASK)
    return f"relabel {'last' if holder is not doc else 'current'} {back}"


def shift_scores(doc: Doc, draw: Draw) -> str:
    """A side's score moved in the state and in the previous round's result alike (family 3)."""
    side = _index(draw, len(doc["scores"]))
    delta = 5 * draw(st.sampled_from([-34, -1, 1, 2, 47, -200_000, 20]))
    doc["scores"][side] += delta
    if isinstance(doc.get("last_round"), dict):
        doc["last_round"]["scores"][side] += delta
    return "shift scores"


def edit_count(doc: Doc, draw: Draw) -> str:
    """``actions_before`` moved (family 5), or ``round`` with it."""
    doc["actions_before"] += draw(st.sampled_from([-1, 1, 2, 28, -28]))
    if draw(st.booleans()):
        doc["round"] += draw(st.sampled_from([-1, 1]))
    return "count"


def edit_special(doc: Doc, draw: Draw) -> str:
    """The winner, the drawn tile, the turn or a score at the target set by hand."""
    what = draw(st.sampled_from(["winner", "drawn", "turn", "target", "deals"]))
    sides = len(doc["scores"])
    if what == "winner":
        doc["winner"] = draw(st.sampled_from([None, *range(sides)]))
    elif what == "drawn":
        doc["drawn"] = draw(st.sampled_from([None, *[str(t) for t in ALL_TILES]]))
    elif what == "turn":
        doc["turn"] = _index(draw, doc["players"])
    elif what == "target":
        if doc["players"] not in TARGET:
            raise Skip
        side = _index(draw, sides)
        doc["scores"][side] = TARGET[doc["players"]] + draw(st.sampled_from([-5, 0, 5]))
    elif doc["deals"]:
        del doc["deals"][0]
    else:
        doc["deals"].append({"hands": [["[0|0]"]], "stock": [], "opener": None})
    return str(what)


MUTATIONS: tuple[Callable[[Doc, Draw], str], ...] = (
    edit_int,
    edit_generator,
    swap_tiles,
    edit_move,
    drop_or_repeat,
    relabel,
    shift_scores,
    edit_count,
    edit_special,
)


# -- the round-3 window --------------------------------------------------------------
#: Outputs after the seed where a forged round would begin: play begins round 2
#: 0, 1 or 28 outputs in, and a seeded round 3 after two given rounds 0 to 2 in.
WINDOW = {2: (2, 3, 4, 5, 29, 30, 31, 32), 3: (3, 4, 5, 6)}


def window_forgery(recorded: Match, draw: Draw) -> tuple[int, Doc]:
    """A round-3 save whose first seeded round was dealt from a generator state play never gives.

    The round (round 2, or round 3 after a given round 2) is dealt again from
    the seed advanced by a count of outputs from ``WINDOW`` and played at
    random, keeping everything a host binds: the seed, the round, the sequence
    number, and the scores the rounds not held left. Returns the index of the
    recorded round-3 state it stands for, and the forgery.
    """
    threes = [i for i, s in enumerate(recorded.states) if s.round == 3]
    if not threes:
        raise Skip
    index = draw(st.sampled_from(threes))
    state = recorded.states[index]
    previous = state.info.last_round
    assert previous is not None
    number = 3 if previous.given else 2
    if state.info.given:
        raise Skip
    first = next(i for i, s in enumerate(recorded.states) if s.round == number)
    start = recorded.states[first]  # what the round began with, dealt again below
    before = recorded.states[first - 1] if first else None
    outputs = draw(st.sampled_from(WINDOW[number]))
    last = start.info.last_round
    finisher = None if last is None or last.end.value == "blocked" else last.finisher
    forged = _start_round(
        players=recorded.players,
        seed=recorded.seed,
        number=number,
        rng=(recorded.seed + outputs * GAMMA) & MASK,
        deals=(),
        scores=start.scores,
        finisher=finisher,
        last_round=last,
        actions_before=0 if before is None else start.info.actions_before,
    )
    chooser = random.Random(draw(st.integers(0, 2**16)))
    wanted = len(state.history)
    while forged.winner is None and (
        forged.round < 3 or (forged.round == 3 and len(forged.history) < wanted)
    ):
        forged = apply(forged, chooser.choice(legal_moves(forged)))
    if forged.round != 3:
        raise Skip
    doc: Doc = json.loads(forged.to_json())
    doc["actions_before"] = _seq(json.loads(state.to_json())) - len(doc["history"])
    return index, doc


# -- the independent replay ---------------------------------------------------------


def _dealt(hands_end: list[list[str]], history: list[Doc]) -> list[list[str]] | None:
    """Each hand as dealt: the tiles held at the end, plus those placed, less those drawn."""
    hands = [Counter(hand) for hand in hands_end]
    for action in history:
        seat, move = action["seat"], action["move"]
        if not isinstance(seat, int) or not 0 <= seat < len(hands):
            return None
        if move == "draw":
            hands[seat][action["tile"]] -= 1
        elif move != "pass":
            hands[seat][move.split(" ")[0]] += 1
    if any(n < 0 or n > 1 for hand in hands for n in hand.values()):
        return None
    return [list(hand.elements()) for hand in hands]


def _given_deals(
    history: list[Doc], opener: int, hands_end: list[list[str]], stock: list[str] | None
) -> list[Deal]:
    """The Deals that may have dealt a round marked as given: with its opener, and with a lot.

    ``stock`` is the stock as dealt; None for the previous round, whose tiles
    never drawn are not in the save (any order of them replays the same).
    """
    dealt = _dealt(hands_end, history)
    if dealt is None:
        return []
    if stock is None:
        drawn = [a["tile"] for a in history if a["move"] == "draw"]
        held = {t for hand in dealt for t in hand} | set(drawn)
        stock = drawn + [str(t) for t in ALL_TILES if str(t) not in held]
    try:
        return [
            Deal([[parse_tile(t) for t in h] for h in dealt], [parse_tile(t) for t in stock], o)
            for o in (opener, None)
        ]
    except Exception:  # a deal no Deal can hold: no replay through it
        return []


def _source_deals(doc: Doc, prefix: tuple[Deal, ...]) -> list[tuple[Deal, ...]]:
    """Every list of deals for new_match that the save's declared sources allow."""
    options: list[list[tuple[Deal, ...]]] = [[prefix]]
    last = doc["last_round"]
    if last is not None and last["dealt_from"] == "deal":
        history = last["history"]
        opener = history[0]["seat"] if history else 0
        options.append([(d,) for d in _given_deals(history, opener, last["hands"], None)])
    if doc["dealt_from"] == "deal":
        history = doc["history"]
        stock = [a["tile"] for a in history if a["move"] == "draw"] + doc["stock"]
        deals = _given_deals(history, doc["opener"], doc["hands"], stock)
        options.append([(d,) for d in deals])
    rest = tuple(
        Deal(
            [[parse_tile(t) for t in h] for h in d["hands"]],
            [parse_tile(t) for t in d["stock"]],
            d["opener"],
        )
        for d in doc["deals"]
    )
    found: list[tuple[Deal, ...]] = [()]
    for choice in options:
        found = [a + b for a in found for b in choice]
    return [deals + rest for deals in found]


def replay(doc: Doc, recorded: Match) -> MatchState | None:
    """The state legal play reaches from the save's declared source, if one equals the save.

    ``doc`` is the accepted save as the library writes it. Rounds before the
    previous one come from the host's record ``recorded``.
    """
    players, seed, number = doc["players"], int(doc["seed"]), doc["round"]
    held = [doc["last_round"]["history"]] if doc["last_round"] is not None else []
    held.append(doc["history"])
    first_held = number - len(held) + 1
    prefix_moves = [m for r in range(1, first_held) for m in recorded.rounds.get(r, [])]
    prefix = recorded.deals[: first_held - 1]  # the record's given rounds come first
    for deals in _source_deals(doc, prefix):
        try:
            state = new_match(players, seed=seed, deals=deals)
            for move in prefix_moves:
                state = apply(state, move)
            for history in held:
                for action in history:
                    state = apply(state, parse_move(action["move"]))
        except Exception:  # an illegal move or a deal that cannot be: not this source
            continue
        if json.loads(state.to_json()) == doc:
            return state
    return None


def _previous_start_scores(doc: Doc) -> list[int] | None:
    """The scores at the start of the previous round: what the rounds not held left."""
    last = doc["last_round"]
    if last is None:
        return None
    scores = list(last["scores"])
    sides = len(scores)
    for seat, amount in enumerate(last["deductions"]):
        scores[seat % sides] += amount
    for action in last["history"]:
        if action["points"]:
            scores[action["seat"] % sides] -= action["points"]
    return scores


def _seq(doc: Doc) -> int:
    return int(doc["actions_before"]) + len(doc["history"])


def host_refuses(doc: Doc, original: Doc) -> list[str]:
    """What a host that keeps players, seed, round, seq and the earlier rounds sees changed."""
    changed = [k for k in ("players", "seed", "round") if doc[k] != original[k]]
    if _seq(doc) != _seq(original):
        changed.append("seq")
    if doc["round"] >= 3 and _previous_start_scores(doc) != _previous_start_scores(original):
        changed.append("earlier rounds")
    return changed


# -- the test ----------------------------------------------------------------------


def check_mutant(recorded: Match, original: Doc, mutant: Doc, what: str) -> None:
    """Load ``mutant``; if the loader accepts it, the independent replay must confirm it."""
    try:
        loaded = MatchState.from_json(json.dumps(mutant))
    except InvalidState:
        COUNTS["refused"] += 1
        return
    doc = json.loads(loaded.to_json())
    if replay(doc, recorded) is not None:
        COUNTS["accepted, replayed"] += 1
        return
    changed = host_refuses(doc, original) if doc["round"] >= 3 else []
    assert changed, (
        f"an unreachable save was accepted ({what}): no replay from its declared source "
        f"gives it\n{json.dumps(mutant)}"
    )
    COUNTS["accepted, refused by the host: " + ", ".join(changed)] += 1


@given(saves(), st.data())
def test_every_accepted_mutant_is_reachable(save: tuple[Match, int], data: st.DataObject) -> None:
    """Mutated saves of real matches are refused, or legal play from their source reaches them."""
    recorded, index = save
    original = json.loads(recorded.states[index].to_json())
    # The unmutated save itself: the replay is checked to confirm what it should.
    assert replay(original, recorded) is not None
    for _ in range(MUTANTS):
        mutant = copy.deepcopy(original)
        whats = []
        for _ in range(data.draw(st.integers(1, 3))):
            mutation = data.draw(st.sampled_from(MUTATIONS))
            try:
                whats.append(mutation(mutant, data.draw))
            except (Skip, LookupError, TypeError, ValueError, AttributeError):
                # an earlier mutation left nothing for this one to change
                whats.append(f"{mutation.__name__} skipped")
        COUNTS["mutants"] += 1
        check_mutant(recorded, original, mutant, "; ".join(whats))
    try:
        index, forged = window_forgery(recorded, data.draw)
    except Skip:
        return
    COUNTS["round-3 window forgeries"] += 1
    original = json.loads(recorded.states[index].to_json())
    check_mutant(recorded, original, forged, "a round dealt from a generator state in the window")


@pytest.fixture(autouse=True, scope="module")
def _report() -> Iterator[None]:
    yield
    if COUNTS:
        print("\nmutated saves:", dict(sorted(COUNTS.items())))


def test_the_replay_refuses_a_forged_save() -> None:
    """The independent replay itself gives nothing for an unreachable save (it can fail)."""
    recorded = match(2, 1, 0)
    start = recorded.round_starts()[0]
    doc = json.loads(recorded.states[start].to_json())
    assert replay(doc, recorded) is not None
    doc["dealt_from"] = "deal"  # a given round after a seeded one: never reached
    assert replay(doc, recorded) is None
    doc = json.loads(recorded.states[start + 1].to_json())
    first = doc["history"][0]
    assert isinstance(parse_move(first["move"]), Place)
    doc["last_round"]["scores"][0] += 5  # round 1 would not have started at 0
    doc["scores"][0] += 5
    assert replay(doc, recorded) is None

"""The quick reader of untrusted state texts, in the exact shape the writers give.

It builds the very state the strict reader (:mod:`american_sniff.serial.loading`)
builds, or gives way to it; see the notes below.
"""

from __future__ import annotations

import itertools
import json
from typing import Any

import attrs

from .._json import DealDoc, read_u64
from ..deal import tile_index
from ..errors import InvalidState
from ..layout import Layout, placed
from ..moves import Draw, Move, Place, parse_move
from ..rules import RULES_VERSION, side_count, side_of
from ..state import (
    ActionLog,
    Deal,
    MatchState,
    RoundEnd,
    RoundInfo,
    RoundResult,
    log_of,
    previous_node,
)
from ..tiles import Tile
from ..validation import replayed_tables
from .conventions import (
    FORMAT_VERSION,
    MAX_SAFE_INTEGER,
    MAX_STATE_BYTES,
    STATE_FORMAT,
    TILE_OF_TEXT,
)
from .parsing import (
    RoundDoc,
    StateDoc,
    check_lengths,
    long_number,
    refuse_float,
    too_dense,
)
from .writing import (
    AFTER_HISTORY,
    AFTER_LAST,
    HISTORY_KEY,
    LAST_KEY,
    LOG_TEXTS,
    SAVES_KEPT,
    SIGNED_PLACEMENTS,
    SIGNED_TABLES,
    SIGNED_TABLES_LIMIT,
    TEXTS_LIMIT,
    action_text,
    kept_move_text,
    log_text,
    round_text,
)

# Nothing here is public: the package's own modules use these names.
__all__: list[str] = []

# -- reading, fast --------------------------------------------------------------------
# An untrusted state text is first read by the quick reader below: the plain
# JSON parser (in C, no Python call per value) and one pass over the parsed
# document, in the exact shape the writers give. It takes only documents that
# the strict reader above reads the same way, and builds the very state that
# reader builds; on anything else (an unusual but valid document, or a bad
# one) it gives way to the strict reader, which names the problem. Either
# way, the state is then checked in full by validate_state.
#
# What the strict parser refuses, the quick one must not let through unseen:
# floats and NaN are refused by hooks (called only when one appears); every
# integer of the document is range-checked where it is read; and a repeated
# key is caught by counting quotes. In JSON text a quote only delimits a
# string or is escaped inside one, so a text holds exactly two quotes per
# string of its parsed document if no string was dropped, as a repeated key
# and the value it replaced would be; the reader counts the strings it takes.

#: The keys of a state document, as the writers give them.
_SIGNED_STATE_KEYS = frozenset(attrs.fields_dict(StateDoc))
_STATE_KEYS = _SIGNED_STATE_KEYS - {"signature"}
#: The keys of a finished round's object (an action's are read one by one).
_ROUND_KEYS = frozenset(attrs.fields_dict(RoundDoc))
_DEAL_KEYS = frozenset(attrs.fields_dict(DealDoc))


class _NotQuick(Exception):
    """The quick reader leaves this document to the strict one."""


def _quick_int(value: object) -> int:
    """``value`` if it is an integer that the strict parser reads (at most 2**53 - 1 in size)."""
    if type(value) is not int or not -MAX_SAFE_INTEGER <= value <= MAX_SAFE_INTEGER:
        raise _NotQuick
    return value


def _quick_tiles(texts: object) -> tuple[Tile, ...]:
    """The tiles of a JSON list of tile texts, each as the library's instance."""
    if type(texts) is not list:
        raise _NotQuick
    tiles = TILE_OF_TEXT
    return tuple([tiles[text] for text in texts])  # a KeyError for anything but a tile's text


def _quick_hands(docs: object, count: int) -> tuple[tuple[tuple[Tile, ...], ...], int]:
    """``count`` hands of tile texts, and how many strings they hold."""
    if type(docs) is not list or len(docs) != count:
        raise _NotQuick
    hands = tuple([_quick_tiles(hand) for hand in docs])
    return hands, sum([len(hand) for hand in hands])


#: Each move read by its text (the very move ``parse_move(text, strict=True)`` gives).
_MOVES_READ: dict[str, Move] = {}


def _read_move(text: str) -> Move:
    """The move of ``text`` (strict), kept in :data:`_MOVES_READ`."""
    move = parse_move(text, strict=True)
    if len(_MOVES_READ) >= TEXTS_LIMIT:
        _MOVES_READ.clear()
    _MOVES_READ[text] = move
    return move


def _quick_log(
    docs: object, players: int, final: tuple[int, ...]
) -> tuple[ActionLog, int, Layout, list[Tile]]:
    """The action log of a history (as :func:`action_log_from`), its strings, table and draws.

    The table is built from the placements unchecked: the validation's replay
    checks them. The draws are the tiles drawn, in order (as :func:`_drawn_tiles`).
    """
    if type(docs) is not list:
        raise _NotQuick
    actions: list[tuple[int, Move, Tile | None, int | None, int]] = []
    strings = 0
    tiles = TILE_OF_TEXT
    drew: list[Tile] = []
    most = MAX_SAFE_INTEGER
    moves = _MOVES_READ
    for doc in docs:
        # Five keys, each of them there (a KeyError if not): exactly the action's.
        if type(doc) is not dict or len(doc) != 5:
            raise _NotQuick
        seat, text, tile_text_, end_sum, points = (
            doc["seat"],
            doc["move"],
            doc["tile"],
            doc["end_sum"],
            doc["points"],
        )
        if type(seat) is not int or not 0 <= seat < players or type(text) is not str:
            raise _NotQuick
        move = moves.get(text)
        if move is None:
            move = _read_move(text)
        kind = type(move)
        if kind is Place:
            if (
                tile_text_ is not None
                or type(end_sum) is not int
                or type(points) is not int
                or not -most <= end_sum <= most
                or not -most <= points <= most
            ):
                raise _NotQuick
            actions.append((seat, move, None, end_sum, points))
            strings += 6
        elif end_sum is not None or points is not None:
            raise _NotQuick
        elif kind is Draw:
            drawn = tiles[tile_text_]
            drew.append(drawn)
            actions.append((seat, move, drawn, None, 0))
            strings += 7
        elif tile_text_ is None:
            actions.append((seat, move, None, None, 0))
            strings += 6
        else:
            raise _NotQuick
    scores = list(final)
    after: list[tuple[int, ...]] = []
    for seat, _, _, _, points in reversed(actions):
        after.append(tuple(scores))
        if points:
            scores[side_of(players, seat)] -= points
    after.reverse()
    log: ActionLog = None
    layout = Layout.empty()
    placements: list[str] = []
    for (seat, move, tile, end_sum, points), scores_after in zip(actions, after, strict=True):
        log = (seat, move, tile, end_sum, points, scores_after, log)  # see action_node
        if type(move) is Place:
            at = move.at
            layout = placed(layout, move.tile, None if at is None else at.order)
            placements.append(kept_move_text(move))
    _keep_placements(layout, placements)
    return log, strings, layout, drew


def _keep_placements(layout: Layout, placements: list[str]) -> None:
    """Keep the text of ``layout``'s placements for the views, as a signed load does.

    ``placements`` are the texts of the moves placed, in order (see
    :data:`SIGNED_PLACEMENTS`): the views write a loaded table from them.
    """
    if not placements:
        return
    if len(SIGNED_PLACEMENTS) >= SAVES_KEPT:
        SIGNED_PLACEMENTS.clear()
    SIGNED_PLACEMENTS[id(layout)] = (layout, '"' + '","'.join(placements) + '"')


def _quick_scores(values: object, count: int) -> tuple[int, ...]:
    if type(values) is not list or len(values) != count:
        raise _NotQuick
    return tuple([_quick_int(value) for value in values])


def _quick_round(doc: object, players: int) -> tuple[RoundResult, int]:
    """The previous round's result (as :func:`_round_from`), and how many strings it holds."""
    if type(doc) is not dict or doc.keys() != _ROUND_KEYS:
        raise _NotQuick
    end, dealt_from, finisher = doc["end"], doc["dealt_from"], doc["finisher"]
    if end not in ("domino", "blocked") or dealt_from not in ("seed", "deal"):
        raise _NotQuick
    if finisher is not None:
        _quick_int(finisher)
    deductions = _quick_scores(doc["deductions"], players)
    scores = _quick_scores(doc["scores"], side_count(players))
    before = list(scores)
    for seat, amount in enumerate(deductions):
        before[side_of(players, seat)] += amount
    log, strings, layout, _ = _quick_log(doc["history"], players, tuple(before))
    hands, tiles = _quick_hands(doc["hands"], len(doc["hands"]))
    result = RoundResult(
        round=_quick_int(doc["round"]),
        end=RoundEnd(end),
        finisher=finisher,
        layout=layout,
        hands=hands,
        deductions=deductions,
        scores=scores,
        log=log,
        given=dealt_from == "deal",
    )
    return result, len(_ROUND_KEYS) + 2 + strings + tiles


def _quick_deals(docs: object, players: int) -> tuple[tuple[Deal, ...], int]:
    """The deals still to use (as :func:`_deals_from`), and how many strings they hold."""
    if type(docs) is not list:
        raise _NotQuick
    deals = []
    strings = 0
    for doc in docs:
        if type(doc) is not dict or doc.keys() != _DEAL_KEYS:
            raise _NotQuick
        hands, held = _quick_hands(doc["hands"], len(doc["hands"]))
        stock = _quick_tiles(doc["stock"])
        opener = doc["opener"]
        if opener is not None:
            _quick_int(opener)
        deals.append(Deal(hands=hands, stock=stock, opener=opener))
        strings += len(_DEAL_KEYS) + held + len(stock)
    return tuple(deals), strings


def _quick_state(
    data: dict[str, Any], known: tuple[RoundResult, int, int] | None = None
) -> tuple[MatchState, int]:
    """The state of a parsed document (as :func:`_build_state`), and how many strings it holds.

    ``known`` is a previous round read before (see :data:`_ROUNDS_READ`),
    whose text stood where this document's ``last_round`` holds null.

    :raises _NotQuick: or another exception, if the document is not as the
        writers give it; the strict reader then reads it.
    """
    keys = data.keys()
    strings = len(keys)
    if keys == _SIGNED_STATE_KEYS:
        if type(data["signature"]) is not str:
            raise _NotQuick
        strings += 1
    elif keys != _STATE_KEYS:
        raise _NotQuick
    if (
        data["format"] != STATE_FORMAT
        or type(data["format_version"]) is not int
        or data["format_version"] != FORMAT_VERSION
        or data["rules_version"] != RULES_VERSION
    ):
        raise _NotQuick
    players = data["players"]
    if players not in (2, 3, 4) or type(players) is not int:
        raise _NotQuick
    seed = read_u64(data["seed"], "$.seed", InvalidState)
    rng = read_u64(data["rng"], "$.rng", InvalidState)
    dealt_from = data["dealt_from"]
    if dealt_from not in ("seed", "deal"):
        raise _NotQuick
    strings += 5  # format, rules_version, seed, rng, dealt_from
    scores = _quick_scores(data["scores"], side_count(players))
    log, in_history, layout, drawn_tiles = _quick_log(data["history"], players, scores)
    hands, in_hands = _quick_hands(data["hands"], players)
    stock = _quick_tiles(data["stock"])
    deals, in_deals = _quick_deals(data["deals"], players)
    last = data["last_round"]
    result: RoundResult | None
    if known is not None:
        if last is not None or known[1] != players:
            raise _NotQuick
        result, in_last = known[0], known[2]
    else:
        result, in_last = (None, 0) if last is None else _quick_round(last, players)
    drawn_text, winner = data["drawn"], data["winner"]
    drawn = None if drawn_text is None else TILE_OF_TEXT[drawn_text]
    if winner is not None:
        _quick_int(winner)
    info = RoundInfo(
        players=players,
        seed=seed,
        round=_quick_int(data["round"]),
        opener=_quick_int(data["opener"]),
        deck=(*drawn_tiles, *stock),
        deals=deals,
        rng=rng,
        last_round=result,
        actions_before=_quick_int(data["actions_before"]),
        given=dealt_from == "deal",
    )
    state = MatchState(
        info=info,
        turn=_quick_int(data["turn"]),
        hands=tuple([tuple(sorted(hand, key=tile_index)) for hand in hands]),
        layout=layout,
        scores=scores,
        winner=winner,
        drawn=drawn,
        drawn_count=len(drawn_tiles),
        log=log,
    )
    strings += in_history + in_hands + len(stock) + in_deals + in_last + (drawn is not None)
    return state, strings


#: The text of each previous round read before, as the writers give it, with
#: the round's result, the number of players and how many strings the text
#: holds. Every state of a round holds the same previous round, so a server
#: that loads each state of a match reads the round before once per round:
#: the text is cut out and the rest parsed alone, and validation knows the
#: result (see validation's _check_replays). Only the text of a result of a
#: state that loaded is kept, as the writer writes it, so what stands in its
#: place is exactly that result.
_ROUNDS_READ: dict[str, tuple[RoundResult, int, int]] = {}
_ROUNDS_READ_LIMIT = 256


#: What :func:`quick_read` gives for a document it did not parse as the strict reader does.
NOT_PARSED: Any = object()


def quick_read(text: object) -> tuple[MatchState | None, Any]:
    """The state of an untrusted ``text``, fully validated, or None (the strict reader reads it).

    With None, the document parsed. The document is what the strict reader's parser
    (:func:`~american_sniff.serial.parsing.read_json`) gives for ``text``, so
    that the strict reader need not parse it again; or :data:`NOT_PARSED`
    where that is not certain. The two parsers differ only in what the strict
    one refuses: floats and constants (refused by both), integers of 16 digits
    or more (so a text that may hold one is not given), and a key repeated in
    an object, which the plain parser keeps once. A text whose every quote
    delimits a string of the parsed document (twice the strings, keys
    included) has no repeated key, and no escaped quote either.

    :raises InvalidState: for a list longer than any state holds
        (:func:`~american_sniff.serial.parsing.check_lengths`), read no further.
    """
    if isinstance(text, bytes | bytearray):
        if len(text) > MAX_STATE_BYTES:
            return None, NOT_PARSED
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError:
            return None, NOT_PARSED
    if type(text) is not str or len(text) > MAX_STATE_BYTES or too_dense(text) is not None:
        return None, NOT_PARSED
    quotes = text.count('"')
    first = text.find(LAST_KEY)
    end = text.find(AFTER_LAST, first)
    known = _ROUNDS_READ.get(text[first + len(LAST_KEY) : end]) if 0 < first < end else None
    if known is not None:
        # The same document with null for the previous round. As for repeated
        # keys (above): with every quote of the rest delimiting a string the
        # reader took, the key cut at is the document's own last_round, and
        # what stood there is the kept text, whole.
        rest = text[: first + len(LAST_KEY)] + "null" + text[end:]
        state = _quick_checked(rest, quotes, known)[0]
        if state is not None:
            return state, NOT_PARSED
    state, data = _quick_checked(text, quotes, None)
    if state is None:
        if data is not NOT_PARSED and (quotes != 2 * _strings(data) or long_number(text)):
            data = NOT_PARSED
        return None, data
    result = state.info.last_round
    if result is not None:
        written = round_text(result)
        if len(_ROUNDS_READ) >= _ROUNDS_READ_LIMIT:
            _ROUNDS_READ.clear()
        _ROUNDS_READ[written] = (result, state.info.players, written.count('"') // 2)
    return state, NOT_PARSED


def _strings(data: Any) -> int:
    """How many strings the parsed JSON ``data`` holds, the keys of its objects included."""
    if type(data) is str:
        return 1
    count = 0
    stack = [data] if type(data) in _CONTAINERS else []
    while stack:
        value = stack.pop()
        if type(value) is dict:
            count += len(value)
            value = list(value.values())
        # A long list of one kind (a hostile text's) is counted at the speed of C.
        kinds = list(map(type, value))
        count += kinds.count(str)
        if kinds.count(dict) + kinds.count(list):
            stack.extend(itertools.compress(value, map(_CONTAINERS.__contains__, kinds)))
    return count


_CONTAINERS = frozenset((dict, list))


def _quick_checked(
    text: str, quotes: int, known: tuple[RoundResult, int, int] | None
) -> tuple[MatchState | None, Any]:
    """The state of ``text`` as the quick reader reads it, validated; or None, and the document.

    ``quotes`` is the number of quotes in the whole document (with the kept
    previous round's text, if ``known``). The document is the plain parser's
    (:data:`NOT_PARSED` if it refused the text); the state's validation
    never changes it.
    """
    try:
        data = json.loads(text, parse_float=refuse_float, parse_constant=refuse_float)
    except Exception:  # whatever it is, the strict reader names it
        return None, NOT_PARSED
    if type(data) is not dict:
        return None, data
    # Before a long list is read, and refused here: the strict reader would
    # refuse it too (on its length, or first on a repeated key or a long
    # number its parser refuses), and handing it the document would cost a
    # count of its strings.
    check_lengths(data, InvalidState)
    try:
        state, strings = _quick_state(data, known)
    except Exception:  # whatever it is, the strict reader names it
        return None, data
    if quotes != 2 * strings:  # a repeated key, or an escaped quote: see above
        return None, data
    try:
        tables = replayed_tables(state)
    except InvalidState:
        return None, data
    log = log_of(state)
    _keep_history_text(text, log)
    if log is not None:  # the views walk the round on the replay's tables (see SIGNED_TABLES)
        if len(SIGNED_TABLES) >= SIGNED_TABLES_LIMIT:
            SIGNED_TABLES.clear()
        SIGNED_TABLES[id(log)] = (log, tables)
    return state, NOT_PARSED


#: Texts of histories known to be the writers' (:func:`log_text` without its
#: brackets) of the actions they hold: a history read before, or written.
_WRITTEN_HISTORIES: set[str] = set()
_WRITTEN_LIMIT = 1 << 10


def _keep_history_text(text: str, log: ActionLog) -> None:
    """Keep the history's text of a validated document ``text`` as :func:`log_text` writes it.

    ``log`` is the history as the quick reader read it. The array between
    the document's own history key and its deals key (no other array of
    actions is followed by that key; every quote of the text delimits a
    string the reader took) is the writers' text of ``log`` if it is a text
    known to be (:data:`_WRITTEN_HISTORIES`), or one such with the writers'
    text of ``log``'s newest action after it: the history of the state
    before and the action since, as a server loads the state it saved last.
    Otherwise the text is written (once; it is then known). Either way
    saving the next state, or a view of this one, writes one action more,
    not the whole round again.
    """
    if log is None:
        return
    start = text.find(HISTORY_KEY)
    end = text.find(AFTER_HISTORY, start)
    written = text[start + len(HISTORY_KEY) : end] if 0 < start < end else ""
    known = _WRITTEN_HISTORIES
    if written not in known:
        cut = written.rfind(',{"seat":')
        before = previous_node(log)
        newest = action_text(log)
        if before is None:
            same = written == newest
        else:
            same = cut > 0 and written[cut + 1 :] == newest and written[:cut] in known
        if not same:
            written = log_text(log)[1:-1]  # kept in LOG_TEXTS
        if len(known) >= _WRITTEN_LIMIT:
            known.clear()
        known.add(written)
        if not same:
            return
    if len(LOG_TEXTS) >= SAVES_KEPT:
        LOG_TEXTS.clear()
    LOG_TEXTS[id(log)] = (log, written)

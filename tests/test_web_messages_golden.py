"""The state messages stay the same: every message of seeded matches against the texts made before.

``web_messages_golden.json`` holds, for each action of six seeded matches
(two each of 2, 3 and 4 players: three with a person in every seat, three
with one person and bots, whose moves the test makes), a digest of every
message :meth:`Room.text <american_sniff.web.rooms.Room.text>` makes after
it: for each seat and the spectator, with the wide table, with the narrow
one and without the pictures. The seats play random legal moves, the
person against bots takes moves back now and then, the people go on after
each settlement, and the room is told of a rematch and of an end at the
host's cap on the way, so that every member of the message changes. The
file was written by the server as it stood before its texts were made
cheaper (``python tests/test_web_messages_golden.py --write``); the tests
make the same messages with today's server, in a server's order (the
matches in turn, one room each) and again from a new room for every action,
and require the same bytes.
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from pathlib import Path
from typing import Any, cast

import pytest

pytest.importorskip("starlette")  # the rooms' sockets are Starlette's

from american_sniff.engine import legal_moves
from american_sniff.web.connection import Connection
from american_sniff.web.game import Game, new_setup
from american_sniff.web.hosting import SPECTATOR
from american_sniff.web.pictures import NARROW, WIDE
from american_sniff.web.rooms import Room
from american_sniff.web.store import Store

#: Where the digests are kept.
GOLDEN = Path(__file__).with_name("web_messages_golden.json")

#: The actions played in each match (fewer if it ends before).
ACTIONS = 150


def _step(game: Game, rng: random.Random) -> bool:
    """Make one change of ``game`` as its seats would; False once the match is over."""
    state = game.state
    if state.winner is not None:
        return False
    waiting = game.waiting_for()
    if waiting:
        change = game.plan_go_on(waiting[0])
        assert change is not None
        game.take(change)
        return True
    forced = game.forced()
    if forced is not None:
        game.take(game.plan_play(forced))
        return True
    if rng.random() < 0.08 and game.undo_point(0) is not None:
        game.take(game.plan_undo(0))
        return True
    move = rng.choice(legal_moves(state))
    if game.setup.seats[state.turn].is_human:
        game.take(game.plan_move(state.turn, str(move), game.seq))
    else:
        game.take(game.plan_play(move))
    return True


def _messages(room: Room) -> str:
    """Every message of the room's match now: each viewer, each drawing and none."""
    game = room.game
    viewers: list[int | str] = [*range(game.setup.players), SPECTATOR]
    texts = []
    for viewer in viewers:
        texts.append(room.text(viewer, table=WIDE))
        texts.append(room.text(viewer, table=NARROW))
        texts.append(room.text(viewer, pictures=False))
    return "\0".join(texts)


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:20]


def _played(fresh: bool) -> list[list[str]]:
    """Each match's digests, action by action; with ``fresh``, from a new room every time."""
    store = Store(":memory:")
    games = []
    for n in range(6):
        players = 2 + n % 3
        kinds = ["human"] * players if n < 3 else ["human"] + ["random"] * (players - 1)
        setup = new_setup(players, kinds, seed=5000 + n)
        games.append(Game.create(store, setup, match_id=f"golden-{n}"))
    rngs = [random.Random(7000 + n) for n in range(6)]
    rooms = [Room(game, set()) for game in games]
    digests: list[list[str]] = [[] for _ in games]
    for action in range(ACTIONS):
        for n, game in enumerate(games):
            if not _step(game, rngs[n]):
                continue
            if fresh:
                rooms[n] = Room(game, set())
            room = rooms[n]
            room.rematch = "again-id" if 60 <= action < 70 else None
            room.ended = "the host's cap" if 80 <= action < 85 else None
            digests[n].append(_digest(_messages(room)))
    return digests


def _golden() -> list[list[str]]:
    digests: list[list[str]] = json.loads(GOLDEN.read_text())["digests"]
    return digests


def test_the_golden_file_covers_many_messages() -> None:
    """Six matches, most of their actions' messages different."""
    golden = _golden()
    assert len(golden) == 6
    assert sum(len(match) for match in golden) > 600
    assert len({d for match in golden for d in match}) > 600


@pytest.mark.parametrize("fresh", [False, True], ids=["carried-on", "fresh-room"])
def test_every_message_is_the_same_as_before(fresh: bool) -> None:
    """Today's messages are byte for byte those of the server before."""
    golden = _golden()
    played = _played(fresh)
    for n, (now, before) in enumerate(zip(played, golden, strict=True)):
        assert len(now) == len(before), n
        wrong = [a for a, (x, y) in enumerate(zip(now, before, strict=True)) if x != y]
        assert not wrong, (n, wrong[:10])


class _Page:
    """A page's socket that asked for the drawings only where they changed: it keeps them.

    Its :meth:`send_text_now` takes each message as the page's ``play.js``
    does (``keptPictures``): a drawing the message leaves out is the last
    one's, and the table's drawing is kept only where the message carries
    neither drawing of the table.
    """

    def __init__(self) -> None:
        self.current: dict[str, Any] | None = None
        self.sizes: list[int] = []

    def send_text_now(self, text: str) -> bool:
        message = json.loads(text)
        self.sizes.append(len(text))
        current = self.current
        if current is not None:
            tables = "table" in message or "table_narrow" in message
            members = ["last_table", "tallies"]
            if not tables:
                members += ["table", "table_narrow"]
            for member in members:
                if member not in message and member in current:
                    message[member] = current[member]
        self.current = message
        return True


def test_a_page_that_keeps_the_drawings_sees_every_message_whole() -> None:
    """Sent only the drawings that changed, a page that keeps the others holds each whole message.

    Every message of the seeded matches, for each seat and the spectator,
    the pages switching between the wide and the narrow table now and then
    (and sent the state again each time, as the page is): what the page
    holds is the message :meth:`Room.text` makes with every drawing, and the
    messages are much shorter.
    """
    store = Store(":memory:")
    rng = random.Random(11)
    whole = sent = 0
    for n in range(3):
        players = 2 + n
        game = Game.create(store, new_setup(players, ["human"] * players, seed=9100 + n))
        room = Room(game, set())
        viewers: list[int | str] = [*range(players), SPECTATOR]
        pages = [_Page() for _ in viewers]
        connections = [
            Connection(cast(Any, object()), viewer, table=WIDE, changed=True, wire=page)
            for viewer, page in zip(viewers, pages, strict=True)
        ]
        for connection in connections:
            room.sockets[connection] = cast(Any, None)
            room.send(connection, room.text_for(connection))
        switched = 0
        for _ in range(200):
            if not _step(game, rng):
                break
            room.broadcast()
            if rng.random() < 0.05:
                connection = rng.choice(connections)
                switched += 1
                room.show(connection, NARROW if connection.table == WIDE else WIDE)
            for connection, page in zip(connections, pages, strict=True):
                full = room.text(connection.viewer, table=connection.table)
                assert page.current == json.loads(full)
                whole += len(full)
        assert switched
        sent += sum(sum(page.sizes) for page in pages)
    assert sent < whole * 0.5


if __name__ == "__main__" and sys.argv[1:] == ["--write"]:
    GOLDEN.write_text(json.dumps({"digests": _played(fresh=True)}, indent=0) + "\n")

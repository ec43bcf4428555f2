"""A match's room: what a server holds of one match while it is in memory, and its fan-out.

A :class:`Room` holds the live game, the lock every change of it holds, its
open sockets (each with its sender task), its bot driver's task, what the
match's players chose or were told (the bots' speed, the rematch, why it
ended at the host's cap), and the texts of its messages. Its fan-out
(:meth:`Room.broadcast`) queues each browser its message in the order of
the changes, without waiting on any browser: each has its own bounded queue
(:class:`~american_sniff.web.connection.Connection`), and one that lets it
fill is dropped.

Which rooms are held, and when one is forgotten, is
:class:`~american_sniff.web.cache.Rooms`'s concern.
"""

from __future__ import annotations

import asyncio
import json

from ..views import event_for, spectator_view, view_for
from .connection import TOO_SLOW, Connection, close
from .game import Game, GameError
from .pictures import TABLES, WIDE, Pictures

__all__ = ["Room", "viewer_of"]


class Room:
    """One match held in memory: its game, its lock, its sockets and the texts sent to them.

    :param game: The match.
    :param closing: Where the tasks that close dropped sockets are kept
        until they are done (shared by every room of a server).
    """

    def __init__(self, game: Game, closing: set[asyncio.Task[None]]) -> None:
        #: The match.
        self.game = game
        #: The lock every change of the match holds.
        self.lock = asyncio.Lock()
        #: The open sockets, each with the task that sends its queue.
        self.sockets: dict[Connection, asyncio.Task[None]] = {}
        #: The task that lets the bots play, if one was started.
        self.driver: asyncio.Task[None] | None = None
        #: The id of the match's rematch, once one was asked for.
        self.rematch: str | None = None
        #: Why the match ended with no winner at the host's cap, or None.
        self.ended: str | None = None
        #: The bots' speed: the last a seat chose (one of
        #: :data:`~american_sniff.web.flow.BOT_SPEEDS`), else ``normal``.
        self.speed = "normal"
        #: How many of its writes are waiting for the database.
        self.unwritten = 0
        #: How long the log was after this worker's last own write to it (0:
        #: none): where it is shorter than the log, another worker wrote last.
        self.written = 0
        #: How many browsers' hellos are awaited.
        self.arriving = 0
        #: The drawings of its state.
        self.pictures = Pictures()
        self._closing = closing
        # The texts made for the match's last change (the game and its version):
        # the members shared by all viewers, and per viewer what _seen gives.
        self._texts: tuple[Game, int, str, dict[int | str, tuple[str, str]]] | None = None
        # The members' texts that never change for the game: the head of the
        # payload before the value of ``you``, and the seats and names.
        self._fixed: tuple[Game, str, str] | None = None

    @property
    def id(self) -> str:
        """The match's id."""
        return self.game.id

    def busy(self) -> bool:
        """Whether the room is in use: a browser, a hello awaited, a change or a bot running."""
        driver = self.driver
        return bool(
            self.sockets
            or self.arriving
            or self.lock.locked()
            or (driver is not None and not driver.done())
            or self.unwritten
        )

    # -- the messages --------------------------------------------------------------------

    def _fixed_texts(self) -> tuple[str, str]:
        """The JSON texts of the payload's members that never change for the game, written once.

        They are the members before the value of ``you``, and ``seats`` and
        ``names`` with the name of ``waiting_for``.
        """
        game = self.game
        fixed = self._fixed
        if fixed is None or fixed[0] is not game:
            seats = json.dumps([s.kind for s in game.setup.seats])
            names = json.dumps([s.name for s in game.setup.seats])
            fixed = self._fixed = (
                game,
                f'{{"type": "state", "match": {json.dumps(game.id)}, "you": ',
                f', "seats": {seats}, "names": {names}, "waiting_for": ',
            )
        return fixed[1], fixed[2]

    def _members(self) -> str:
        """The JSON text of the payload's members after ``you`` and before ``can_undo``.

        They are the same for every viewer: ``seats``, ``names`` and ``waiting_for``.
        """
        # json.dumps of a list of seat numbers.
        waiting = "[" + ", ".join([str(seat) for seat in self.game.waiting_for()]) + "]"
        return f"{self._fixed_texts()[1]}{waiting}"

    def _seen(self, viewer: int | str) -> tuple[str, str]:
        """The JSON text of the payload's members before ``rematch``, and after it.

        Made once per change of the match and viewer, by the library's own
        writers (``to_json``), which keep the pieces that views share (the
        table, the histories, the last round), and the same text for every
        socket of one viewer.
        """
        game = self.game
        cached = self._texts
        if cached is None or cached[0] is not game or cached[1] != game.version:
            # The members that are the same for every viewer, made once per change.
            cached = self._texts = (game, game.version, self._members(), {})
        shared, seen = cached[2], cached[3]
        made = seen.get(viewer)
        if made is None:
            state = game.state
            seat = viewer if isinstance(viewer, int) else None
            view = spectator_view(state) if seat is None else view_for(state, seat)
            event = "null" if game.seq == 0 else event_for(state, seat, view=view).to_json()
            settled = "false" if view.last_round is None else "true"
            # json.dumps of the members in their order, without the closing brace.
            can_undo = isinstance(viewer, int) and game.undo_point(viewer) is not None
            you = str(viewer) if isinstance(viewer, int) else json.dumps(viewer)
            head = (
                f"{self._fixed_texts()[0]}{you}{shared}, "
                f'"can_undo": {"true" if can_undo else "false"}'
            )
            made = seen[viewer] = (
                head,
                f'"view": {view.to_json()}, "event": {event}, "settled": {settled}',
            )
        return made

    def text(self, viewer: int | str, *, pictures: bool = True, table: str = WIDE) -> str:
        """The message that tells ``viewer`` how the match stands, as JSON text.

        It holds the viewer's view and nothing more: ``type`` (``"state"``),
        ``match``, ``you``, ``seats``, ``names``, ``waiting_for``,
        ``can_undo``, ``rematch`` (the rematch's id, or null), ``ended`` (why
        the match ended at the server's cap, or null), ``view`` (the view
        document), ``event`` (the last action as the viewer sees it),
        ``settled``, and the pictures with the drawing ``table`` of the table
        (:meth:`Pictures.drawn <american_sniff.web.pictures.Pictures.drawn>`)
        unless ``pictures`` is false.

        The view and the event are made once per change of the match and
        viewer, the pictures once per state and drawing (the same for every
        viewer) and only if some browser shows them; only the small members
        are made for each message.
        """
        members = self._members_of(viewer)
        if not pictures:
            return f"{members}}}"
        return f"{members}, {self.pictures.drawn(self.game.state, table)[1]}}}"

    def text_for(self, connection: Connection) -> str:
        """:meth:`text` as ``connection``'s hello asked for it.

        Where the connection takes each drawing only where it changed
        (:attr:`Connection.changed
        <american_sniff.web.connection.Connection.changed>`), a drawing whose
        text is the one the connection was last sent is left out, and the
        connection's :attr:`~american_sniff.web.connection.Connection.shown`
        now holds the ones this message carries.

        >>> from american_sniff.web.game import Game, new_setup
        >>> from american_sniff.web.store import Store
        >>> game = Game.create(Store(":memory:"), new_setup(2, ["human", "human"], seed=1))
        >>> room = Room(game, set())
        >>> page = Connection(None, 0, changed=True)  # (its text needs no socket)
        >>> first, again = json.loads(room.text_for(page)), json.loads(room.text_for(page))
        >>> [member in first for member in ("table", "last_table", "tallies")]
        [True, True, True]
        >>> [member in again for member in ("table", "last_table", "tallies")]
        [False, False, False]
        """
        if not (connection.changed and connection.pictures):
            return self.text(
                connection.viewer, pictures=connection.pictures, table=connection.table
            )
        shown = connection.shown
        text = self._members_of(connection.viewer)
        for member, drawn in self.pictures.members(self.game.state, connection.table):
            if shown.get(member) is not drawn:
                shown[member] = drawn
                text = f'{text}, "{member}": {drawn}'
        return f"{text}}}"

    def _members_of(self, viewer: int | str) -> str:
        """The JSON text of ``viewer``'s message without the pictures and the closing brace."""
        head, seen = self._seen(viewer)
        rematch = self.rematch
        link = "null" if rematch is None else json.dumps(rematch)
        ended = self.ended
        why = "null" if ended is None else json.dumps(ended)
        return f'{head}, "rematch": {link}, "ended": {why}, {seen}'

    # -- the fan-out ---------------------------------------------------------------------

    def broadcast(self) -> None:
        """Queue every browser of the match its message; drop the browsers that do not read.

        Nothing here waits on a browser: each has its own queue and sender.
        """
        for connection in list(self.sockets):
            self.send(connection, self.text_for(connection))

    def show(self, connection: Connection, table: object) -> None:
        """Send ``connection`` its message again, with the drawing ``table`` its page now shows.

        :raises GameError: if ``table`` is not one of
            :data:`~american_sniff.web.pictures.TABLES`.
        """
        if not isinstance(table, str) or table not in TABLES:
            raise GameError(f"a table is one of {', '.join(TABLES)}")
        connection.table = table
        # (The page keeps only the drawing of the table it asked for last.)
        connection.shown.clear()
        if connection.pictures:
            self.send(connection, self.text_for(connection))

    def send(self, connection: Connection, text: str) -> None:
        """Queue ``text`` for ``connection``, and drop it if its queue is full."""
        if connection.offer(text):
            return
        pump = self.sockets.pop(connection, None)
        if pump is not None:
            pump.cancel()
        task = asyncio.create_task(close(connection.socket, TOO_SLOW, "too slow: reconnect"))
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)

    def error(self, connection: Connection, message: str) -> None:
        """Queue ``connection`` an ``error`` message that says ``message``."""
        self.send(connection, json.dumps({"type": "error", "message": message}))

    def tell_all(self, message: str) -> None:
        """Queue every browser of the match an ``error`` message that says ``message``."""
        for connection in list(self.sockets):
            self.error(connection, message)


def viewer_of(game: Game, token: object) -> int | str | None:
    """The viewer whose link ``token`` is, or None (for any token that is no link's).

    A link's token is ASCII; :func:`secrets.compare_digest`, which compares
    it, refuses other text with an exception, so such a token is no link.
    """
    if not isinstance(token, str) or not token.isascii():
        return None
    return game.viewer(token)

"""The browser game: ``american-sniff serve`` (the ``web`` extra: Starlette and uvicorn).

* :mod:`~american_sniff.web.hosting`: what each browser is sent, a seat's
  view or the spectator view, and nothing else;
* :mod:`~american_sniff.web.store`: the SQLite database, an append-only log
  per match;
* :mod:`~american_sniff.web.game`: one match, resumed by replaying its log:
  the host's view of the shared game controller
  (:mod:`american_sniff.session`, which holds the bots, hints and undo);
* :mod:`~american_sniff.web.frames`: the replay viewer's frames of a record;
* :mod:`~american_sniff.web.limits`: what a client may send, and how often;
* :mod:`~american_sniff.web.app`: the ASGI application (needs the extra),
  whose server is made of one module per concern (each needs the extra but
  :mod:`~american_sniff.web.pictures`):

  * :mod:`~american_sniff.web.connection`: one WebSocket on the wire, its
    bounded queue and sender;
  * :mod:`~american_sniff.web.pictures`: the tables and tallies, drawn once
    per state;
  * :mod:`~american_sniff.web.rooms`: a match's room in memory (its game,
    lock, sockets) and the fan-out of its states;
  * :mod:`~american_sniff.web.cache`: which matches are held in memory, and
    when they are forgotten;
  * :mod:`~american_sniff.web.flow`: a browser's message carried out, a
    change written then made, the cap on a match's length, the rematch;
  * :mod:`~american_sniff.web.driver`: the bots' moves and their leases;
  * :mod:`~american_sniff.web.listener`: the other workers' appends;
  * :mod:`~american_sniff.web.transport`: the WebSocket endpoint, its hello
    and its limits;
  * :mod:`~american_sniff.web.routes`: the HTTP endpoints;

* :mod:`~american_sniff.web.serving`: the HTTP server with the connection's
  limits (needs the extra);
* :mod:`~american_sniff.web.handoff`: with several workers, each game
  WebSocket handed to the worker that owns its match (needs the extra);
* :mod:`~american_sniff.web.workers`: ``serve --workers N``, the forked
  workers and their supervisor;
* ``static/``: the pages, plain HTML, CSS and JavaScript with no build step.

Only the server's modules import Starlette, and only
:mod:`~american_sniff.web.serving` and :mod:`~american_sniff.web.handoff`
uvicorn.
"""

__all__: list[str] = []

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
* :mod:`~american_sniff.web.app`: the ASGI application (needs the extra);
* :mod:`~american_sniff.web.serving`: the HTTP server with the connection's
  limits (needs the extra);
* ``static/``: the pages, plain HTML, CSS and JavaScript with no build step.

Only :mod:`~american_sniff.web.app` imports Starlette, and only
:mod:`~american_sniff.web.serving` uvicorn.
"""

__all__: list[str] = []

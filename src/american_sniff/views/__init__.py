"""What a seat, or a spectator, may see of a match; and one action at a time.

* :func:`~american_sniff.view_for` gives a :class:`~american_sniff.PlayerView`: one seat's own
  hand and everything public. :func:`~american_sniff.spectator_view` (also
  ``view_for(state, None)``) gives a :class:`~american_sniff.SpectatorView`: everything public
  and nothing any one seat alone may see (no hand, no drawn tile, no legal
  moves, no tile drawn by anyone).
* :func:`~american_sniff.event_for` gives the :class:`~american_sniff.ViewEvent`
  of one action as a seat (or a spectator) sees it, with a sequence number;
  :func:`~american_sniff.apply_event` turns the view before the action into the
  view after it, exactly. A server sends the
  first view once and then one small event per action;
  :func:`~american_sniff.views.events_since` gives a client that reconnects
  the events it missed.

A view holds the table, how many tiles each hand and the stock hold, the
scores, whose turn it is, the round's actions (a draw by another seat shows
that a tile was drawn, not which), the previous round's *result* (its hands
are revealed at settlement; its actions only on request), and what each seat
is known not to hold. It never holds the other hands, the stock, the seed or
the generator state, from which the deal could be worked out.

**Cost.** A view costs the same at any point of a round. What views need
beyond the state (the voids, the histories with hidden draws, the sequence
number) is worked out once per action and kept beside the state's own action
log, as a chain that shares every earlier link: the view of a state whose
previous action was already seen is one step from it. A view of a state seen
cold (say, just loaded) walks its round once, on the tables a signed load
kept if it was one (nothing is placed again), and makes only its own
viewer's history, which is the round's own log until a draw by another seat
must be hidden. The voids are played through the replayer's step on the
table (:func:`~american_sniff.replayer.table_after`). The history and the
previous round's history are built as tuples only when read.

**Sequence numbers.** A view's ``seq`` is how many actions the match
has had: 0 at its start, and one more with each action, across rounds. The
event of an action carries the number of the view it leads to, so a server
can refuse a move sent for an older view.

**Known voids.** The rules make a player place whenever they can, so a seat
that draws or passes shows that it holds no tile with any value open at that
moment. What stays known afterwards, for the current round:

* a seat that passes without drawing, or draws exactly once and places the
  tile it drew, is known to hold none of the values that were open, on top of
  what was known before (it holds the same hand as before);
* a seat that keeps a drawn tile this turn (it drew two tiles or more and
  placed the last, or drew and then passed) kept tiles that showed none of the
  open values but may show others: it is known to hold none of the values
  that were open, and nothing else;
* while a seat has just drawn and is still to move, its new tile may show
  anything, so nothing is known about it;
* placing a tile by choice tells nothing new, and a new round starts afresh.

**The package.** Import every name from ``american_sniff.views`` (or
``american_sniff``); its modules are its layout, not its API:
:mod:`~american_sniff.views.model` (the classes and the formats' names),
:mod:`~american_sniff.views.facts` (what views keep beside the state, and the
voids), :mod:`~american_sniff.views.build` (making views),
:mod:`~american_sniff.views.events` (events), :mod:`~american_sniff.views.writer`
(JSON out), :mod:`~american_sniff.views.reader` (JSON in) and
:mod:`~american_sniff.views.checks` (what legal play can give: the reader's
and :func:`~american_sniff.apply_event`'s checks).
"""

from __future__ import annotations

# TABLE_PAGE (imported with `as`) stays importable here as before the split,
# outside __all__.
from .build import spectator_view, view_for
from .checks import check_event, check_view
from .events import EventsUnavailable, apply_event, event_for, events_since
from .facts import known_voids
from .model import EVENT_FORMAT, VIEW_FORMAT, MovePreview, PlayerView, SpectatorView, ViewEvent
from .model import TABLE_PAGE as TABLE_PAGE
from .reader import MAX_VIEW_BYTES, event_from_json, view_from_json
from .writer import event_to_dict, geometry_to_dict, view_to_dict

__all__ = [
    "EVENT_FORMAT",
    "MAX_VIEW_BYTES",
    "VIEW_FORMAT",
    "EventsUnavailable",
    "MovePreview",
    "PlayerView",
    "SpectatorView",
    "ViewEvent",
    "apply_event",
    "check_event",
    "check_view",
    "event_for",
    "event_from_json",
    "event_to_dict",
    "events_since",
    "geometry_to_dict",
    "known_voids",
    "spectator_view",
    "view_for",
    "view_from_json",
    "view_to_dict",
]

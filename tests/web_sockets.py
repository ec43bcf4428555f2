"""What the web tests expect of a refused WebSocket.

Starlette is imported when used, so that the base install (no web extra),
which reads every module here for doctests, does without it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from starlette.testclient import WebSocketTestSession

__all__ = ["refused"]


def refused(ws: WebSocketTestSession, words: str, code: int = 4429) -> None:
    """The socket is told why (an error message naming ``words``), then closed with ``code``."""
    from starlette.websockets import WebSocketDisconnect  # (the web extra)

    message = ws.receive_json()
    assert message["type"] == "error", message
    assert words in message["message"], message
    with pytest.raises(WebSocketDisconnect) as closed:
        ws.receive_json()
    assert closed.value.code == code

"""What the web tests expect of a refused WebSocket (imported after Starlette is found)."""

from __future__ import annotations

import pytest
from starlette.testclient import WebSocketTestSession
from starlette.websockets import WebSocketDisconnect

__all__ = ["refused"]


def refused(ws: WebSocketTestSession, words: str, code: int = 4429) -> None:
    """The socket is told why (an error message naming ``words``), then closed with ``code``."""
    message = ws.receive_json()
    assert message["type"] == "error", message
    assert words in message["message"], message
    with pytest.raises(WebSocketDisconnect) as closed:
        ws.receive_json()
    assert closed.value.code == code

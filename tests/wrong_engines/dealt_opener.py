"""A wrong engine: the deal's opener always opens, even after a player went out.

The rules make the player who went out open the next round; the opener a
deal names is the outcome of a lot, used only where a lot is due.
"""

from __future__ import annotations

from minimal import Rules, serve


class DealtOpener(Rules):
    """Takes the deal's opener whenever there is one (the bug)."""

    def opener(self, dealt: int, finisher: int | None) -> int:
        """The deal's opener, finisher or not."""
        return dealt


if __name__ == "__main__":
    serve(DealtOpener(), "wrong: the deal's opener always opens")

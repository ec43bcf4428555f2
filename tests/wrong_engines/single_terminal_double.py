"""A wrong engine: a terminal double counts its free end once (v), not both halves (2v).

The rules count a terminal double, the lone or unbranched Sniff included,
as both its halves.
"""

from __future__ import annotations

from minimal import Rules, serve


class SingleTerminalDouble(Rules):
    """Counts a terminal double as one half."""

    def terminal_worth(self, half: int) -> int:
        """One half only (the bug)."""
        return half


if __name__ == "__main__":
    serve(SingleTerminalDouble(), "wrong: terminal double counted once")

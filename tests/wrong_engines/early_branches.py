"""A wrong engine: the Sniff's branches open as soon as one of its line sides is joined.

The rules open them only once both line sides are joined. A Sniff placed
later joins by line A, so here its branches are open at once.
"""

from __future__ import annotations

from minimal import Rules, serve


class EarlyBranches(Rules):
    """Opens the branches after one joined line side instead of two."""

    def branches_open(self, joined: set[str]) -> bool:
        """Open once either line side is joined (the bug)."""
        return "line_a" in joined or "line_b" in joined


if __name__ == "__main__":
    serve(EarlyBranches(), "wrong: early branches")

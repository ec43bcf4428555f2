"""A wrong engine: a hand given in a ``new`` request keeps the order it was written in.

The engine sorts a hand only when a tile is drawn into it, so the revealed
hands of ``round_end`` come out unsorted for a seat that was given its tiles
out of order and never drew. Hands dealt from a seed are sorted. Only a
round that ends while such a seat holds two or more tiles shows it: the
vector ``matches/undrawn-hand-given``.
"""

from __future__ import annotations

from minimal import Rules, Tile, serve


class GivenHandOrder(Rules):
    """Keeps a given hand as written (the bug)."""

    def hand_order(self, hand: list[Tile], given: bool) -> list[Tile]:
        """A given hand as written; a dealt one sorted."""
        return list(hand) if given else sorted(hand)


if __name__ == "__main__":
    serve(GivenHandOrder(), "wrong: a given hand kept unsorted")

"""A wrong engine: a hand dealt from a seed keeps the shuffle's order.

The engine sorts a hand only when a tile is drawn into it, so the revealed
hands of ``round_end`` come out in the shuffle's order for a seat that never
drew. Given hands are sorted. Only a seeded round that ends while such a
seat holds two or more tiles shows it: the vector ``matches/undrawn-hand-seeded``.
"""

from __future__ import annotations

from minimal import Rules, Tile, serve


class DealtHandOrder(Rules):
    """Keeps a seeded hand in the shuffle's order (the bug)."""

    def hand_order(self, hand: list[Tile], given: bool) -> list[Tile]:
        """A dealt hand as the shuffle left it; a given one sorted."""
        return sorted(hand) if given else list(hand)


if __name__ == "__main__":
    serve(DealtHandOrder(), "wrong: a dealt hand kept in the shuffle's order")

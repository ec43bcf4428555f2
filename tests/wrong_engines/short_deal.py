"""A wrong engine: a deal is checked for repeated tiles, but not for a missing one.

A deal of 27 tiles, none twice, is accepted, and its round is played with a
stock one tile short. The protocol refuses it as ``invalid_deal``: a deal
holds each of the 28 tiles once. The vector ``robustness/deal-corners`` sends one.
"""

from __future__ import annotations

from typing import Any

from minimal import BadRequest, Engine, Refused, Rules, read_tile, serve


class ShortDeal(Engine):
    """Counts no tiles, only repeats (the bug)."""

    def check_deal(self, deal: dict[str, Any], players: int, seeded: bool) -> None:
        """Refuse a deal with a bad tile, a repeat, wrong hands or a bad opener; not a short one."""
        size = {2: 7, 3: 6, 4: 5}[players]
        try:
            tiles = [read_tile(t) for hand in deal["hands"] for t in hand]
            tiles += [read_tile(t) for t in deal["stock"]]
        except Refused:
            raise BadRequest("invalid_deal", "a tile is not a tile") from None
        opener = deal.get("opener")
        if (
            len(deal["hands"]) != players
            or any(len(hand) != size for hand in deal["hands"])
            or len(set(tiles)) != len(tiles)
            or (opener is None and not seeded)
            or (opener is not None and not 0 <= opener < players)
        ):
            raise BadRequest("invalid_deal", "the deal is not a deal")


if __name__ == "__main__":
    serve(Rules(), "wrong: a deal short of a tile", ShortDeal(Rules(), "wrong: short deals"))

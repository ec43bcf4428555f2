"""A wrong engine: a seed's digits may be any Unicode decimal digits.

The protocol's seed is ASCII digits only (docs/protocol.md and
docs/formats.md). This engine checks the text with a pattern whose digit
class is Unicode's, and converts it with a conversion that accepts every
decimal digit, so a seed written in full-width or Arabic-Indic digits deals
a match. The vector ``robustness/seed-texts`` sends such seeds.
"""

from __future__ import annotations

import re

from minimal import Engine, Rules, serve


class UnicodeSeedDigits(Engine):
    """Takes any decimal digits (the bug)."""

    @staticmethod
    def seed_ok(seed: str) -> bool:
        """Whether the seed is decimal digits of any script, without a leading zero."""
        digits = re.fullmatch(r"\d+", seed) is not None
        return digits and (seed == "0" or int(seed[0]) != 0) and int(seed) < 1 << 64


if __name__ == "__main__":
    serve(Rules(), "wrong: Unicode seed digits", UnicodeSeedDigits(Rules(), "wrong: seed digits"))

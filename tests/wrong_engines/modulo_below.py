"""A wrong engine: its generator's ``below(n)`` takes every output modulo ``n``.

SplitMix64's outputs are 64-bit; ``below(n)`` must redraw an output at or
above ``2**64 - 2**64 % n`` so that no value is more likely than another.
This engine skips that rejection step. Random seeds almost never reach it
(fewer than 28 outputs in 2**64 are rejected), so only a seed chosen by
inverting the mixer shows the gap: the seeds of the ``seeds/rejected-...``
vectors, whose deal (or lot) differs without the redraw.
"""

from __future__ import annotations

from minimal import Rules, _next, serve


class ModuloBelow(Rules):
    """Keeps the first output whatever it is (the bug)."""

    def below(self, n: int, state: int) -> tuple[int, int]:
        """The first output modulo ``n``, never redrawn."""
        out, state = _next(state)
        return out % n, state


if __name__ == "__main__":
    serve(ModuloBelow(), "wrong: below without its rejection step")

"""A wrong engine: ``below(n)``'s limit is written from the largest output, ``MAX - MAX % n``.

With ``MAX = 2**64 - 1`` that is the right limit, ``2**64 - 2**64 % n``, for
every ``n`` but a power of two: there no output is to be redrawn, yet this
limit redraws the top ``n``. Only a seed whose draw of ``below(2)``,
``below(4)``, ``below(8)`` or ``below(16)`` falls among those few outputs shows
it: the ``seeds/power-of-two-...`` vectors.
"""

from __future__ import annotations

from minimal import Rules, _next, serve

#: The largest output of the generator.
MAX = (1 << 64) - 1


class PowerOfTwoBelow(Rules):
    """Redraws outputs at or above ``MAX - MAX % n`` (the bug, for n a power of two)."""

    def below(self, n: int, state: int) -> tuple[int, int]:
        """An integer below ``n``, redrawing from the wrong limit."""
        limit = MAX - MAX % n
        while True:
            out, state = _next(state)
            if out < limit:
                return out % n, state


if __name__ == "__main__":
    serve(PowerOfTwoBelow(), "wrong: below's limit as MAX - MAX % n")

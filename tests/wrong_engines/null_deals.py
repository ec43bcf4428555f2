"""A wrong engine: ``deals: null`` in a ``new`` request is read as no deals.

The protocol's ``deals`` is a list, and null is not one: ``bad_request``. This
engine drops a null ``deals`` before checking the request, so a seeded
``new`` with ``"deals": null`` starts a match. The vector
``robustness/deal-corners`` sends one.
"""

from __future__ import annotations

from typing import Any

from minimal import Engine, Rules, check_request, serve


class NullDeals(Engine):
    """Takes null deals for none (the bug)."""

    def check(self, request: dict[str, Any]) -> None:
        """Drop a null ``deals``, then check the rest."""
        if request.get("cmd") == "new" and "deals" in request and request["deals"] is None:
            del request["deals"]
        check_request(request)


if __name__ == "__main__":
    serve(Rules(), "wrong: deals null", NullDeals(Rules(), "wrong: deals null"))

"""A wrong engine: ``deals: []`` with no seed passes the check that some deal is given.

The check asks only whether ``deals`` is present. The protocol refuses a
``new`` with neither a deal nor a seed as ``invalid_deal``, and an empty list
gives no deal. This engine starts a match with nothing to deal, and its
answer fails. The vector ``robustness/deal-corners`` sends one.
"""

from __future__ import annotations

from typing import Any

from minimal import Engine, Rules, serve


class EmptyDeals(Engine):
    """Counts an empty deals list as deals (the bug)."""

    @staticmethod
    def lacks_deals(request: dict[str, Any]) -> bool:
        """Whether ``deals`` is missing; an empty list is not."""
        return "deals" not in request


if __name__ == "__main__":
    serve(Rules(), "wrong: deals empty", EmptyDeals(Rules(), "wrong: deals empty"))

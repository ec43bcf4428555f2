"""Argument types and options shared by several commands."""

from __future__ import annotations

import argparse

from ..rng import check_seed

__all__ = ["add_players", "add_seed", "seed"]


def seed(text: str) -> int:
    """An argparse type: a seed from 0 to 2**64 - 1, in decimal or with a 0x prefix."""
    try:
        value = int(text, 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    try:
        return check_seed(value)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def add_players(parser: argparse.ArgumentParser, default: int = 4) -> None:
    """Add ``--players``: 2, 3 or 4."""
    parser.add_argument(
        "--players",
        type=int,
        choices=(2, 3, 4),
        default=default,
        help=f"number of players (default {default}); with 4, seats 0+2 play against 1+3",
    )


def add_seed(parser: argparse.ArgumentParser, what: str, default: int = 1) -> None:
    """Add ``--seed``: the match's seed."""
    parser.add_argument(
        "--seed", type=seed, default=default, help=f"seed for {what} (default {default})"
    )

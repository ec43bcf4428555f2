"""Argument types and options shared by several commands."""

from __future__ import annotations

import argparse
import textwrap
from collections.abc import Callable
from typing import Any, TypeVar

import attrs

from ..rng import check_seed

__all__ = [
    "BOX_DRAWING",
    "Command",
    "add_players",
    "add_seed",
    "bot_kinds",
    "bot_list",
    "can_encode",
    "positive",
    "read_number",
    "seed",
]

_Number = TypeVar("_Number", int, float)


#: The characters the text drawing of the table uses beyond ASCII.
BOX_DRAWING = "│─┌┐└┘├┤┬┴┼║═╔╗╚╝╠╣╦╩╬╒╕╘╛╞╡╤╧╪╓╖╙╜╟╢╥╨╫"


def can_encode(stream: object, text: str) -> bool:
    """Whether ``stream``'s encoding can write ``text`` (no encoding: only ASCII)."""
    encoding = getattr(stream, "encoding", None) or "ascii"
    try:
        text.encode(encoding)
    except (UnicodeEncodeError, LookupError):
        return False
    return True


def read_number(text: str, kind: Callable[[str], _Number], what: str) -> _Number:
    """``kind(text)``, for an argparse type that reads a number and then checks its range.

    :raises argparse.ArgumentTypeError: ``not <what>: '<text>'`` if ``kind``
        refuses ``text`` (a ``ValueError``).
    """
    try:
        return kind(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not {what}: {text!r}") from None


def _int_any_base(text: str) -> int:
    return int(text, 0)


def seed(text: str) -> int:
    """An argparse type: a seed from 0 to 2**64 - 1, in decimal or with a 0x prefix."""
    value = read_number(text, _int_any_base, "an integer")
    try:
        return check_seed(value)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _no_options(parser: argparse.ArgumentParser) -> None:
    """A command without options of its own adds none."""


@attrs.frozen
class Command:
    """One command of ``american-sniff``: its help, its options and what carries it out.

    Each command module defines one, ``COMMAND``; :func:`american_sniff.cli.main`
    adds them to its parser in the order ``--help`` lists them.

    :ivar name: The command's name on the command line (``"demo"``).
    :ivar summary: Its line in ``american-sniff --help``.
    :ivar description: What its own ``--help`` shows before the options, each
        paragraph (parted by a blank line) filled to 78 columns.
    :ivar examples: Command lines its ``--help`` shows last, one each.
    :ivar run: Carries the command out from the parsed arguments and returns the
        exit status.
    :ivar options: Adds the command's own arguments to its parser.
    :ivar notes: What its ``--help`` shows between the options and the
        examples, as written (nothing when empty).
    """

    name: str
    summary: str
    description: str
    examples: tuple[str, ...]
    run: Callable[[argparse.Namespace], int]
    options: Callable[[argparse.ArgumentParser], None] = _no_options
    notes: str = ""

    def register(self, commands: Any) -> argparse.ArgumentParser:
        """Add the command's parser to ``commands`` (an argparse subparsers object).

        The parsed arguments carry ``run`` and ``parser``, the command's own
        parser (to report a usage error as that command's).
        """
        shown = "\n".join(f"  {example}" for example in self.examples)
        epilog = f"examples:\n{shown}"
        parser: argparse.ArgumentParser = commands.add_parser(
            self.name,
            help=self.summary,
            description=_wrapped(self.description),
            epilog=f"{self.notes}\n\n{epilog}" if self.notes else epilog,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        self.options(parser)
        parser.set_defaults(run=self.run, parser=parser)
        return parser


def _wrapped(text: str, width: int = 78) -> str:
    """``text`` with each paragraph filled to ``width``; indented lines are kept as written."""
    paragraphs = []
    for paragraph in text.split("\n\n"):
        if any(line.startswith(" ") for line in paragraph.splitlines()):
            paragraphs.append(paragraph)
        else:
            paragraphs.append(textwrap.fill(" ".join(paragraph.split()), width))
    return "\n\n".join(paragraphs)


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


def add_playouts(parser: argparse.ArgumentParser) -> None:
    """Add ``--playouts``: the search bot's budget; None leaves the bot's own default."""
    parser.add_argument(
        "--playouts",
        type=positive,
        default=None,
        help="the search bot's budget: deals sampled per choice (default: the bot's own)",
    )


def positive(text: str) -> int:
    """An argparse type: a positive integer."""
    value = read_number(text, int, "an integer")
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def bot_list(text: str) -> tuple[str, ...]:
    """An argparse type: comma-separated bot names from the registry, e.g. ``search,greedy``."""
    # The registry is loaded only when a command parses bot names.
    from ..bots import BOTS  # noqa: PLC0415

    names = tuple(name.strip() for name in text.split(","))
    for name in names:
        if name not in BOTS:
            raise argparse.ArgumentTypeError(
                f"no bot is named {name!r}; the bots are {', '.join(BOTS)}"
            )
    return names


def bot_kinds(text: str) -> tuple[str, ...]:
    """An argparse type: like :func:`bot_list`, each name at most once."""
    names = bot_list(text)
    if len(set(names)) != len(names):
        raise argparse.ArgumentTypeError(f"name each bot kind once, got {text!r}")
    return names

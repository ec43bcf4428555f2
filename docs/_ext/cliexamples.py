"""A directive that shows the examples of every ``american-sniff`` command.

Each command's ``--help`` ends with an epilog of examples, written for a
terminal. sphinx-argparse would render that text as a paragraph, which runs
the command lines together; this directive instead shows each command's epilog
as a literal block, so the examples on the page are the very text of
``--help`` and copy as written. Use it in MyST as::

    ```{cli-examples}
    ```
"""

from __future__ import annotations

import argparse
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective

from american_sniff.cli import parser


class CliExamples(SphinxDirective):
    """The epilog of each command, under the command's name, as literal text."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        """One titled literal block per command that has an epilog."""
        result: list[nodes.Node] = []
        for name, command in _commands(parser()).items():
            if not command.epilog:
                continue
            heading = nodes.paragraph()
            heading += nodes.strong(text=f"american-sniff {name}")
            block = nodes.literal_block(command.epilog, command.epilog)
            block["language"] = "text"
            result += [heading, block]
        return result


def _commands(top: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """The subcommands' parsers, by name, in the order ``--help`` lists them."""
    for action in top._actions:  # argparse keeps its subparsers here, and only here
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def parser_without_epilogs() -> argparse.ArgumentParser:
    """The command line's parser with the commands' epilogs left out.

    The CLI reference (sphinx-argparse) reads this one, since the
    ``cli-examples`` directive already shows the epilogs as literal text.
    """
    top = parser()
    for command in _commands(top).values():
        command.epilog = None
    return top


def setup(app: Sphinx) -> dict[str, Any]:
    """Register the ``cli-examples`` directive."""
    app.add_directive("cli-examples", CliExamples)
    return {"parallel_read_safe": True, "parallel_write_safe": True}

"""Write the figures of the worked examples of the rules into ``docs/figures/``.

Run from anywhere with the package installed::

    python docs/make_figures.py          # (re)write the figures
    python docs/make_figures.py --check  # exit 1 if a figure is missing or stale

Examples 1-9 are one table built a tile at a time: ``example-01.svg`` to
``example-09.svg`` show it after each step. Examples 10-13 are tables of
their own. ``tally-135.svg`` shows the paper tally of a score of 135. The
tests check that the committed figures are the ones this script makes.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from american_sniff import Layout, parse_point, parse_tile
from american_sniff.render import render_svg, tally_svg

#: Where the figures go.
FIGURES = Path(__file__).resolve().parent / "figures"

#: Examples 1-9, one table: each step is a tile and the point it is placed on.
EXAMPLES_1_TO_9: tuple[tuple[str, str | None], ...] = (
    ("[1|4]", None),
    ("[1|1]", "[1|4] low"),
    ("[4|4]", "[1|4] high"),
    ("[3|4]", "[4|4] line_b"),
    ("[1|2]", "[1|1] line_b"),
    ("[1|5]", "[1|1] branch_a"),
    ("[5|5]", "[1|5] high"),
    ("[0|5]", "[5|5] line_b"),
    ("[1|3]", "[1|1] branch_b"),
)

#: Examples 10-13, each a table of its own.
OTHER_EXAMPLES: dict[int, tuple[tuple[str, str | None], ...]] = {
    10: (("[2|2]", None),),
    11: (("[0|0]", None),),
    12: (("[3|6]", None), ("[6|6]", "[3|6] high")),
    13: (
        ("[4|4]", None),
        ("[4|6]", "[4|4] line_a"),
        ("[1|4]", "[4|4] line_b"),
        ("[2|4]", "[4|4] branch_a"),
    ),
}

#: The score shown by the tally figure.
TALLY_POINTS = 135


def build(steps: tuple[tuple[str, str | None], ...]) -> Layout:
    """The table after placing each ``(tile, point or None)`` in turn."""
    layout = Layout.empty()
    for tile, at in steps:
        layout = layout.place(parse_tile(tile), None if at is None else parse_point(at))
    return layout


def figures() -> dict[str, str]:
    """Every figure: its file name and its SVG text, in a fixed order."""
    made = {}
    for number in range(1, len(EXAMPLES_1_TO_9) + 1):
        made[f"example-{number:02d}.svg"] = render_svg(build(EXAMPLES_1_TO_9[:number]))
    for number, steps in OTHER_EXAMPLES.items():
        made[f"example-{number:02d}.svg"] = render_svg(build(steps))
    made[f"tally-{TALLY_POINTS}.svg"] = tally_svg(TALLY_POINTS)
    return made


def main(argv: list[str] | None = None) -> int:
    """Write the figures (or, with ``--check``, compare them); the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--check", action="store_true", help="only check the figures are current")
    check = parser.parse_args(argv).check
    stale = []
    for name, svg in figures().items():
        path = FIGURES / name
        current = path.read_text(encoding="utf-8") if path.exists() else None
        if current == svg:
            continue
        stale.append(name)
        if not check:
            FIGURES.mkdir(exist_ok=True)
            path.write_text(svg, encoding="utf-8", newline="\n")
    if check and stale:
        print("stale figures (run python docs/make_figures.py):", ", ".join(stale))
        return 1
    print(f"{len(stale)} figure(s) {'to update' if check else 'written'} in {FIGURES}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

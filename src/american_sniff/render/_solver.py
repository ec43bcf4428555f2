"""The one layout search of :mod:`american_sniff.render`, for the SVG geometry and the terminal.

Both drawings lay a table out the same way: the tiles in the order they
were placed, each trying its choices best first (straight on, then turning
right, then left), and taking the first that fits beside what is laid out
already. :func:`backjump` is that search, written once; a drawing gives it a
:class:`Problem`, which knows its own choices and what refuses them.

The search is depth-first with conflict-directed backjumping: when no
choice for a step fits, the search returns straight to the latest earlier
step that took part in refusing one of its choices (the step it joins, a
step it ran into, a step reaching the far side of the page), skipping the
steps in between, which cannot help.

:class:`Extent` is the other half both drawings share: the bounds of what is
laid out so far, with the step that reaches each of its four sides, which
is how a step that would leave the page names the steps that keep it out.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Protocol, TypeVar

__all__ = ["Box", "Extent", "Problem", "backjump"]

#: A box ``(x0, y0, x1, y1)``: ``x0 <= x < x1`` and ``y0 <= y < y1``, as a
#: span, so that its width is ``x1 - x0``.
Box = tuple[int, int, int, int]

Choice = TypeVar("Choice")


class Problem(Protocol[Choice]):
    """What :func:`backjump` asks of a drawing: its steps, their choices and their refusals.

    Step ``0`` is the opening tile; every later step joins one earlier step,
    its *parent*. The problem keeps what is laid out: :meth:`lay` adds a
    step's choice, :meth:`undo` takes back every step from a level on.
    """

    def parent(self, level: int) -> int:
        """The step that step ``level`` joins (-1 for the opening step)."""
        ...

    def candidates(self, level: int, placed: Sequence[Choice]) -> Iterator[Choice]:
        """The choices of step ``level``, best first, given the choices of the steps before it."""
        ...

    def refusal(self, level: int, choice: Choice) -> set[int]:
        """The earlier steps that keep ``choice`` out (empty: it fits; -1: nothing can help)."""
        ...

    def lay(self, level: int, choice: Choice) -> None:
        """Lay ``choice`` out as step ``level`` (it fits)."""
        ...

    def undo(self, level: int) -> None:
        """Take back every step from ``level`` on."""
        ...


def backjump(problem: Problem[Choice], count: int, budget: int | None) -> list[Choice] | None:
    """The first choice of each of ``count`` steps that fit together, or None.

    ``budget`` is how many choices are tried before the search gives up and
    returns None (None: no limit). None is also the answer when the search
    has tried everything.
    """
    placed: list[Choice] = []
    # Per step: the choices still to try, and the steps that refused its choices so far.
    pending: list[Iterator[Choice]] = [problem.candidates(0, placed)]
    conflicts: list[set[int]] = [set()]
    left = budget
    while len(placed) < count:
        level = len(placed)
        for choice in pending[level]:
            if left is not None:
                left -= 1
                if left < 0:
                    return None
            refused_by = problem.refusal(level, choice)
            if refused_by:
                conflicts[level].update(refused_by)
                continue
            problem.lay(level, choice)
            placed.append(choice)
            if level + 1 < count:
                pending.append(problem.candidates(level + 1, placed))
                conflicts.append({problem.parent(level + 1)})
            break
        else:
            # Nothing fits: jump back to the latest step that refused a choice.
            refused_by = conflicts[level] - {-1}
            if not refused_by:
                return None
            back = max(refused_by)
            conflicts[back].update(refused_by - {back})
            del pending[back + 1 :]
            del conflicts[back + 1 :]
            del placed[back:]
            problem.undo(back)
    return placed


class Extent:
    """The bounds of what is laid out so far, and the step that reaches each of its sides.

    :ivar box: The bounds.
    :ivar owners: The steps reaching ``x0``, ``y0``, ``x1`` and ``y1``.
    """

    __slots__ = ("box", "owners")

    def __init__(self, box: Box, owners: tuple[int, int, int, int]) -> None:
        self.box = box
        self.owners = owners

    def grown(self, box: Box, owner: int) -> Extent:
        """The extent with ``box`` of step ``owner`` added."""
        x0, y0, x1, y1 = self.box
        lx, ly, hx, hy = self.owners
        return Extent(
            (min(x0, box[0]), min(y0, box[1]), max(x1, box[2]), max(y1, box[3])),
            (
                owner if box[0] < x0 else lx,
                owner if box[1] < y0 else ly,
                owner if box[2] > x1 else hx,
                owner if box[3] > y1 else hy,
            ),
        )

    def overflow(self, box: Box, page: tuple[int, int]) -> tuple[bool, set[int]]:
        """Whether adding ``box`` makes the bounds larger than ``page``, and who is to blame.

        The steps to blame reach a far side of the bounds that ``box`` does
        not pass, along an axis where the bounds would be too large: moving
        them is the only way to make room.
        """
        x0, y0, x1, y1 = self.box
        lx, ly, hx, hy = self.owners
        over = False
        blamed: set[int] = set()
        if max(box[2], x1) - min(box[0], x0) > page[0]:
            over = True
            blamed.update(o for o, own in ((lx, box[0] >= x0), (hx, box[2] <= x1)) if own)
        if max(box[3], y1) - min(box[1], y0) > page[1]:
            over = True
            blamed.update(o for o, own in ((ly, box[1] >= y0), (hy, box[3] <= y1)) if own)
        return over, blamed

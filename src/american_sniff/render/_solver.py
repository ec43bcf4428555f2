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

import threading
from collections import OrderedDict
from collections.abc import Container, Hashable, Iterator, Sequence
from typing import Protocol, TypeVar, cast

__all__ = ["Box", "Extent", "Memory", "Problem", "Recall", "backjump"]

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

    def save(self) -> object:
        """What is laid out, to be given back to :meth:`restore` (never changed after)."""
        ...

    def restore(self, saved: object) -> None:
        """Lay out again what :meth:`save` saved, in place of what is laid out."""
        ...


class _Reached:
    """The search's state when it first reached a step: enough to carry on from there.

    :ivar tokens: The tokens of the steps before it (checked on every find).
    :ivar placed: Their choices.
    :ivar saved: What the problem had laid out (:meth:`Problem.save`).
    :ivar tried: How many choices each of those steps had taken; the last is its choice.
    :ivar conflicts: The steps that had refused each one's choices.
    :ivar left: The budget left (None: no limit).
    """

    __slots__ = ("conflicts", "left", "placed", "saved", "tokens", "tried")

    def __init__(  # noqa: PLR0913 (the six parts of a search's state)
        self,
        *,
        tokens: tuple[Hashable, ...],
        placed: tuple[object, ...],
        saved: object,
        tried: tuple[int, ...],
        conflicts: tuple[frozenset[int], ...],
        left: int | None,
    ) -> None:
        self.tokens = tokens
        self.placed = placed
        self.saved = saved
        self.tried = tried
        self.conflicts = conflicts
        self.left = left


class Memory:
    """Where earlier searches first reached a step, so that a later search can carry on there.

    A table grows by one tile at a time, and the search for the grown table
    goes exactly as the search for the old one until it first reaches the
    step whose open sides changed (the tile the new one joins, or the Sniff
    whose branches opened). Until then it reads only the steps before that
    one, which are the same. So the search remembers, for chosen steps, its
    state when it first got there, keyed by everything it had read: the
    context (the page) and a *token* per earlier step, which a problem makes
    from all that its choices and refusals read of that step, the tile
    included. A later search with the same context and the same tokens up
    to that step starts from that state, and so ends with the same
    arrangement as a search from the start.

    At most ``size`` states are kept, the least recently used leaving first;
    each holds a few numbers and the placed choices up to its step (about
    3 KB for a table of the middle of a round). It is safe to share between
    threads.
    """

    def __init__(self, size: int) -> None:
        if size < 0:
            raise ValueError(f"a memory keeps zero or more states, not {size}")
        self.size = size
        #: How many searches carried on from a remembered state.
        self.hits = 0
        self._kept: OrderedDict[tuple[Hashable, int, int], _Reached] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._kept)

    def clear(self) -> None:
        """Forget every state."""
        with self._lock:
            self._kept.clear()

    def find(
        self, context: Hashable, tokens: Sequence[Hashable], chain: Sequence[int]
    ) -> tuple[int, _Reached] | None:
        """The furthest step of ``tokens`` with a remembered state, and the state.

        ``chain[n]`` is a hash of ``context`` and the first ``n`` tokens.
        """
        with self._lock:
            for level in range(len(tokens) - 1, 0, -1):
                key = (context, level, chain[level])
                reached = self._kept.get(key)
                if reached is not None and reached.tokens == tuple(tokens[:level]):
                    self._kept.move_to_end(key)
                    self.hits += 1
                    return level, reached
        return None

    def keep(self, context: Hashable, level: int, chain: Sequence[int], reached: _Reached) -> None:
        """Remember ``reached`` as the state on first reaching ``level``."""
        with self._lock:
            key = (context, level, chain[level])
            self._kept[key] = reached
            self._kept.move_to_end(key)
            while len(self._kept) > self.size:
                self._kept.popitem(last=False)


class Recall:
    """A :class:`Memory` and what one search gives it.

    :ivar memory: The memory.
    :ivar context: What else the search depends on (the page).
    :ivar tokens: One per step: all that the search reads of it.
    :ivar keep_at: The steps whose state on first reaching them is kept.
    """

    __slots__ = ("context", "keep_at", "memory", "tokens")

    def __init__(
        self,
        memory: Memory,
        context: Hashable,
        tokens: Sequence[Hashable],
        keep_at: Container[int],
    ) -> None:
        self.memory = memory
        self.context = context
        self.tokens = tokens
        self.keep_at = keep_at


def _skipping(
    problem: Problem[Choice], level: int, placed: Sequence[Choice], skip: int
) -> Iterator[Choice]:
    """The choices of step ``level`` after its first ``skip`` ones.

    Made when a search carries on, for a step laid before it: it runs only
    if the search comes back to that step, when ``placed`` again holds just
    the steps before it.
    """
    choices = problem.candidates(level, placed)
    for _ in range(skip):
        next(choices)
    yield from choices


def backjump(
    problem: Problem[Choice], count: int, budget: int | None, recall: Recall | None = None
) -> list[Choice] | None:
    """The first choice of each of ``count`` steps that fit together, or None.

    ``budget`` is how many choices are tried before the search gives up and
    returns None (None: no limit). None is also the answer when the search
    has tried everything. With ``recall``, the search carries on from an
    earlier search's state where it can (see :class:`Memory`) and keeps
    some of its own; the answer is the same.
    """
    placed: list[Choice] = []
    # Per step: the choices still to try, how many it took, and the steps that
    # refused its choices so far.
    pending: list[Iterator[Choice]] = []
    tried: list[int] = []
    # (Frozen, so that keeping the search's state copies no set.)
    conflicts: list[frozenset[int]] = []
    left = budget
    chain: list[int] = []
    start = 0
    if recall is not None:
        chain = [hash(recall.context)]
        for token in recall.tokens:
            chain.append(hash((chain[-1], token)))
        found = recall.memory.find(recall.context, recall.tokens, chain)
        if found is not None:
            start, reached = found
            left = reached.left
            _carry_on(
                problem,
                reached,
                placed=placed,
                pending=pending,
                tried=tried,
                conflicts=conflicts,
            )
    pending.append(problem.candidates(start, placed))
    tried.append(0)
    conflicts.append(frozenset({problem.parent(start)}) if start else frozenset())
    furthest = start
    while len(placed) < count:
        level = len(placed)
        for choice in pending[level]:
            tried[level] += 1
            if left is not None:
                left -= 1
                if left < 0:
                    return None
            refused_by = problem.refusal(level, choice)
            if refused_by:
                conflicts[level] = conflicts[level].union(refused_by)
                continue
            problem.lay(level, choice)
            placed.append(choice)
            if level + 1 < count:
                if recall is not None and level + 1 > furthest and level + 1 in recall.keep_at:
                    _keep(
                        problem,
                        recall=recall,
                        chain=chain,
                        placed=placed,
                        tried=tried,
                        conflicts=conflicts,
                        left=left,
                    )
                furthest = max(furthest, level + 1)
                pending.append(problem.candidates(level + 1, placed))
                tried.append(0)
                conflicts.append(frozenset({problem.parent(level + 1)}))
            break
        else:
            # Nothing fits: jump back to the latest step that refused a choice.
            blamed = conflicts[level] - {-1}
            if not blamed:
                return None
            back = max(blamed)
            conflicts[back] = conflicts[back].union(blamed - {back})
            del pending[back + 1 :]
            del tried[back + 1 :]
            del conflicts[back + 1 :]
            del placed[back:]
            problem.undo(back)
    return placed


def _carry_on(  # noqa: PLR0913 (the parts of a search's state)
    problem: Problem[Choice],
    reached: _Reached,
    *,
    placed: list[Choice],
    pending: list[Iterator[Choice]],
    tried: list[int],
    conflicts: list[frozenset[int]],
) -> None:
    """Set the search's state (and the problem's) to ``reached``."""
    placed.extend(cast("tuple[Choice, ...]", reached.placed))
    problem.restore(reached.saved)
    for level, taken in enumerate(reached.tried):
        pending.append(_skipping(problem, level, placed, taken))
    tried.extend(reached.tried)
    conflicts.extend(reached.conflicts)


def _keep(  # noqa: PLR0913 (the parts of a search's state)
    problem: Problem[Choice],
    *,
    recall: Recall,
    chain: Sequence[int],
    placed: Sequence[Choice],
    tried: Sequence[int],
    conflicts: Sequence[frozenset[int]],
    left: int | None,
) -> None:
    """Remember the search's state on first reaching step ``len(placed)``."""
    level = len(placed)
    reached = _Reached(
        tokens=tuple(recall.tokens[:level]),
        placed=tuple(placed),
        saved=problem.save(),
        tried=tuple(tried),
        conflicts=tuple(conflicts),
        left=left,
    )
    recall.memory.keep(recall.context, level, chain, reached)


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

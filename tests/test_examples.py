"""The worked examples of the rules (RULES.md, "The worked examples, as facts", 1-14).

Each example is a test of its own. The geometry is built with
``Layout.empty().place(...)`` and checked against everything the example
(and the Portuguese rules text it comes from) gives: the tiles, every
connection, the legal points, the contributions, the end sum and the points.
The legal points are compared twice: as the set the text lists (the text
lists them in its own order) and in the library's documented order (by tile,
then by ``Side``). Examples 1-9, 12 and 13 are also played in real matches to
show the points land on the placing side.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import pytest

from american_sniff import (
    ALL_TILES,
    Connection,
    Contribution,
    Layout,
    Tile,
    new_match,
    parse_tile,
    placement_points,
    round_hand,
    score_of,
)
from reference import point_key
from scenarios import WORKED_EXAMPLE_STEPS, act, deal, last, pt, table, tiles

# -- notation ----------------------------------------------------------------------


def joint(at: str, joined: str) -> Connection:
    """The connection of open point ``at`` with the placed tile's side ``joined``."""
    return Connection(pt(at), pt(joined))


def check_points(layout: Layout, listed: Sequence[str]) -> None:
    """The legal points are exactly those the text lists, in the library's order."""
    expected = [pt(p) for p in listed]
    assert len(layout.points()) == len(expected)
    assert set(layout.points()) == set(expected)
    assert list(layout.points()) == sorted(expected, key=point_key)


def check_contributions(layout: Layout, listed: Sequence[tuple[str, int]]) -> None:
    """The contributions, as ``(tile, value)`` pairs the text lists, and their sum."""
    got = Counter((str(c.tile), c.value) for c in layout.contributions())
    assert got == Counter(listed)
    assert sum(c.value for c in layout.contributions()) == layout.end_sum


#: Every connection of the finished table of examples 1-9, in placement order, as
#: the rules text lists them.
ALL_JOINTS = (
    joint("[1|4] low", "[1|1] line_a"),
    joint("[1|4] high", "[4|4] line_a"),
    joint("[4|4] line_b", "[3|4] high"),
    joint("[1|1] line_b", "[1|2] low"),
    joint("[1|1] branch_a", "[1|5] low"),
    joint("[1|5] high", "[5|5] line_a"),
    joint("[5|5] line_b", "[0|5] high"),
    joint("[1|1] branch_b", "[1|3] low"),
)


def example(number: int) -> Layout:
    """The table after step ``number`` (1-9) of examples 1-9."""
    return table(*WORKED_EXAMPLE_STEPS[:number])


# -- examples 1-9: one table -----------------------------------------------------------


def test_opening_1_4_scores_five() -> None:
    """Example 1: open [1|4]; its ends count 4 + 1 = 5, which scores 5."""
    layout = example(1)
    assert layout.tiles == tiles("[1|4]")
    assert layout.connections == ()
    assert layout.sniff is None
    check_points(layout, ["[1|4] high", "[1|4] low"])
    assert layout.points() == (pt("[1|4] low"), pt("[1|4] high"))
    check_contributions(layout, [("[1|4]", 4), ("[1|4]", 1)])
    assert layout.contributions() == (
        Contribution(pt("[1|4] low"), 1),
        Contribution(pt("[1|4] high"), 4),
    )
    assert layout.end_sum == 5
    assert placement_points(layout.end_sum) == 5


def test_first_double_1_1_on_the_low_end_becomes_the_sniff_and_counts_both_halves() -> None:
    """Example 2: [1|1] on [1|4] low is the Sniff, terminal: 2 + 4 = 6, scores 0."""
    layout = example(2)
    assert layout.tiles == tiles("[1|4] [1|1]")
    assert layout.connections == ALL_JOINTS[:1]
    assert layout.sniff == Tile(1, 1)
    check_points(layout, ["[1|1] line_b", "[1|4] high"])
    check_contributions(layout, [("[1|1]", 2), ("[1|4]", 4)])
    assert layout.contributions() == (
        Contribution(pt("[1|1] line_b"), 2),
        Contribution(pt("[1|4] high"), 4),
    )
    assert layout.end_sum == 6
    assert placement_points(layout.end_sum) == 0


def test_second_double_4_4_is_terminal_and_scores_ten() -> None:
    """Example 3: [4|4] on [1|4] high: [1|1] 2 + [4|4] 8 = 10, scores 10; [4|4] is no Sniff."""
    layout = example(3)
    assert layout.tiles == tiles("[1|4] [1|1] [4|4]")
    assert layout.connections == ALL_JOINTS[:2]
    assert layout.sniff == Tile(1, 1)
    check_points(layout, ["[1|1] line_b", "[4|4] line_b"])
    check_contributions(layout, [("[1|1]", 2), ("[4|4]", 8)])
    assert layout.end_sum == 10
    assert placement_points(layout.end_sum) == 10


def test_joining_line_b_of_an_ordinary_double_stops_it_counting() -> None:
    """Example 4: [3|4] on [4|4] line B: [4|4] now counts nothing; 2 + 3 = 5, scores 5."""
    layout = example(4)
    assert layout.tiles == tiles("[1|4] [1|1] [4|4] [3|4]")
    assert layout.connections == ALL_JOINTS[:3]
    check_points(layout, ["[1|1] line_b", "[3|4] low"])
    check_contributions(layout, [("[1|1]", 2), ("[3|4]", 3)])
    assert layout.contributions() == (
        Contribution(pt("[1|1] line_b"), 2),
        Contribution(pt("[3|4] low"), 3),
    )
    assert layout.end_sum == 5
    assert placement_points(layout.end_sum) == 5


def test_sniff_branches_open_once_both_line_sides_are_joined() -> None:
    """Example 5: [1|2] on [1|1] line B opens both branches, 1 each: 1+1+2+3 = 7, scores 0."""
    layout = example(5)
    assert layout.tiles == tiles("[1|4] [1|1] [4|4] [3|4] [1|2]")
    assert layout.connections == ALL_JOINTS[:4]
    check_points(layout, ["[1|1] branch_a", "[1|1] branch_b", "[1|2] high", "[3|4] low"])
    check_contributions(layout, [("[1|1]", 1), ("[1|1]", 1), ("[1|2]", 2), ("[3|4]", 3)])
    assert layout.contributions() == (
        Contribution(pt("[1|1] branch_a"), 1),
        Contribution(pt("[1|1] branch_b"), 1),
        Contribution(pt("[1|2] high"), 2),
        Contribution(pt("[3|4] low"), 3),
    )
    assert layout.end_sum == 7
    assert placement_points(layout.end_sum) == 0


def test_covering_one_branch_leaves_the_other_counting_half_the_sniff() -> None:
    """Example 6: [1|5] on branch A: [1|1] 1 + 2 + 5 + 3 = 11, scores 0."""
    layout = example(6)
    assert layout.tiles == tiles("[1|4] [1|1] [4|4] [3|4] [1|2] [1|5]")
    assert layout.connections == ALL_JOINTS[:5]
    check_points(layout, ["[1|1] branch_b", "[1|2] high", "[1|5] high", "[3|4] low"])
    check_contributions(layout, [("[1|1]", 1), ("[1|2]", 2), ("[1|5]", 5), ("[3|4]", 3)])
    assert layout.end_sum == 11
    assert placement_points(layout.end_sum) == 0


def test_later_double_5_5_is_an_ordinary_terminal_double_worth_ten() -> None:
    """Example 7 (the step the text skips): [5|5] on [1|5] high: 10 + 1 + 2 + 3 = 16, scores 0.

    The text gives only the sum; the connection is the one its next step lists,
    and the points are those the rules give ([5|5] is not the Sniff: no branches).
    """
    layout = example(7)
    assert layout.tiles == tiles("[1|4] [1|1] [4|4] [3|4] [1|2] [1|5] [5|5]")
    assert layout.connections == ALL_JOINTS[:6]
    assert layout.sniff == Tile(1, 1)
    check_points(layout, ["[1|1] branch_b", "[1|2] high", "[3|4] low", "[5|5] line_b"])
    check_contributions(layout, [("[5|5]", 10), ("[1|1]", 1), ("[1|2]", 2), ("[3|4]", 3)])
    assert layout.end_sum == 16
    assert placement_points(layout.end_sum) == 0


def test_a_zero_end_counts_and_adds_nothing() -> None:
    """Example 8: [0|5] on [5|5] line B: [0|5] 0 + 1 + 2 + 3 = 6, scores 0."""
    layout = example(8)
    assert layout.tiles == tiles("[1|4] [1|1] [4|4] [3|4] [1|2] [1|5] [5|5] [0|5]")
    assert layout.connections == ALL_JOINTS[:7]
    check_points(layout, ["[0|5] low", "[1|1] branch_b", "[1|2] high", "[3|4] low"])
    check_contributions(layout, [("[0|5]", 0), ("[1|1]", 1), ("[1|2]", 2), ("[3|4]", 3)])
    assert Contribution(pt("[0|5] low"), 0) in layout.contributions()
    assert layout.end_sum == 6
    assert placement_points(layout.end_sum) == 0


def test_with_both_branches_covered_the_sniff_counts_nothing() -> None:
    """Example 9: [1|3] on branch B: 0 + 2 + 3 + 3 = 8, scores 0; the Sniff adds nothing."""
    layout = example(9)
    assert layout.tiles == tiles("[1|4] [1|1] [4|4] [3|4] [1|2] [1|5] [5|5] [0|5] [1|3]")
    assert layout.connections == ALL_JOINTS
    check_points(layout, ["[0|5] low", "[1|2] high", "[1|3] high", "[3|4] low"])
    assert layout.points() == (pt("[0|5] low"), pt("[1|2] high"), pt("[1|3] high"), pt("[3|4] low"))
    check_contributions(layout, [("[0|5]", 0), ("[1|2]", 2), ("[1|3]", 3), ("[3|4]", 3)])
    assert all(c.tile != Tile(1, 1) for c in layout.contributions())
    assert layout.end_sum == 8
    assert placement_points(layout.end_sum) == 0


# -- examples 10-13 ------------------------------------------------------------------


def test_lone_opening_double_2_2_is_the_sniff_and_counts_four() -> None:
    """Example 10: open [2|2]: it is the Sniff, counts once (4), scores 0; both line sides open."""
    layout = table(("[2|2]", None))
    assert layout.tiles == tiles("[2|2]")
    assert layout.connections == ()
    assert layout.sniff == Tile(2, 2)
    check_points(layout, ["[2|2] line_a", "[2|2] line_b"])
    check_contributions(layout, [("[2|2]", 4)])
    assert layout.end_sum == 4
    assert placement_points(layout.end_sum) == 0


def test_opening_0_0_sums_zero_and_scores_nothing() -> None:
    """Example 11: open [0|0]: sum 0, which is not a positive multiple of five: scores 0."""
    layout = table(("[0|0]", None))
    assert layout.tiles == tiles("[0|0]")
    assert layout.connections == ()
    assert layout.sniff == Tile(0, 0)
    check_points(layout, ["[0|0] line_a", "[0|0] line_b"])
    check_contributions(layout, [("[0|0]", 0)])
    assert layout.end_sum == 0
    assert placement_points(layout.end_sum) == 0


def test_6_6_on_the_high_end_of_3_6_scores_fifteen() -> None:
    """Example 12: [3|6] then [6|6] on [3|6] high: 3 + 12 = 15, scores 15; [6|6] is the Sniff."""
    opening = table(("[3|6]", None))
    assert opening.end_sum == 9
    assert placement_points(opening.end_sum) == 0
    layout = opening.place(Tile(6, 6), pt("[3|6] high"))
    assert layout.tiles == tiles("[3|6] [6|6]")
    assert layout.connections == (joint("[3|6] high", "[6|6] line_a"),)
    assert layout.sniff == Tile(6, 6)
    check_points(layout, ["[3|6] low", "[6|6] line_b"])
    check_contributions(layout, [("[3|6]", 3), ("[6|6]", 12)])
    assert layout.end_sum == 15
    assert placement_points(layout.end_sum) == 15


@pytest.mark.parametrize(
    ("first", "second"), [("line_a", "line_b"), ("line_b", "line_a")], ids=["a-then-b", "b-then-a"]
)
def test_opening_sniff_4_4_counts_8_then_14_then_15_and_13_after_a_branch(
    first: str, second: str
) -> None:
    """Example 13.

    Open [4|4] (8); [4|6] on one line side (14); [1|4] on the other (15, scores 15); [2|4] on a
    branch (13): one half of the Sniff is left, not two.
    """
    opening = table(("[4|4]", None))
    assert opening.end_sum == 8
    assert opening.sniff == Tile(4, 4)

    one_side = opening.place(Tile(4, 6), pt(f"[4|4] {first}"))
    assert one_side.end_sum == 14
    check_points(one_side, [f"[4|4] {second}", "[4|6] high"])
    check_contributions(one_side, [("[4|4]", 8), ("[4|6]", 6)])
    assert placement_points(one_side.end_sum) == 0

    both_sides = one_side.place(Tile(1, 4), pt(f"[4|4] {second}"))
    assert both_sides.connections == (
        joint(f"[4|4] {first}", "[4|6] low"),
        joint(f"[4|4] {second}", "[1|4] high"),
    )
    check_points(both_sides, ["[1|4] low", "[4|4] branch_a", "[4|4] branch_b", "[4|6] high"])
    check_contributions(both_sides, [("[4|6]", 6), ("[1|4]", 1), ("[4|4]", 4), ("[4|4]", 4)])
    assert both_sides.end_sum == 15
    assert placement_points(both_sides.end_sum) == 15

    for branch, other in (("branch_a", "branch_b"), ("branch_b", "branch_a")):
        covered = both_sides.place(Tile(2, 4), pt(f"[4|4] {branch}"))
        assert covered.connections[-1] == joint(f"[4|4] {branch}", "[2|4] high")
        check_points(covered, ["[1|4] low", "[2|4] low", f"[4|4] {other}", "[4|6] high"])
        check_contributions(covered, [("[4|6]", 6), ("[1|4]", 1), ("[2|4]", 2), ("[4|4]", 4)])
        assert covered.end_sum == 13
        assert placement_points(covered.end_sum) == 0


@pytest.mark.parametrize(
    ("pips", "rounded"), [(1, 0), (2, 0), (3, 5), (4, 5), (5, 5), (7, 5), (8, 10)]
)
def test_hands_round_to_the_nearest_five_with_1_2_down_and_3_4_up(pips: int, rounded: int) -> None:
    """Example 14: a hand's pips round 1 -> 0, 2 -> 0, 3 -> 5, 4 -> 5, 5 -> 5, 7 -> 5, 8 -> 10."""
    assert round_hand(pips) == rounded


# -- the same examples played in real matches ------------------------------------------


def test_examples_1_to_9_played_in_a_match_score_for_the_placing_player() -> None:
    """Examples 1-9 as a two-player match: 5 and 10 land on seat 0, 5 on seat 1, the rest 0."""
    state = new_match(
        2,
        seed=1,
        deals=[
            deal(
                [
                    # seat 0 places steps 1, 3, 5, 7 and 9; seat 1 steps 2, 4, 6 and 8
                    "[1|4] [4|4] [1|2] [5|5] [1|3] [6|6] [2|6]",
                    "[1|1] [3|4] [1|5] [0|5] [0|0] [0|1] [0|2]",
                ]
            )
        ],
    )
    # (seat to move, points the placement scores, scores after it)
    expected = [
        (0, 5, (5, 0)),
        (1, 0, (5, 0)),
        (0, 10, (15, 0)),
        (1, 5, (15, 5)),
        (0, 0, (15, 5)),
        (1, 0, (15, 5)),
        (0, 0, (15, 5)),
        (1, 0, (15, 5)),
        (0, 0, (15, 5)),
    ]
    for (tile, at), (seat, points, scores) in zip(WORKED_EXAMPLE_STEPS, expected, strict=True):
        assert state.turn == seat
        state = act(state, f"{tile} opens" if at is None else f"{tile} on {at}")
        assert last(state).seat == seat
        assert last(state).points == points
        assert state.scores == scores
        assert (score_of(state, 0), score_of(state, 1)) == scores
    assert state.layout == example(9)
    assert state.layout.connections == ALL_JOINTS


@pytest.mark.parametrize("opener", [0, 1])
def test_example_1_opening_scores_five_for_the_opener(opener: int) -> None:
    """Example 1 in a match: whoever opens with [1|4] scores 5, the other side nothing."""
    hands = [
        "[1|4] [4|4] [1|2] [5|5] [1|3] [6|6] [2|6]",
        "[1|1] [3|4] [1|5] [0|5] [0|0] [0|1] [0|2]",
    ]
    if opener == 1:
        hands.reverse()
    state = new_match(2, seed=1, deals=[deal(hands, opener=opener)])
    state = act(state, "[1|4] opens")
    assert last(state).points == 5
    assert score_of(state, opener) == 5
    assert score_of(state, 1 - opener) == 0


def test_example_12_played_in_a_match_scores_fifteen_for_the_second_player() -> None:
    """Example 12 in a match: seat 1 plays [6|6] on [3|6] high and scores 15; [3|6] scored 0."""
    state = new_match(
        2,
        seed=1,
        deals=[
            deal(
                [
                    "[3|6] [0|0] [0|1] [0|2] [1|1] [1|2] [2|2]",
                    "[6|6] [0|3] [0|4] [0|5] [1|3] [1|4] [1|5]",
                ]
            )
        ],
    )
    state = act(state, "[3|6] opens")
    assert (last(state).points, state.scores) == (0, (0, 0))
    state = act(state, "[6|6] on [3|6] high")
    assert last(state).seat == 1
    assert last(state).points == 15
    assert state.scores == (0, 15)
    assert state.layout.sniff == Tile(6, 6)


def test_example_13_played_in_a_match_with_partners_scores_fifteen_for_the_side() -> None:
    """Example 13 with four players.

    Seat 2 joins the Sniff's second line side and its partnership (seats 0 and 2) scores 15; the
    branch placement (13) scores nothing.
    """
    state = new_match(
        4,
        seed=1,
        deals=[
            deal(
                [
                    "[4|4] [0|0] [0|1] [0|2] [0|3]",
                    "[4|6] [1|1] [1|2] [1|3] [1|5]",
                    "[1|4] [2|2] [2|3] [2|5] [2|6]",
                    "[2|4] [3|3] [3|5] [3|6] [5|5]",
                ]
            )
        ],
    )
    state = act(state, "[4|4] opens")
    assert last(state).points == 0
    state = act(state, "[4|6] on [4|4] line_a")
    assert last(state).points == 0
    state = act(state, "[1|4] on [4|4] line_b")
    assert last(state).points == 15
    assert state.scores == (15, 0)
    assert score_of(state, 0) == score_of(state, 2) == 15
    state = act(state, "[2|4] on [4|4] branch_a")
    assert state.layout.end_sum == 13
    assert last(state).points == 0
    assert state.scores == (15, 0)


@pytest.mark.parametrize(("opening", "points"), [("[2|2]", 0), ("[0|0]", 0), ("[5|5]", 10)])
def test_examples_10_and_11_opening_doubles_in_a_match(opening: str, points: int) -> None:
    """Examples 10 and 11 in a match.

    [2|2] (4) and [0|0] (0) score nothing; a lone [5|5] counts once, 10, and scores 10 (not 20).
    """
    others = [t for t in ALL_TILES if t != parse_tile(opening)]
    first = opening + " " + " ".join(str(t) for t in others[:6])
    second = " ".join(str(t) for t in others[6:13])
    state = new_match(2, seed=1, deals=[deal([first, second])])
    state = act(state, f"{opening} opens")
    assert last(state).points == points
    assert state.scores == (points, 0)

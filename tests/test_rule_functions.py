"""The rule decisions of ``rules.py``, one function at a time, against RULES.md.

Every function is checked on each case the rules text distinguishes, so that a
changed comparison, constant or branch fails here and not only deep inside a
played match.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from american_sniff import rules


@pytest.mark.parametrize(("players", "size", "target"), [(2, 7, 250), (3, 6, 200), (4, 5, 200)])
def test_hand_size_and_target_follow_the_number_of_players(
    players: int, size: int, target: int
) -> None:
    """7, 6 or 5 tiles each; 250 points with 2 players, 200 with 3 or 4 (the tables agree)."""
    assert rules.hand_size(players) == size == rules.HAND_SIZE[players]
    assert rules.target(players) == target == rules.TARGET[players]


@pytest.mark.parametrize(("players", "sides"), [(2, 2), (3, 3), (4, 2)])
def test_four_players_play_in_two_partnerships(players: int, sides: int) -> None:
    """Seats 0 and 2 against 1 and 3 with 4 players; otherwise each seat for itself."""
    assert rules.side_count(players) == sides
    expected = [seat % 2 for seat in range(4)] if players == 4 else list(range(players))
    assert [rules.side_of(players, seat) for seat in range(players)] == expected


@pytest.mark.parametrize("players", [2, 3, 4])
def test_play_goes_round_the_table_in_seat_order(players: int) -> None:
    """After the last seat comes seat 0 again."""
    assert [rules.next_seat(players, seat) for seat in range(players)] == [
        *range(1, players),
        0,
    ]


def test_a_lot_decides_the_opener_only_without_a_finisher() -> None:
    """The player who went out opens; the first round and a round after a block go by lot."""
    assert rules.lot_is_due(None)
    assert not rules.lot_is_due(0)
    assert not rules.lot_is_due(3)
    assert rules.opener(2, None) == 2
    assert rules.opener(2, 1) == 2  # the finisher opens, whatever a lot would say
    assert rules.opener(None, 1) == 1
    assert rules.opener(0, None) == 0  # seat 0 is a finisher too, not "no finisher"
    with pytest.raises(ValueError, match="drawn by lot"):
        rules.opener(None, None)


@pytest.mark.parametrize(
    ("table_empty", "can_place", "stock_left", "required"),
    [
        (True, False, 14, "place"),  # the opener places any tile
        (True, True, 0, "place"),
        (False, True, 5, "place"),  # a player who can place must place
        (False, True, 0, "place"),
        (False, False, 5, "draw"),  # one who cannot draws while the stock lasts
        (False, False, 1, "draw"),
        (False, False, 0, "pass"),  # and passes once it is empty
    ],
)
def test_what_a_player_must_do(
    table_empty: bool, can_place: bool, stock_left: int, required: str
) -> None:
    """Place if possible, else draw while the stock has tiles, else pass."""
    assert rules.required_action(table_empty, can_place, stock_left) == required


@given(st.integers(min_value=0, max_value=60))
def test_a_placement_scores_a_positive_multiple_of_five(end_sum: int) -> None:
    """The end sum scores exactly when it is above 0 and divisible by 5."""
    points = rules.placement_points(end_sum)
    assert points == (end_sum if end_sum > 0 and end_sum % 5 == 0 else 0)


@pytest.mark.parametrize(
    ("players", "score", "won"),
    [(2, 249, False), (2, 250, True), (2, 255, True), (3, 199, False), (3, 200, True)]
    + [(4, 195, False), (4, 200, True), (4, -5, False)],
)
def test_a_side_wins_on_reaching_its_target(players: int, score: int, won: bool) -> None:
    """Reaching the target exactly is enough; falling short by one point is not."""
    assert rules.has_won(players, score) is won


@pytest.mark.parametrize(
    ("stock_left", "anyone_can_place", "blocked"),
    [(0, False, True), (0, True, False), (1, False, False), (3, True, False)],
)
def test_a_round_is_blocked_only_with_an_empty_stock_and_nobody_able_to_place(
    stock_left: int, anyone_can_place: bool, blocked: bool
) -> None:
    """Both conditions are needed."""
    assert rules.is_blocked(stock_left, anyone_can_place) is blocked


def test_settlement_rounds_each_hand_on_its_own_and_has_no_floor() -> None:
    """Partners are rounded separately, the finisher loses nothing, scores may go negative."""
    deductions, scores = rules.settle(4, (10, 0), (2, 3, 2, 8))
    # 2 -> 0 and 2 -> 0 for side 0 (together 4 would round to 5); 3 -> 5, 8 -> 10 for side 1.
    assert deductions == (0, 5, 0, 10)
    assert scores == (10, -15)
    assert rules.settle(2, (40, 25), (0, 13)) == ((0, 15), (40, 10))
    assert rules.settle(3, (5, 5, 5), (7, 12, 1)) == ((5, 10, 0), (0, -5, 5))

"""One test (or a small group) per clause of the rules (RULES.md) and per decision 1-8.

Situations are hand-built deals played with ``new_match(..., deals=[Deal(...)])``,
``legal_moves`` and ``apply``. Where a rule needs a long match (reaching the
target), seeded matches are played with each player making its first legal
move, and the test looks for the situation it needs in them.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import pytest

from american_sniff import (
    ALL_TILES,
    TARGET,
    Connection,
    Deal,
    Draw,
    IllegalMove,
    Layout,
    MatchState,
    Move,
    Pass,
    Place,
    Point,
    RoundEnd,
    Side,
    Tile,
    apply,
    legal_moves,
    new_match,
    parse_tile,
    placement_points,
    round_hand,
    rules,
    score_of,
)
from reference import HAND_SIZE, side_of
from scenarios import DRAW_DEAL, PASS_DEAL, act, deal, first_move_match, last, pt, run, tiles

# -- scenario helpers -----------------------------------------------------------------


def can_place(state: MatchState, seat: int) -> bool:
    """Whether ``seat`` holds a tile that fits an open point (the table being non-empty)."""
    return any(state.layout.fits(tile) for tile in state.hands[seat])


def finished_matches(players: int, count: int) -> list[tuple[MatchState, ...]]:
    """The first ``count`` seeded matches (seeds 0, 1, ...) that end with a winner."""
    found = [m for m in (first_move_match(players, s) for s in range(25)) if m[-1].is_over]
    assert len(found) >= count, f"only {len(found)} seeded {players}-player matches finished"
    return found[:count]


# -- the scenarios -------------------------------------------------------------------

#: Four players, seat 0 opens. Every seat places in turn along one line, except that
#: seat 0 cannot place once and draws [3|5], which fits and is placed. So seat 1 goes
#: out first (with [2|5]); seat 0 keeps [1|1] (2 pips), seat 2 [1|5] (6), seat 3 [4|4] (8).
#: Placements scoring 5: seat 0 twice ([4|5], [3|5]) and seat 1 once ([2|5]).
DOMINO_DEAL = deal(
    [
        "[0|1] [4|5] [2|4] [2|6] [1|1]",
        "[1|2] [5|6] [4|6] [0|5] [2|5]",
        "[2|3] [0|6] [1|6] [0|3] [1|5]",
        "[3|4] [0|2] [1|3] [3|6] [4|4]",
    ],
    stock="[3|5]",
    opener=0,
)
DOMINO_SCRIPT = (
    "[0|1] opens",
    "[1|2] on [0|1] high",
    "[2|3] on [1|2] high",
    "[3|4] on [2|3] high",
    "[4|5] on [3|4] high",
    "[5|6] on [4|5] high",
    "[0|6] on [5|6] high",
    "[0|2] on [0|6] low",
    "[2|4] on [0|2] high",
    "[4|6] on [2|4] high",
    "[1|6] on [4|6] high",
    "[1|3] on [1|6] low",
    "draw",
    "[3|5] on [1|3] high",
    "[0|5] on [3|5] high",
    "[0|3] on [0|5] low",
    "[3|6] on [0|3] high",
    "[2|6] on [3|6] high",
    "[2|5] on [2|6] low",
)

#: Four players. All seven tiles showing 0 end on the table with only 0s open.
#: Seat 3 holds no 0 and drains the stock (8 draws), then passes twice; the last
#: placement, [0|0] by seat 0, leaves nobody able to place: blocked.
BLOCK_BY_PLACEMENT_DEAL = deal(
    [
        "[0|1] [0|3] [0|5] [0|0] [6|6]",
        "[1|2] [3|4] [5|6] [1|1] [2|2]",
        "[0|2] [0|4] [0|6] [3|3] [4|4]",
        "[1|3] [1|4] [1|5] [1|6] [2|3]",
    ],
    stock="[2|4] [2|5] [2|6] [3|5] [3|6] [4|5] [4|6] [5|5]",
)
BLOCK_BY_PLACEMENT_SCRIPT = (
    "[0|1] opens",
    "[1|2] on [0|1] high",
    "[0|2] on [1|2] high",
    *["draw"] * 8,
    "pass",
    "[0|3] on [0|2] low",
    "[3|4] on [0|3] high",
    "[0|4] on [3|4] high",
    "pass",
    "[0|5] on [0|4] low",
    "[5|6] on [0|5] high",
    "[0|6] on [5|6] high",
    "pass",
    "[0|0] on [0|6] low",
)

#: Four players. Like the scenario above, but seat 3's seventh draw is [0|3], which
#: it must place, so one tile stays in the stock. Once all seven 0-tiles lie on the
#: table, seat 2 cannot place and draws the last tile, [4|6]: blocked by that draw.
BLOCK_BY_DRAW_DEAL = deal(
    [
        "[0|1] [3|4] [0|6] [5|5] [6|6]",
        "[1|2] [0|4] [0|0] [1|1] [2|2]",
        "[0|2] [0|5] [3|3] [4|4] [1|3]",
        "[5|6] [1|4] [1|5] [1|6] [2|3]",
    ],
    stock="[2|4] [2|5] [2|6] [3|5] [3|6] [4|5] [0|3] [4|6]",
)
BLOCK_BY_DRAW_SCRIPT = (
    "[0|1] opens",
    "[1|2] on [0|1] high",
    "[0|2] on [1|2] high",
    *["draw"] * 7,
    "[0|3] on [0|2] low",
    "[3|4] on [0|3] high",
    "[0|4] on [3|4] high",
    "[0|5] on [0|4] low",
    "[5|6] on [0|5] high",
    "[0|6] on [5|6] high",
    "[0|0] on [0|6] low",
    "draw",
)


def domino_states(seed: int = 5, later: Sequence[Deal] = ()) -> list[MatchState]:
    """The states of the domino scenario."""
    return run(new_match(4, seed=seed, deals=[DOMINO_DEAL, *later]), DOMINO_SCRIPT)


# -- the rule functions of rules.py, one at a time --------------------------------------
# The engine calls each of them only with the arguments a match produces; these
# pin every case the rules text distinguishes, so that a changed comparison,
# constant or branch fails here and not only deep inside a played match.


@pytest.mark.parametrize(("players", "size", "target"), [(2, 7, 250), (3, 6, 200), (4, 5, 200)])
def test_hand_size_and_target_follow_the_number_of_players(
    players: int, size: int, target: int
) -> None:
    """7, 6 or 5 tiles each; 250 points with 2 players, 200 with 3 or 4 (the tables agree).

    Kills the mutants of ``rules.hand_size`` and ``rules.target``.
    """
    assert rules.hand_size(players) == size == rules.HAND_SIZE[players]
    assert rules.target(players) == target == rules.TARGET[players]
    assert players in rules.PLAYER_COUNTS


@pytest.mark.parametrize(("players", "sides"), [(2, 2), (3, 3), (4, 2)])
def test_four_players_play_in_two_partnerships(players: int, sides: int) -> None:
    """Seats 0 and 2 against 1 and 3 with 4 players; otherwise each seat for itself.

    Kills the mutants of ``rules.side_count`` and ``rules.side_of``.
    """
    assert rules.side_count(players) == sides
    expected = [seat % 2 for seat in range(4)] if players == 4 else list(range(players))
    assert [rules.side_of(players, seat) for seat in range(players)] == expected


@pytest.mark.parametrize(
    ("players", "partners", "stock"),
    [(2, [None, None], 14), (3, [None, None, None], 10), (4, [2, 3, 0, 1], 8)],
)
def test_partners_and_the_stock_follow_the_number_of_players(
    players: int, partners: list[int | None], stock: int
) -> None:
    """Partners sit opposite with 4 players, none with 2 or 3; the stock is what the deal leaves.

    Kills the mutants of ``rules.has_partners``, ``rules.partner_of`` and ``rules.stock_size``.
    """
    assert rules.has_partners(players) is (players == 4)
    assert [rules.partner_of(players, seat) for seat in range(players)] == partners
    assert rules.stock_size(players) == stock == new_match(players, seed=1).stock_size
    for seat, partner in enumerate(partners):
        if partner is not None:
            assert rules.side_of(players, seat) == rules.side_of(players, partner)


def test_the_set_and_the_scoring_unit() -> None:
    """The double-six set: numbers 0 to 6, 28 tiles; every score a multiple of five.

    Kills the mutants of ``rules.MAX_PIPS``, ``rules.TILE_COUNT``, ``rules.SCORE_UNIT``
    and ``rules.is_score``.
    """
    assert rules.MAX_PIPS == max(tile.high for tile in ALL_TILES) == 6
    assert rules.TILE_COUNT == len(ALL_TILES) == 28
    assert rules.SCORE_UNIT == 5
    assert [n for n in range(-10, 11) if rules.is_score(n)] == [-10, -5, 0, 5, 10]
    assert all(rules.is_score(placement_points(n)) for n in range(60))
    assert all(rules.is_score(round_hand(n)) for n in range(60))


@pytest.mark.parametrize("players", [2, 3, 4])
def test_play_goes_round_the_table_in_seat_order(players: int) -> None:
    """After the last seat comes seat 0 again.

    Kills the mutants of ``rules.next_seat``.
    """
    assert [rules.next_seat(players, seat) for seat in range(players)] == [
        *range(1, players),
        0,
    ]


def test_a_lot_decides_the_opener_only_without_a_finisher() -> None:
    """The player who went out opens (seat 0 too); otherwise the lot, which must be given.

    Kills the mutants of ``rules.lot_is_due`` and ``rules.opener``.
    """
    assert rules.lot_is_due(None) is True
    assert rules.lot_is_due(0) is False
    assert rules.lot_is_due(3) is False
    assert rules.opener(2, None) == 2
    assert rules.opener(2, 1) == 2  # the finisher opens, whatever a lot would say
    assert rules.opener(0, 1) == 0  # seat 0 is a finisher too, not "no finisher"
    assert rules.opener(0, None) == 0
    assert rules.opener(None, 1) == 1
    assert rules.opener(None, 0) == 0
    assert rules.opener(None, 3) == 3
    with pytest.raises(ValueError, match="drawn by lot") as error:
        rules.opener(None, None)
    assert str(error.value) == (
        "no player went out, so the opener is drawn by lot, and none was given"
    )


@pytest.mark.parametrize(
    ("table_empty", "can_place", "stock_left", "required"),
    [
        (True, False, 0, "place"),  # the opener places any tile
        (True, False, 9, "place"),
        (True, False, 14, "place"),
        (True, True, 0, "place"),
        (False, True, 0, "place"),  # a player who can place must place
        (False, True, 4, "place"),
        (False, True, 5, "place"),
        (False, False, 1, "draw"),  # one who cannot draws while the stock lasts
        (False, False, 5, "draw"),
        (False, False, 14, "draw"),
        (False, False, 0, "pass"),  # and passes once it is empty
    ],
)
def test_what_a_player_must_do(
    table_empty: bool, can_place: bool, stock_left: int, required: str
) -> None:
    """Place if the table is empty or a tile fits; else draw while the stock lasts; else pass.

    Kills the mutants of ``rules.required_action``.
    """
    assert rules.required_action(table_empty, can_place, stock_left) == required


@pytest.mark.parametrize(
    ("players", "score", "won"),
    [(2, 249, False), (2, 250, True), (2, 251, True), (2, 255, True)]
    + [(3, 199, False), (3, 200, True), (4, 195, False), (4, 200, True), (4, -5, False)],
)
def test_a_side_wins_on_reaching_its_target(players: int, score: int, won: bool) -> None:
    """Reaching or passing the target wins; falling short by one point does not.

    Kills the mutants of ``rules.has_won``.
    """
    assert rules.has_won(players, score) is won


@pytest.mark.parametrize(
    ("stock_left", "anyone_can_place", "blocked"),
    [(0, False, True), (0, True, False), (1, False, False), (3, True, False), (5, True, False)],
)
def test_a_round_is_blocked_only_with_an_empty_stock_and_nobody_able_to_place(
    stock_left: int, anyone_can_place: bool, blocked: bool
) -> None:
    """Both conditions are needed.

    Kills the mutants of ``rules.is_blocked``.
    """
    assert rules.is_blocked(stock_left, anyone_can_place) is blocked


@pytest.mark.parametrize(
    ("stock_left", "anyone_can_place", "blocked"),
    [(0, False, True), (0, True, False), (1, False, False), (3, True, False)],
)
def test_who_can_place_may_be_worked_out_only_once_the_stock_is_empty(
    stock_left: int, anyone_can_place: bool, blocked: bool
) -> None:
    """A function in place of the fact is called, with the arguments given, only then.

    Kills the mutants of ``rules.is_blocked``'s lazy form.
    """
    calls: list[tuple[object, ...]] = []

    def works_out(*arguments: object) -> bool:
        calls.append(arguments)
        return anyone_can_place

    assert rules.is_blocked(stock_left, works_out, "hands", 7) is blocked
    assert calls == ([("hands", 7)] if stock_left == 0 else [])


def test_settlement_rounds_each_hand_on_its_own_and_has_no_floor() -> None:
    """Each hand is rounded alone and taken from its side; no floor; nothing is gained.

    Partners are rounded separately, the finisher loses nothing, scores may go
    negative. Kills the mutants of ``rules.settle``.
    """
    deductions, scores = rules.settle(4, (10, 0), (2, 3, 2, 8))
    # 2 -> 0 and 2 -> 0 for side 0 (together 4 would round to 5); 3 -> 5, 8 -> 10 for side 1.
    assert deductions == (0, 5, 0, 10)
    assert scores == (10, -15)
    assert rules.settle(4, (40, 25), (7, 0, 13, 2)) == ((5, 0, 15, 0), (20, 25))
    assert rules.settle(4, (10, 10), (2, 0, 2, 3)) == ((0, 0, 0, 5), (10, 5))
    assert rules.settle(2, (40, 25), (0, 13)) == ((0, 15), (40, 10))
    assert rules.settle(2, (10, 3), (0, 8)) == ((0, 10), (10, -7))
    assert rules.settle(3, (5, 5, 5), (7, 12, 1)) == ((5, 10, 0), (0, -5, 5))
    assert rules.settle(3, (0, 5, 0), (3, 0, 12)) == ((5, 0, 10), (-5, 5, -10))


# -- equipment, players, targets -------------------------------------------------------


@pytest.mark.parametrize(("players", "target"), [(2, 250), (3, 200), (4, 200)])
def test_target_is_250_with_two_players_and_200_with_three_or_four(
    players: int, target: int
) -> None:
    """Clause "Target": 250 raw points with 2 players, 200 with 3 or 4."""
    assert TARGET[players] == target
    assert new_match(players, seed=3).target == target


@pytest.mark.sweep
@pytest.mark.parametrize(("players", "target"), [(2, 250), (3, 200), (4, 200)])
def test_the_match_ends_exactly_when_a_side_reaches_the_target(players: int, target: int) -> None:
    """Clause "End of the match".

    The first side to reach or pass the target wins at that placement; no score reached the
    target before it.
    """
    for match in finished_matches(players, 3):
        final, before = match[-1], match[-2]
        assert all(max(state.scores) < target for state in match[:-1])
        assert final.winner is not None
        assert isinstance(last(final).move, Place)
        assert last(final).seat is not None
        assert final.winner == side_of(players, last(final).seat)
        assert final.scores[final.winner] >= target
        assert final.scores[final.winner] == before.scores[final.winner] + last(final).points


def test_two_player_scores_between_200_and_249_do_not_win() -> None:
    """Clause "Target" (2 players): 200 is not enough, the match goes on until 250."""
    matches = finished_matches(2, 5)
    assert any(
        200 <= max(state.scores) < 250 and not state.is_over for match in matches for state in match
    )


@pytest.mark.parametrize(("players", "hand", "stock"), [(2, 7, 14), (3, 6, 10), (4, 5, 8)])
def test_deal_sizes_and_nothing_held_back(players: int, hand: int, stock: int) -> None:
    """Clause "Deal".

    7 tiles each with 2 players, 6 with 3, 5 with 4; every other tile is the stock, nothing held
    back.
    """
    for seed in range(5):
        state = new_match(players, seed=seed)
        assert len(state.hands) == players
        assert all(len(h) == hand for h in state.hands)
        assert state.stock_size == stock
        assert len(state.stock) == stock
        dealt = [t for h in state.hands for t in h] + list(state.stock)
        assert sorted(dealt) == list(ALL_TILES)
        assert state.layout.is_empty


@pytest.mark.parametrize("players", [2, 3])
def test_with_two_or_three_players_each_scores_alone(players: int) -> None:
    """Clause "players": with 2 or 3 players each player scores alone."""
    hands = ["[1|4] [2|2] [2|3] [2|5] [2|6] [3|3]", "[1|1] [3|5] [3|6] [5|5] [5|6] [6|6]"]
    if players == 3:
        hands.append("[4|4] [0|0] [0|1] [0|2] [0|3] [0|5]")
    else:
        hands = [h + extra for h, extra in zip(hands, [" [0|0]", " [0|1]"], strict=True)]
    state = new_match(players, seed=1, deals=[deal(hands)])
    assert len(state.scores) == players
    state = act(state, "[1|4] opens")  # 5 for seat 0
    state = act(state, "[1|1] on [1|4] low")  # 6: nothing for seat 1
    if players == 3:
        state = act(state, "[4|4] on [1|4] high")  # 10 for seat 2
        assert state.scores == (5, 0, 10)
    else:
        assert state.scores == (5, 0)
    assert [score_of(state, seat) for seat in range(players)] == list(state.scores)


def test_partners_opposite_each_other_share_one_score() -> None:
    """Clause "players" and decision 7.

    With 4 players seats 0 and 2 share one score, seats 1 and 3 another.
    """
    state = new_match(
        4,
        seed=1,
        deals=[
            deal(
                [
                    "[1|4] [0|0] [0|1] [0|2] [0|3]",
                    "[1|1] [0|4] [0|5] [0|6] [1|2]",
                    "[4|4] [1|3] [1|5] [1|6] [2|2]",
                    "[3|4] [2|3] [2|4] [2|5] [2|6]",
                ]
            )
        ],
    )
    assert len(state.scores) == 2
    assert state.sides == 2
    assert [state.side_of(seat) for seat in range(4)] == [0, 1, 0, 1]
    state = act(state, "[1|4] opens")  # seat 0: 5
    state = act(state, "[1|1] on [1|4] low")  # seat 1: 6 scores nothing
    state = act(state, "[4|4] on [1|4] high")  # seat 2: 10, on the same score as seat 0
    assert state.scores == (15, 0)
    state = act(state, "[3|4] on [4|4] line_b")  # seat 3: 5
    assert state.scores == (15, 5)
    assert score_of(state, 0) == score_of(state, 2) == 15
    assert score_of(state, 1) == score_of(state, 3) == 5


@pytest.mark.parametrize("players", [2, 3])
def test_without_partnerships_every_seat_is_its_own_side(players: int) -> None:
    """Decision 7: with 2 or 3 players seats are numbered 0..n-1 and each is a side."""
    state = new_match(players, seed=4)
    assert state.sides == players
    assert [state.side_of(seat) for seat in range(players)] == list(range(players))


# -- who opens, turn order ---------------------------------------------------------------


def test_turns_go_clockwise_with_three_players() -> None:
    """Clause "Turns go clockwise": seat i is followed by seat (i + 1) % 3; here seat 2 opens."""
    state = new_match(
        3,
        seed=1,
        deals=[
            deal(
                [
                    "[1|2] [4|5] [0|0] [0|2] [0|3] [0|4]",
                    "[2|3] [5|6] [0|5] [0|6] [1|1] [1|3]",
                    "[0|1] [3|4] [1|4] [1|5] [1|6] [2|2]",
                ],
                opener=2,
            )
        ],
    )
    script = [
        "[0|1] opens",
        "[1|2] on [0|1] high",
        "[2|3] on [1|2] high",
        "[3|4] on [2|3] high",
        "[4|5] on [3|4] high",
        "[5|6] on [4|5] high",
    ]
    seats = []
    for text in script:
        seats.append(state.turn)
        state = act(state, text)
    assert seats == [2, 0, 1, 2, 0, 1]
    assert state.turn == 2


def test_turns_go_clockwise_with_four_players_and_a_draw_keeps_the_turn() -> None:
    """Clause "Turns go clockwise" (4 players); a placement ends a turn, a draw does not."""
    states = domino_states()
    for before, after in itertools.pairwise(states[:-1]):
        seat = before.turn
        assert last(after).seat == seat
        if isinstance(last(after).move, Draw):
            assert after.turn == seat
        else:
            assert after.turn == (seat + 1) % 4


@pytest.mark.parametrize(("players", "opener"), [(2, 0), (2, 1), (3, 1), (3, 2), (4, 0), (4, 3)])
def test_the_opener_may_place_any_tile_of_the_hand(players: int, opener: int) -> None:
    """Clause "The opener may put down any tile".

    On the empty table the legal moves are exactly ``Place(tile)`` for every tile in the
    opener's hand, and each is accepted.
    """
    size = HAND_SIZE[players]
    hands = [
        " ".join(str(t) for t in ALL_TILES[seat * size : (seat + 1) * size])
        for seat in range(players)
    ]
    state = new_match(players, seed=1, deals=[deal(hands, opener=opener)])
    assert state.turn == opener
    hand = state.hands[opener]
    assert legal_moves(state) == tuple(Place(tile) for tile in hand)
    for tile in hand:
        after = apply(state, Place(tile))
        assert after.layout.tiles == (tile,)
        assert last(after).points == placement_points(tile.pips)


def test_first_round_opener_is_a_seeded_lot() -> None:
    """Clause "The first round's opener is chosen by a neutral lot".

    One seeded random choice among the seats, the same for the same seed, and every seat can be
    chosen.
    """
    for players in (2, 3, 4):
        openers = [new_match(players, seed=seed).opener for seed in range(24)]
        assert set(openers) == set(range(players))
        assert openers == [new_match(players, seed=seed).opener for seed in range(24)]
        for seed in range(24):
            state = new_match(players, seed=seed)
            assert state.turn == state.opener


def test_a_deal_can_name_the_first_opener() -> None:
    """Clause "neutral lot" (library): a Deal's opener is used where the lot is due."""
    for opener in range(4):
        state = new_match(4, seed=2, deals=[deal(_quarter_hands(), opener=opener)])
        assert (state.opener, state.turn) == (opener, opener)
    lots = [
        new_match(4, seed=seed, deals=[deal(_quarter_hands(), opener=None)]).opener
        for seed in range(16)
    ]
    assert len(set(lots)) > 1
    assert lots == [
        new_match(4, seed=seed, deals=[deal(_quarter_hands(), opener=None)]).opener
        for seed in range(16)
    ]


def _quarter_hands() -> list[str]:
    """Four hands of five tiles, in set order."""
    return [" ".join(str(t) for t in ALL_TILES[5 * i : 5 * i + 5]) for i in range(4)]


# -- connection points, the Sniff and what counts ------------------------------------------


def test_the_sniff_is_the_first_double_even_when_it_comes_later() -> None:
    """Decision 5.

    The Sniff is the first double placed, here [1|1] after the opening [1|4]; the later [4|4] is
    an ordinary double and never branches.
    """
    state = new_match(
        2,
        seed=1,
        deals=[
            deal(
                [
                    "[1|4] [4|4] [1|2] [4|6] [0|0] [0|1] [0|2]",
                    "[1|1] [3|4] [2|4] [0|3] [0|4] [0|5] [0|6]",
                ]
            )
        ],
    )
    state = act(state, "[1|4] opens")
    assert state.layout.sniff is None
    state = act(state, "[1|1] on [1|4] low")
    assert state.layout.sniff == Tile(1, 1)
    state = act(state, "[4|4] on [1|4] high")
    assert state.layout.sniff == Tile(1, 1)
    state = act(state, "[3|4] on [4|4] line_b")  # both line sides of [4|4] are now joined
    assert pt("[4|4] branch_a") not in state.layout.points()
    assert pt("[4|4] branch_b") not in state.layout.points()
    assert all(
        m.at is not None and m.at.tile != Tile(4, 4)
        for m in legal_moves(state)
        if isinstance(m, Place)
    )
    state = act(state, "[1|2] on [1|1] line_b")  # both line sides of the Sniff joined
    assert {pt("[1|1] branch_a"), pt("[1|1] branch_b")} <= set(state.layout.points())


def test_the_sniff_is_the_first_double_whatever_its_value() -> None:
    """Decision 5: [6|6] placed before [5|5] is the Sniff; [5|5], lower, never branches."""
    layout = Layout.empty().place(Tile(5, 6))
    layout = layout.place(Tile(6, 6), pt("[5|6] high"))
    layout = layout.place(Tile(5, 5), pt("[5|6] low"))
    assert layout.sniff == Tile(6, 6)
    closed = layout.place(Tile(3, 5), pt("[5|5] line_b"))
    assert closed.points() == (pt("[3|5] low"), pt("[6|6] line_b"))
    assert closed.end_sum == 3 + 12
    opened = closed.place(Tile(2, 6), pt("[6|6] line_b"))
    assert opened.points() == (
        pt("[2|6] low"),
        pt("[3|5] low"),
        pt("[6|6] branch_a"),
        pt("[6|6] branch_b"),
    )
    assert opened.end_sum == 2 + 3 + 6 + 6


def test_there_is_at_most_one_sniff_per_round_and_each_round_starts_without_one() -> None:
    """Clause "The Sniff ... there is exactly one per round at most".

    Round 1 ends (blocked) with [0|0] as its Sniff. Round 2's table starts empty, without a
    Sniff; its first double, [3|3], becomes its Sniff and branches; its later [2|2] does not,
    even with both line sides joined.
    """
    later = deal(
        [
            "[2|3] [0|1] [0|2] [0|3] [0|4]",
            "[3|3] [0|5] [0|6] [1|1] [1|2]",
            "[2|2] [1|3] [1|4] [1|5] [1|6]",
            "[2|4] [2|5] [2|6] [3|4] [3|5]",
        ],
        opener=0,
    )
    states = run(
        new_match(4, seed=5, deals=[BLOCK_BY_PLACEMENT_DEAL, later]), BLOCK_BY_PLACEMENT_SCRIPT
    )
    result = states[-1].last_round
    assert result is not None
    assert result.layout.sniff == Tile(0, 0)
    state = states[-1]
    assert state.round == 2
    assert state.layout.sniff is None
    assert state.layout.is_empty
    assert state.turn == 0
    state = act(state, "[2|3] opens")
    assert state.layout.sniff is None
    state = act(state, "[3|3] on [2|3] high")  # the round's first double
    assert state.layout.sniff == Tile(3, 3)
    state = act(state, "[2|2] on [2|3] low")  # a later double: ordinary
    assert state.layout.sniff == Tile(3, 3)
    state = act(state, "[2|4] on [2|2] line_b")  # both line sides of [2|2] joined
    assert state.layout.sniff == Tile(3, 3)
    assert all(p.tile != Tile(2, 2) for p in state.layout.points())
    state = act(state, "[0|3] on [3|3] line_b")  # both line sides of the Sniff joined
    assert state.round == 2
    assert state.layout.sniff == Tile(3, 3)
    assert {pt("[3|3] branch_a"), pt("[3|3] branch_b")} <= set(state.layout.points())
    assert pt("[2|2] branch_a") not in state.layout.points()
    assert pt("[2|2] branch_b") not in state.layout.points()


def test_a_double_joins_by_line_a_and_leaves_line_b_open() -> None:
    """Clause "A double played onto the table joins by its line A; its line B is then open"."""
    layout = Layout.empty().place(Tile(2, 3)).place(Tile(3, 3), pt("[2|3] high"))
    assert layout.connections[-1].joined == pt("[3|3] line_a")
    assert pt("[3|3] line_b") in layout.points()
    assert pt("[3|3] line_a") not in layout.points()


def test_a_non_double_joins_by_the_matching_end_and_opens_the_other() -> None:
    """Clause "its end of value v is joined; the other end becomes a new open end"."""
    layout = Layout.empty().place(Tile(2, 3))
    low_side = layout.place(Tile(2, 6), pt("[2|3] low"))
    assert low_side.connections == (Connection(pt("[2|3] low"), pt("[2|6] low")),)
    assert pt("[2|6] high") in low_side.points()
    high_side = layout.place(Tile(1, 3), pt("[2|3] high"))
    assert high_side.connections[0].joined == pt("[1|3] high")
    assert pt("[1|3] low") in high_side.points()


def test_opening_double_branches_only_after_both_line_a_and_line_b_are_joined() -> None:
    """Clause "branches become available only once both line sides are joined" (opening double).

    Joining line A alone opens nothing; joining line B too opens both branches.
    """
    state = new_match(
        2,
        seed=1,
        deals=[
            deal(
                [
                    "[2|2] [2|5] [0|0] [0|1] [0|3] [0|4] [0|5]",
                    "[2|3] [2|6] [0|6] [1|1] [1|4] [1|6] [4|4]",
                ]
            )
        ],
    )
    state = act(state, "[2|2] opens")
    assert state.layout.points() == (pt("[2|2] line_a"), pt("[2|2] line_b"))
    state = act(state, "[2|3] on [2|2] line_a")
    assert state.layout.points() == (pt("[2|2] line_b"), pt("[2|3] high"))
    assert state.layout.end_sum == 4 + 3  # still terminal: both halves, once
    assert Place(Tile(2, 5), pt("[2|2] branch_a")) not in legal_moves(state)
    state = act(state, "[2|5] on [2|2] line_b")
    assert state.layout.points() == (
        pt("[2|2] branch_a"),
        pt("[2|2] branch_b"),
        pt("[2|3] high"),
        pt("[2|5] high"),
    )
    assert state.layout.end_sum == 2 + 2 + 3 + 5
    assert legal_moves(state) == (
        Place(Tile(2, 6), pt("[2|2] branch_a")),
        Place(Tile(2, 6), pt("[2|2] branch_b")),
    )


def test_a_later_sniff_branches_only_after_its_line_b_is_joined() -> None:
    """Clause "branches ... available only once both ... are joined", for a Sniff placed later.

    Its line A is joined at once, the branches wait for line B.
    """
    layout = Layout.empty().place(Tile(1, 4)).place(Tile(1, 1), pt("[1|4] low"))
    assert layout.points() == (pt("[1|1] line_b"), pt("[1|4] high"))
    for branch in ("branch_a", "branch_b"):
        with pytest.raises(IllegalMove, match="both of its line sides"):
            layout.place(Tile(1, 6), pt(f"[1|1] {branch}"))
    opened = layout.place(Tile(1, 2), pt("[1|1] line_b"))
    assert pt("[1|1] branch_a") in opened.points()
    assert pt("[1|1] branch_b") in opened.points()


def test_branch_a_and_branch_b_are_distinct_points_and_both_can_be_joined() -> None:
    """Clause "Branch A and branch B are distinct points (both are listed as legal)"."""
    layout = Layout.empty().place(Tile(3, 3))
    layout = layout.place(Tile(3, 4), pt("[3|3] line_a")).place(Tile(3, 5), pt("[3|3] line_b"))
    one = layout.place(Tile(3, 6), pt("[3|3] branch_a"))
    other = layout.place(Tile(3, 6), pt("[3|3] branch_b"))
    assert one != other
    assert pt("[3|3] branch_b") in one.points()
    assert pt("[3|3] branch_a") in other.points()
    both = one.place(Tile(0, 3), pt("[3|3] branch_b"))
    assert all(p.tile != Tile(3, 3) for p in both.points())


@pytest.mark.parametrize("value", range(7))
def test_a_terminal_double_counts_both_halves_and_nothing_once_line_b_is_joined(
    value: int,
) -> None:
    """Clause "a terminal double contributes 2v; once line B is joined it contributes nothing".

    Checked for every value, with another double as the Sniff so that [v|v] is ordinary.
    """
    opening = Tile(0, 0) if value != 0 else Tile(1, 1)  # the Sniff, so [v|v] is ordinary
    joint_tile = Tile(opening.low, value)
    layout = Layout.empty().place(opening).place(joint_tile, Point(opening, Side.LINE_A))
    end = layout.fits(Tile(value, value))
    layout = layout.place(Tile(value, value), end[-1])
    rest = layout.end_sum - 2 * value
    assert [c.value for c in layout.contributions() if c.tile == Tile(value, value)] == [2 * value]
    partner = next(t for t in ALL_TILES if t.has(value) and not t.is_double and t not in layout)
    closed = layout.place(partner, Point(Tile(value, value), Side.LINE_B))
    other = partner.high if partner.low == value else partner.low
    assert all(c.tile != Tile(value, value) for c in closed.contributions())
    assert closed.end_sum == rest + other
    assert Point(Tile(value, value), Side.BRANCH_A) not in closed.points()


@pytest.mark.parametrize("value", range(7))
def test_a_lone_opening_double_counts_once(value: int) -> None:
    """Clause "the Sniff contributes 2v once, also when it lies alone as the opening tile".

    [2|2] alone counts 4: one contribution, although both line sides are open points.
    """
    layout = Layout.empty().place(Tile(value, value))
    assert layout.end_sum == 2 * value
    assert [c.value for c in layout.contributions()] == [2 * value]
    assert len(layout.points()) == 2


def test_a_lone_opening_5_5_scores_10_in_a_match() -> None:
    """Clause "[2|2] alone counts 4": a lone [5|5] counts 10, once, so it scores 10, not 20."""
    state = new_match(
        2,
        seed=1,
        deals=[
            deal(
                ["[5|5] [0|0] [0|1] [0|2] [0|3] [0|4] [0|5]"]
                + ["[1|1] [1|2] [1|3] [1|4] [1|5] [1|6] [2|2]"]
            )
        ],
    )
    state = act(state, "[5|5] opens")
    assert (last(state).points, state.scores) == (10, (10, 0))


@pytest.mark.parametrize("value", range(1, 7))
def test_each_free_branch_counts_half_the_sniff(value: int) -> None:
    """Clause "each free branch contributes v (half the Sniff)".

    A joined branch contributes nothing; with both branches joined the Sniff contributes
    nothing.
    """
    sniff = Tile(value, value)
    others = [t for t in ALL_TILES if t.has(value) and not t.is_double]
    layout = Layout.empty().place(sniff)
    layout = layout.place(others[0], Point(sniff, Side.LINE_A))
    layout = layout.place(others[1], Point(sniff, Side.LINE_B))
    mine = [c.value for c in layout.contributions() if c.tile == sniff]
    assert mine == [value, value]
    one = layout.place(others[2], Point(sniff, Side.BRANCH_A))
    assert [c.value for c in one.contributions() if c.tile == sniff] == [value]
    both = one.place(others[3], Point(sniff, Side.BRANCH_B))
    assert [c.value for c in both.contributions() if c.tile == sniff] == []
    assert both.end_sum == sum(t.pips - value for t in others[:4])


def test_a_zero_sniff_branches_count_zero() -> None:
    """Clause "each free branch contributes v": for [0|0] that is 0, listed but adding nothing."""
    layout = Layout.empty().place(Tile(0, 0))
    layout = layout.place(Tile(0, 1), pt("[0|0] line_a")).place(Tile(0, 2), pt("[0|0] line_b"))
    assert [c.value for c in layout.contributions() if c.tile == Tile(0, 0)] == [0, 0]
    assert layout.end_sum == 3


# -- scoring a placement -------------------------------------------------------------------


@pytest.mark.parametrize("end_sum", range(61))
def test_only_a_positive_multiple_of_five_scores(end_sum: int) -> None:
    """Clause "Scoring a placement".

    A positive multiple of five scores exactly the sum, any other sum (zero included) scores
    nothing: every sum a table can show (0 to 36), and beyond. Kills the mutants of
    ``rules.placement_points``.
    """
    expected = end_sum if end_sum > 0 and end_sum % 5 == 0 else 0
    assert placement_points(end_sum) == expected
    if end_sum <= 36:
        assert expected == (end_sum if end_sum in (5, 10, 15, 20, 25, 30, 35) else 0)


@pytest.mark.parametrize(("last", "end_sum", "points"), [("[3|3]", 36, 0), ("[3|5]", 35, 35)])
def test_one_branching_double_can_reach_36_and_the_best_score_is_35(
    last: str, end_sum: int, points: int
) -> None:
    """Clause "the sum can reach 36 in theory; the best scoring placement is worth 35".

    The Sniff [0|0] with four arms ending in terminal [6|6], [5|5], [4|4] and [3|3] sums
    12 + 10 + 8 + 6 = 36, which scores nothing; ending the last arm with [3|5] instead sums
    35 and scores 35.
    """
    layout = Layout.empty().place(Tile(0, 0))
    for tile, at in (
        ("[0|6]", "[0|0] line_a"),
        ("[0|5]", "[0|0] line_b"),
        ("[0|4]", "[0|0] branch_a"),
        ("[0|3]", "[0|0] branch_b"),
        ("[6|6]", "[0|6] high"),
        ("[5|5]", "[0|5] high"),
        ("[4|4]", "[0|4] high"),
        (last, "[0|3] high"),
    ):
        layout = layout.place(parse_tile(tile), pt(at))
    assert layout.end_sum == end_sum
    assert placement_points(layout.end_sum) == points


def test_placement_points_land_on_the_placing_side_every_time() -> None:
    """Clause "the placing side scores exactly the sum".

    Checked on every placement of some seeded matches, the opening and last tiles included.
    """
    for players in (2, 3, 4):
        match = first_move_match(players, 1)
        checked = 0
        for before, after in itertools.pairwise(match):
            if not isinstance(last(after).move, Place) or after.round != before.round:
                continue
            assert last(after).seat is not None
            points = placement_points(after.layout.end_sum)
            assert last(after).points == points
            gains = [a - b for a, b in zip(after.scores, before.scores, strict=True)]
            expected = [0] * len(gains)
            expected[side_of(players, last(after).seat)] = points
            assert gains == expected
            checked += 1
        assert checked > 50


def test_a_zero_sum_scores_nothing_in_a_match() -> None:
    """Clause "any other sum, zero included, scores nothing": opening [0|0] scores 0."""
    state = new_match(
        2,
        seed=1,
        deals=[
            deal(
                [
                    "[0|0] [0|1] [0|2] [0|3] [0|4] [0|5] [0|6]",
                    "[1|1] [1|2] [1|3] [1|4] [1|5] [1|6] [2|2]",
                ]
            )
        ],
    )
    state = act(state, "[0|0] opens")
    assert state.layout.end_sum == 0
    assert (last(state).points, state.scores) == (0, (0, 0))


# -- drawing and passing -------------------------------------------------------------------


def test_a_player_who_can_place_must_place() -> None:
    """Clause "A player who has a legal placement must place (any legal one they choose)".

    The legal moves are every placement of every tile, and Draw and Pass are refused.
    """
    state = new_match(2, seed=1, deals=[DRAW_DEAL])
    state = act(state, "[0|0] opens")
    state = apply(state, Draw())
    state = apply(state, Draw())
    state = apply(state, Draw())
    state = act(state, "[0|3] on [0|0] line_a")
    # Seat 0 holds [0|1] [0|2] [0|4] [0|5] [0|6] [1|1]; open: [0|0] line_b (0), [0|3] high (3).
    expected = tuple(
        Place(tile, point) for tile in state.hands[0] for point in state.layout.fits(tile)
    )
    assert legal_moves(state) == expected
    assert len(expected) == 5
    for refused in (Draw(), Pass()):
        with pytest.raises(IllegalMove, match="must place"):
            apply(state, refused)


def test_draws_one_tile_at_a_time_from_the_front_of_the_stock() -> None:
    """Clause "draws from the stock one tile at a time" and decision 4.

    Each draw takes the first tile of the stock; the stock shrinks from the front; the turn
    stays.
    """
    state = new_match(2, seed=1, deals=[DRAW_DEAL])
    assert state.stock == DRAW_DEAL.stock
    state = act(state, "[0|0] opens")
    for expected in tiles("[5|5] [6|6] [0|3]"):
        before = state
        assert legal_moves(before) == (Draw(),)
        state = apply(before, Draw())
        assert state.stock == before.stock[1:]
        assert before.stock[0] == expected
        assert sorted(state.hands[1]) == sorted((*before.hands[1], expected))
        assert state.hands[0] == before.hands[0]
        assert state.turn == 1
        assert state.layout == before.layout


def test_a_drawn_tile_that_does_not_fit_means_drawing_again() -> None:
    """Decision 3: after a draw that does not fit, the only legal move is to draw again."""
    state = new_match(2, seed=1, deals=[DRAW_DEAL])
    state = act(state, "[0|0] opens")
    state = apply(state, Draw())  # [5|5]: no 0
    assert state.drawn is None
    assert legal_moves(state) == (Draw(),)
    state = apply(state, Draw())  # [6|6]: no 0
    assert legal_moves(state) == (Draw(),)
    with pytest.raises(IllegalMove, match="must draw"):
        apply(state, Pass())


def test_a_drawn_tile_that_fits_must_be_placed_at_once_and_only_it() -> None:
    """Clause "A playable tile just drawn must be placed at once" and decision 3.

    No other tile of the hand may be placed instead, and the legal moves are exactly the
    drawn tile's placements.
    """
    state = new_match(2, seed=1, deals=[DRAW_DEAL])
    state = act(state, "[0|0] opens")
    for _ in range(3):
        state = apply(state, Draw())
    assert state.drawn == Tile(0, 3)
    assert legal_moves(state) == (
        Place(Tile(0, 3), pt("[0|0] line_a")),
        Place(Tile(0, 3), pt("[0|0] line_b")),
    )
    for tile in state.hands[1]:
        if tile != Tile(0, 3):
            with pytest.raises(IllegalMove, match="must place the tile just drawn"):
                apply(state, Place(tile, pt("[0|0] line_a")))
    for refused in (Draw(), Pass()):
        with pytest.raises(IllegalMove, match="must place the tile just drawn"):
            apply(state, refused)
    for move in legal_moves(state):
        after = apply(state, move)
        assert after.drawn is None
        assert Tile(0, 3) in after.layout
        assert after.turn == 0


def test_after_a_fitting_draw_only_the_drawn_tile_is_offered() -> None:
    """legal_moves reads the drawn tile from the state: the rest of the hand is not offered.

    The engine never reaches a state where another tile of the hand fits after
    a draw, so the state is made with attrs.evolve: ``drawn`` alone decides.

    Kills ``engine.legal_moves`` mutants 15 and 18.
    """
    state = apply(new_match(2, seed=1), legal_moves(new_match(2, seed=1))[0])
    hand = state.hands[state.turn]
    fitting = [move for move in legal_moves(state) if isinstance(move, Place)]
    assert len({move.tile for move in fitting}) > 1
    drawn = fitting[-1].tile
    waiting = state.evolve(drawn=drawn)
    assert drawn in hand
    assert legal_moves(waiting) == tuple(move for move in fitting if move.tile == drawn)


def test_a_player_passes_only_when_the_stock_is_empty() -> None:
    """Clause "Only a player who cannot place and faces an empty stock passes".

    Seat 1 draws all 14 tiles (Pass refused meanwhile), then Pass is the only move; it ends the
    turn.
    """
    state = new_match(2, seed=1, deals=[PASS_DEAL])
    state = act(state, "[0|0] opens")
    for left in range(14, 0, -1):
        assert state.stock_size == left
        assert legal_moves(state) == (Draw(),)
        with pytest.raises(IllegalMove, match="cannot pass"):
            apply(state, Pass())
        state = apply(state, Draw())
        assert state.turn == 1
    assert state.stock_size == 0
    assert len(state.hands[1]) == 21
    assert legal_moves(state) == (Pass(),)
    with pytest.raises(IllegalMove, match="stock is empty"):
        apply(state, Draw())
    state = apply(state, Pass())
    assert state.round == 1
    assert (state.turn, last(state).move, last(state).seat, last(state).points) == (0, Pass(), 1, 0)
    assert all(isinstance(m, Place) for m in legal_moves(state))


# -- blocking (decision 1) -------------------------------------------------------------------


def test_blocked_is_declared_by_the_placement_that_causes_it() -> None:
    """Decision 1 and clause "blocked when the stock is empty and nobody can place".

    The block is declared at the placement itself, with no pass recorded.
    """
    states = run(new_match(4, seed=5, deals=[BLOCK_BY_PLACEMENT_DEAL]), BLOCK_BY_PLACEMENT_SCRIPT)
    before, after = states[-2], states[-1]
    assert before.stock_size == 0
    assert before.round == 1
    assert can_place(before, 0)
    assert after.round == 2
    result = after.last_round
    assert result is not None
    assert result.end is RoundEnd.BLOCKED
    assert result.finisher is None
    assert last(after).move == Place(Tile(0, 0), pt("[0|6] low"))
    assert last(after).seat == 0
    assert all(not any(result.layout.fits(t) for t in hand) for hand in result.hands)
    assert result.layout.tiles[-1] == Tile(0, 0)
    # Seat 0 scored 5 with [0|5]; settlement: [6|6] -> 10, [1|1][2|2] -> 5,
    # [3|3][4|4] -> 15, seat 3's 13 tiles (94 pips) -> 95.
    assert result.deductions == (10, 5, 15, 95)
    assert result.scores == after.scores == (5 - 10 - 15, 0 - 5 - 95)


def test_blocked_is_declared_by_the_draw_that_empties_the_stock() -> None:
    """Decision 1.

    When the last tile of the stock is drawn, does not fit and nobody can place, the round ends
    blocked at that draw; no pass is recorded.
    """
    states = run(new_match(4, seed=5, deals=[BLOCK_BY_DRAW_DEAL]), BLOCK_BY_DRAW_SCRIPT)
    before, after = states[-2], states[-1]
    # Before the draw nobody can place, but the stock holds a tile: not blocked yet.
    assert before.stock == (Tile(4, 6),)
    assert not any(can_place(before, seat) for seat in range(4))
    assert legal_moves(before) == (Draw(),)
    assert after.round == 2
    result = after.last_round
    assert result is not None
    assert result.end is RoundEnd.BLOCKED
    assert result.finisher is None
    assert (last(after).move, last(after).seat, last(after).points) == (Draw(), 2, 0)
    assert Tile(4, 6) in result.hands[2]
    assert result.deductions == (20, 5, 30, 70)
    assert result.scores == (5 - 20 - 30, 0 - 5 - 70)


def test_no_live_state_is_ever_blocked() -> None:
    """Decision 1.

    Blocked is declared as soon as it holds, so no state of a round in play has an empty stock
    with nobody able to place.
    """
    for players in (2, 3, 4):
        for seed in range(3):
            for state in first_move_match(players, seed):
                if state.is_over or state.layout.is_empty or state.stock_size:
                    continue
                assert any(can_place(state, seat) for seat in range(players))


def test_blocked_rounds_in_seeded_matches_end_on_a_placement_or_a_draw() -> None:
    """Decision 1: a block ends the round at a placement or a draw, never at a pass."""
    ends = []
    for players in (2, 3, 4):
        for seed in range(6):
            match = first_move_match(players, seed)
            for before, after in itertools.pairwise(match):
                result = after.last_round
                ended = after.round != before.round and result is not None
                if ended and result is not None and result.end is RoundEnd.BLOCKED:
                    assert result.finisher is None
                    ends.append(type(last(after).move))
    assert Place in ends
    assert Draw in ends
    assert Pass not in ends


# -- end of a round and settlement -------------------------------------------------------------


def test_the_last_tile_ends_the_round_and_the_record_is_filled() -> None:
    """Clause "A round ends when a player places their last tile".

    ``last_round`` records the end, the finisher, the table, the hands, the deductions and the
    scores.
    """
    states = domino_states()
    assert all(s.last_round is None for s in states[:-1])
    final = states[-1]
    result = final.last_round
    assert result is not None
    assert result.round == 1
    assert result.end is RoundEnd.DOMINO
    assert result.finisher == 1
    assert result.layout == states[-2].layout.place(Tile(2, 5), pt("[2|6] low"))
    assert len(result.layout) == 18
    assert result.hands == (tiles("[1|1]"), (), tiles("[1|5]"), tiles("[4|4]"))
    assert result.deductions == (0, 0, 5, 10)
    assert result.scores == final.scores
    assert final.round == 2
    assert last(final).move == Place(Tile(2, 5), pt("[2|6] low"))
    assert last(final).seat == 1
    assert last(final).points == 5


@pytest.mark.parametrize("pips", range(85))
def test_a_hand_rounds_to_the_nearest_five_remainders_1_2_down_3_4_up(pips: int) -> None:
    """Clause "Settlement".

    Round to the nearest multiple of five, remainders 1 and 2 down, 3 and 4 up, exact multiples
    stay (every hand total from 0 to 84 pips). Kills the mutants of ``rules.round_hand``.
    """
    remainder = pips % 5
    expected = pips - remainder if remainder <= 2 else pips + 5 - remainder
    assert round_hand(pips) == expected
    assert round_hand(pips) % 5 == 0
    assert abs(round_hand(pips) - pips) <= 2


@pytest.mark.parametrize("pips", [-1, -3, True, 2.0, "7"])
def test_round_hand_refuses_what_no_hand_holds(pips: object) -> None:
    """A hand's pips are a whole number, 0 or more; the refusal names the value.

    Kills the message mutants of ``rules.round_hand``.
    """
    with pytest.raises(ValueError, match="whole number of pips") as error:
        round_hand(pips)
    assert str(error.value) == f"a hand holds a whole number of pips, 0 or more, got {pips!r}"


def test_partners_hands_are_rounded_separately_never_pooled() -> None:
    """Clause "Settlement ... each partner's hand rounded on its own, never pooled first".

    Seat 0 keeps 2 pips (-> 0) and seat 2 keeps 6 (-> 5): side 0 loses 5, where the pooled 8
    pips would have cost 10.
    """
    states = domino_states()
    before_settlement = states[-2].scores[0]  # seat 1's last placement scores for side 1
    assert before_settlement == 10
    final = states[-1]
    assert final.scores[0] == 10 - round_hand(2) - round_hand(6) == 5
    assert final.scores[0] != 10 - round_hand(2 + 6)


def test_settlement_deducts_each_rounded_hand_from_its_side() -> None:
    """Clause "Subtract each non-zero result from that player's score".

    Checked at every round end of some seeded matches, for 2, 3 and 4 players.
    """
    for players in (2, 3, 4):
        ends = 0
        for seed in range(3):
            match = first_move_match(players, seed)
            for before, after in itertools.pairwise(match):
                result = after.last_round
                if result is None or after.round == before.round:
                    continue
                ends += 1
                assert last(after).seat is not None
                assert result.deductions == tuple(
                    round_hand(sum(t.pips for t in hand)) for hand in result.hands
                )
                expected = list(before.scores)
                expected[side_of(players, last(after).seat)] += last(after).points
                for seat, amount in enumerate(result.deductions):
                    expected[side_of(players, seat)] -= amount
                assert result.scores == after.scores == tuple(expected)
        assert ends > 3


def test_scores_can_go_below_zero() -> None:
    """Decision 2: settlement has no floor; side 1 had 5 and loses 10 for seat 3's [4|4]."""
    states = domino_states()
    assert states[-2].scores[1] == 0
    assert last(states[-1]).points == 5
    assert states[-1].scores[1] == 5 - 10 == -5
    assert score_of(states[-1], 3) == -5


def test_nobody_gains_in_settlement_the_finisher_included() -> None:
    """Decision 8.

    Settlement only deducts; the finisher's side gets nothing for the others' hands (seat 1 went
    out; its side ends at 5 - 10, not higher).
    """
    states = domino_states()
    final = states[-1]
    result = final.last_round
    assert result is not None
    assert result.finisher == 1
    assert all(amount >= 0 for amount in result.deductions)
    assert final.scores == (10 - 5, 5 - 10)


def test_blocked_round_has_no_finisher_and_nobody_gains() -> None:
    """Clause "A blocked round has no finisher, and nobody gains points in settlement"."""
    states = run(new_match(4, seed=5, deals=[BLOCK_BY_DRAW_DEAL]), BLOCK_BY_DRAW_SCRIPT)
    result = states[-1].last_round
    assert result is not None
    assert result.finisher is None
    assert all(now <= was for now, was in zip(result.scores, states[-2].scores, strict=True))


# -- who opens later rounds ------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(6))
def test_the_finisher_opens_the_next_round(seed: int) -> None:
    """Clause "The player who goes out opens the next round".

    Seat 1 went out (seat 0 opened round 1), so seat 1 opens round 2 whatever the seed.
    """
    final = domino_states(seed)[-1]
    assert final.round == 2
    assert final.opener == 1
    assert final.turn == 1
    assert legal_moves(final) == tuple(Place(t) for t in final.hands[1])


def test_the_finisher_opens_even_when_the_next_deal_is_given() -> None:
    """Clause "The player who goes out opens the next round", with a given next deal.

    The deal leaves the opener to the rules (None) or names the finisher.
    """
    for opener in (None, 1):
        later = deal(_quarter_hands(), opener=opener)
        final = domino_states(later=[later])[-1]
        assert (final.opener, final.turn) == (1, 1)
        assert final.hands == later.hands


def test_after_a_block_a_seeded_lot_picks_the_opener() -> None:
    """Clause "After a blocked round, a new lot picks the opener".

    Reproducible from the seed, and not always the same seat.
    """
    openers = []
    for seed in range(12):
        final = run(new_match(4, seed=seed, deals=[BLOCK_BY_DRAW_DEAL]), BLOCK_BY_DRAW_SCRIPT)[-1]
        again = run(new_match(4, seed=seed, deals=[BLOCK_BY_DRAW_DEAL]), BLOCK_BY_DRAW_SCRIPT)[-1]
        assert final.round == 2
        assert final.opener == again.opener
        assert final.turn == final.opener
        openers.append(final.opener)
    assert len(set(openers)) > 1


def test_each_round_says_whether_its_deal_was_given_or_seeded() -> None:
    """The given deals serve the first rounds in order; later rounds are dealt from the seed.

    ``info.given`` says which of the two dealt the round in play, and the
    finished round keeps it (``last_round.given``). Kills the mutants of
    ``engine._start_round`` that lose it (``given = bool(None)``).
    """
    assert new_match(4, seed=5).info.given is False
    later = deal(_quarter_hands(), opener=0)
    for deals, second_given in (([BLOCK_BY_DRAW_DEAL], False), ([BLOCK_BY_DRAW_DEAL, later], True)):
        states = run(new_match(4, seed=5, deals=deals), BLOCK_BY_DRAW_SCRIPT)
        assert {state.info.given for state in states[:-1]} == {True}
        final = states[-1]
        assert final.round == 2
        assert final.last_round is not None
        assert final.last_round.given is True
        assert final.info.given is second_given
        assert (final.hands == later.hands) is second_given


@pytest.mark.parametrize("opener", range(4))
def test_after_a_block_a_given_deal_names_the_opener(opener: int) -> None:
    """Clause "After a blocked round, a new lot picks the opener".

    A Deal's opener stands in for that lot.
    """
    later = deal(_quarter_hands(), opener=opener)
    final = run(new_match(4, seed=5, deals=[BLOCK_BY_DRAW_DEAL, later]), BLOCK_BY_DRAW_SCRIPT)[-1]
    assert (final.round, final.opener, final.turn) == (2, opener, opener)


# -- reproducibility (decision 4) -----------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_match_is_reproducible_from_its_seed(players: int) -> None:
    """Decision 4.

    The deal, the stock order, the lots and so the whole match follow from the seed; another
    seed gives another deal.
    """
    assert new_match(players, seed=11) == new_match(players, seed=11)
    assert new_match(players, seed=11).seed == 11
    assert new_match(players, seed=11).hands != new_match(players, seed=12).hands
    one = first_move_match(players, 0)
    again = first_move_match.__wrapped__(players, 0)
    assert [s.hands for s in one] == [s.hands for s in again]
    assert [s.stock for s in one] == [s.stock for s in again]
    assert [s.last_action for s in one] == [s.last_action for s in again]
    assert one[-1].scores == again[-1].scores


def test_an_unseeded_match_draws_a_64_bit_seed() -> None:
    """Without a seed, a random one from 0 to 2**64 - 1 is drawn and kept."""
    seeds = {new_match(2).seed for _ in range(20)}
    assert all(type(seed) is int and 0 <= seed < 2**64 for seed in seeds)
    assert len(seeds) > 1


def test_every_draw_takes_the_front_of_the_stock_in_seeded_matches() -> None:
    """Decision 4.

    The stock is drawn in the fixed order of the deal; ``stock`` shrinks from the front.
    """
    draws = 0
    for players in (2, 3, 4):
        match = first_move_match(players, 2)
        for before, after in itertools.pairwise(match):
            if isinstance(last(after).move, Draw) and after.round == before.round:
                draws += 1
                assert after.stock == before.stock[1:]
                seat = before.turn
                assert sorted(after.hands[seat]) == sorted((*before.hands[seat], before.stock[0]))
    assert draws > 20


# -- end of the match (decision 6) ------------------------------------------------------------


def _winning_last_tile() -> tuple[MatchState, MatchState]:
    """A seeded two-player match whose winning placement is also the player's last tile."""
    for seed in range(40):
        match = first_move_match(2, seed)
        final = match[-1]
        if final.is_over and last(final).seat is not None and not final.hands[last(final).seat]:
            return match[-2], final
    raise AssertionError("no seeded match was won with a player's last tile")


def test_reaching_the_target_with_the_last_tile_wins_without_settlement() -> None:
    """Decision 6.

    The target is checked first; a placement that reaches it and empties the hand wins at once:
    the round is not finished, nothing is settled.
    """
    before, final = _winning_last_tile()
    seat = last(final).seat
    assert seat is not None
    assert len(before.hands[seat]) == 1
    assert final.winner == side_of(2, seat)
    assert final.hands[seat] == ()
    assert final.round == before.round
    assert final.last_round is before.last_round
    assert final.layout == before.layout.place(*_placed(final))
    expected = list(before.scores)
    expected[seat] += last(final).points
    assert final.scores == tuple(expected)
    assert final.scores[seat] >= 250 > before.scores[seat]
    assert final.hands[1 - seat] == before.hands[1 - seat]


def _placed(state: MatchState) -> tuple[Tile, Point | None]:
    move = last(state).move
    assert isinstance(move, Place)
    return move.tile, move.at


@pytest.mark.sweep
def test_reaching_the_target_is_checked_before_a_block() -> None:
    """Decision 6's order (target before block).

    A winning placement that also leaves the stock empty and nobody able to place wins the
    match: the round is not settled as blocked.
    """
    found = []
    for seed in range(150):
        match = first_move_match(2, seed)
        final = match[-1]
        if not final.is_over or final.stock_size:
            continue
        if not any(can_place(final, seat) for seat in range(2)):
            found.append((match[-2], final))
    assert found, "no seeded match was won by a placement that also blocked the round"
    for before, final in found:
        assert final.winner is not None
        assert final.round == before.round
        assert final.last_round is before.last_round
        assert final.scores[final.winner] >= 250
        assert legal_moves(final) == ()


def test_going_out_is_checked_before_a_block() -> None:
    """Decision 6's order (empty hand before block).

    A last tile that also leaves everyone unable to place ends the round as a domino with its
    finisher, not as a block.
    """
    found = 0
    for players in (2, 3, 4):
        for seed in range(8):
            match = first_move_match(players, seed)
            for before, after in itertools.pairwise(match):
                result = after.last_round
                if result is None or after.round == before.round or before.stock_size:
                    continue
                nobody = not any(any(result.layout.fits(t) for t in h) for h in result.hands)
                seat = last(after).seat
                if nobody and seat is not None and not result.hands[seat]:
                    found += 1
                    assert isinstance(last(after).move, Place)
                    assert result.end is RoundEnd.DOMINO
                    assert result.finisher == seat
    assert found > 0


@pytest.mark.sweep
def test_a_won_match_has_no_legal_moves_and_refuses_every_move() -> None:
    """Clause "Nothing after it is applied".

    Once a side has won, ``legal_moves`` is empty and ``apply`` raises ``IllegalMove`` for any
    move.
    """
    for players in (2, 3, 4):
        final = finished_matches(players, 1)[0][-1]
        assert final.is_over
        assert legal_moves(final) == ()
        hand = final.hands[final.turn]
        attempts: list[Move] = [Draw(), Pass()]
        attempts += [Place(t, p) for t in hand for p in final.layout.fits(t)]
        attempts += [Place(t) for t in hand]
        for move in attempts:
            with pytest.raises(IllegalMove, match="match is over"):
                apply(final, move)


# -- last_move, last_seat, last_points -------------------------------------------------------


def test_last_action_follows_each_action() -> None:
    """``last_action`` describes the action just applied: its seat, move and points.

    A new match has none.
    """
    state = new_match(2, seed=1, deals=[DRAW_DEAL])
    assert state.last_action is None
    state = act(state, "[0|0] opens")
    assert (last(state).move, last(state).seat, last(state).points) == (Place(Tile(0, 0)), 0, 0)
    state = act(state, "draw")
    assert (last(state).move, last(state).seat, last(state).points) == (Draw(), 1, 0)
    state = act(state, "draw")
    state = act(state, "draw")
    state = act(state, "[0|3] on [0|0] line_b")
    assert last(state).move == Place(Tile(0, 3), pt("[0|0] line_b"))
    assert (last(state).seat, last(state).points) == (1, 0)
    state = act(state, "[0|5] on [0|0] line_a")  # [0|3] high 3 + [0|5] high 5 = 8
    assert (last(state).seat, last(state).points) == (0, 0)
    state = act(state, "[2|3] on [0|3] high")  # 5 + 2 = 7
    state = act(state, "[0|4] on [0|0] branch_a")  # 5 + 2 + 4 + 0 (branch B) = 11
    assert state.layout.end_sum == 11
    state = act(state, "[1|2] on [2|3] low")  # 5 + 1 + 4 + 0 = 10
    assert (last(state).seat, last(state).points, state.scores) == (1, 10, (0, 10))

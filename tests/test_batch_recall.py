"""The batch's history, perfect-recall tensor and redrawn worlds (batch/recall.py, _crecall.c).

The tensor equals ``encode_information_state(view_for(state, seat))`` for
every seat in lockstep with :func:`~american_sniff.apply`, in C and in numpy;
the history the C stepping calls note equals numpy's; a redrawn world keeps
everything the seat knows, breaks no known void, and its tiles fall as the
single-match determiniser's do. The C tests are skipped where the extension
is not built (``python hatch_build.py --batch-in-place`` builds it in place);
CI runs them under ASan and UBSan.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest

np = pytest.importorskip("numpy")

from american_sniff import apply, new_match, view_for  # noqa: E402
from american_sniff.actions import legal_actions, move_of  # noqa: E402
from american_sniff.batch import BACKENDS, BAD_STATE, MATCH_OVER, OK, reset, step  # noqa: E402
from american_sniff.batch import _pybatch as k  # noqa: E402
from american_sniff.batch.observe import advance_facts, start_facts  # noqa: E402
from american_sniff.batch.recall import (  # noqa: E402
    HISTORY_WORDS,
    advance_history,
    information_state,
    redraw,
    start_history,
)
from american_sniff.bots import Determiniser  # noqa: E402
from american_sniff.envs.batched import BatchedMatches  # noqa: E402
from american_sniff.observation import (  # noqa: E402
    encode_information_state,
    information_state_size,
)

#: The C kernel's module, where it is built with the calls of _crecall.c.
C: Any = BACKENDS.get("c")
HAS_C = hasattr(C, "redraw_into")
needs_c = pytest.mark.skipif(not HAS_C, reason="the C extension is not built")
#: The ways of computing the tensor, and of redrawing.
TENSORS = ["numpy", "c"] if HAS_C else ["numpy"]
REDRAWS = ["python", "c"] if HAS_C else ["python"]


def play(players: int, seed: int, slots: int = 6, steps: int = 260) -> Iterator[tuple[Any, ...]]:
    """(state, facts, history, matches) of random matches at every step, the matches by apply."""
    chooser = random.Random(seed)
    seeds = list(range(seed * slots, (seed + 1) * slots))
    out = reset(np.array(seeds, np.uint64), players)
    facts, history = start_facts(out.state), start_history(slots)
    matches = [new_match(players, seed=s) for s in seeds]
    for _ in range(steps):
        yield out.state, facts, history, matches
        actions = np.array(
            [chooser.choice(legal_actions(m)) if m.winner is None else 0 for m in matches]
        )
        after = step(out.state, actions)
        advance_facts(facts, out.state, actions, after.state, after.errors)
        advance_history(history, out.state, actions, after.state, after.errors)
        out = after
        matches = [
            apply(m, move_of(m, int(a))) if m.winner is None else m
            for m, a in zip(matches, actions, strict=True)
        ]


@pytest.mark.sweep
@pytest.mark.parametrize("players", [2, 3, 4])
def test_tensor_equals_encode_information_state_in_lockstep(players: int) -> None:
    """Every seat's row is encode_information_state(view_for(state, seat)), C and numpy alike."""
    compared = finished = 0
    for number, (state, facts, history, matches) in enumerate(play(players, players, steps=700)):
        if number % 4:
            continue  # (every fourth step: the view's encoding is the slow part)
        for seat in range(players):
            expected = np.array(
                [encode_information_state(view_for(m, seat)) for m in matches], np.int32
            )
            for how in TENSORS:
                rows = information_state(state, facts, history, seat, backend=how)
                assert rows.shape == (len(matches), information_state_size(players))
                assert (rows == expected).all(), (how, seat, np.nonzero(rows != expected))
            compared += len(matches)
        finished += sum(m.winner is not None for m in matches)
    assert compared > 1000
    assert finished > 0  # the tensor of a finished match was compared too


@pytest.mark.parametrize("how", TENSORS)
def test_tensor_rows_seats_and_dtypes(how: str) -> None:
    """Chosen rows (counted from the end too), a seat a row, float32: the same numbers."""
    state, facts, history, _ = midgame(3, 9, 40)
    whole = [information_state(state, facts, history, seat, backend=how) for seat in range(3)]
    rows = np.array([5, -1, 0, 5])
    seats = np.array([2, 0, 1, 1])
    chosen = information_state(state, facts, history, seats, rows, dtype=np.float32, backend=how)
    assert chosen.dtype == np.float32
    for j, (row, seat) in enumerate(zip(rows, seats, strict=True)):
        assert (chosen[j] == whole[seat][row]).all()
    empty = information_state(state, facts, history, seats[:0], rows[:0], backend=how)
    assert empty.shape == (0, information_state_size(3))
    with pytest.raises(IndexError):
        information_state(state, facts, history, 0, [8], backend=how)
    with pytest.raises(ValueError, match="seats"):
        information_state(state, facts, history, [0, 1], [1, 2, 3], backend=how)
    with pytest.raises(ValueError, match="players"):
        information_state(state, facts, history, 0, players=5, backend=how)
    with pytest.raises(ValueError, match="dtype"):
        information_state(state, facts, history, 0, dtype=np.int64, backend=how)
    with pytest.raises(ValueError, match="backend"):
        information_state(state, facts, history, 0, backend="python")


@needs_c
@pytest.mark.sweep
@pytest.mark.parametrize("players", [2, 3, 4])
def test_c_stepping_calls_note_what_advance_history_notes(players: int) -> None:
    """step_facts_into, step_rows_into, play_forced_into, play_random_into: numpy's records."""
    n = 32
    generator = np.random.default_rng(players)
    out = reset(np.arange(n, dtype=np.uint64), players)
    state, facts, history = out.state, start_facts(out.state), start_history(n)
    mask, rewards = out.mask, np.zeros((n, 4), np.int32)
    done, errors = np.zeros(n, np.bool_), np.zeros(n, np.uint8)
    seats = np.zeros(n, np.int64)
    streams = np.arange(n, dtype=np.uint64) + 99
    gains = np.zeros(n, np.int32)
    compared = 0
    for turn in range(120):
        before, kept = state.copy(), history.copy()
        actions = (generator.random(mask.shape) * mask).argmax(axis=1).astype(np.int64)
        if turn % 4 == 0:
            C.step_facts_into(state, facts, actions, mask, rewards, done, errors, history)
        elif turn % 4 == 1:
            rows = np.flatnonzero(generator.random(n) < 0.7).astype(np.int64)
            row_rewards = np.zeros((len(rows), 4), np.int32)
            row_errors = np.zeros(len(rows), np.uint8)
            C.step_rows_into(
                state, facts, rows, actions[rows], mask, row_rewards, done, row_errors,
                None, None, history,
            )  # fmt: skip
            errors[:] = 0
            errors[np.setdiff1d(np.arange(n), rows)] = 255  # (not stepped)
            errors[rows] = row_errors
        elif turn % 4 == 2:
            C.play_forced_into(state, facts, seats, gains, done, history)
            C.mask_into(state, mask)
        else:
            C.play_random_into(state, facts, seats, streams, mask, gains, done, errors, history)
        if turn % 4 < 2:
            advance_history(kept, before, actions, state, errors)
            assert (kept == history).all()
            compared += 1
        # Whatever call noted them: each slot's records are the tensor of its round's actions.
        live = np.flatnonzero(state[:, k.WINNER] < 0)
        fresh = reset(np.array([0], np.uint64), players).state  # (a state of the same players)
        assert fresh[0, k.PLAYERS] == players
        assert information_state(state, facts, history, 0, live, backend="c").any(axis=1).all()
        reset_rows = np.flatnonzero(state[:, k.WINNER] >= 0)
        if len(reset_rows):
            again = reset(np.array(reset_rows + 1000 * turn, np.uint64), players)
            state[reset_rows] = again.state
            mask[reset_rows] = again.mask
            facts[reset_rows] = start_facts(again.state)
    assert compared == 60


class FirstLegal:
    """A policy that plays each row's first legal action (the same on every kernel)."""

    observes = False

    def __call__(self, observations: Any, masks: Any) -> Any:
        """Each row's first legal action."""
        del observations
        return np.asarray(masks).argmax(axis=1)


@needs_c
@pytest.mark.sweep
@pytest.mark.parametrize("players", [2, 4])
def test_batched_matches_keep_the_same_history_on_every_kernel(players: int) -> None:
    """step, play_random, play_policy: the C calls note what numpy notes, and the tensor follows."""
    n = 12
    batches = {how: BatchedMatches(n, players, backend=how, history=True) for how in ("c", "numpy")}
    streams = {how: np.arange(n, dtype=np.uint64) + 3 for how in batches}
    generator = np.random.default_rng(players)
    seats = np.zeros(n, np.int64)
    for matches in batches.values():
        matches.reset(50)
    for turn in range(60):
        picks = generator.random((n, 450))
        for how, matches in batches.items():
            if turn % 3 == 0:
                matches.step((picks * matches.mask).argmax(axis=1), np.flatnonzero(~matches.done))
            elif turn % 3 == 1:
                matches.play_random(seats, streams[how])
            else:
                matches.play_policy(FirstLegal(), seats)
        c, numpy_ = batches["c"], batches["numpy"]
        assert (c.state == numpy_.state).all()
        assert (c.history == numpy_.history).all()
        live = np.flatnonzero(~c.done)
        for seat in range(players):
            assert (c.information_state(seat, live) == numpy_.information_state(seat, live)).all()
        finished = np.flatnonzero(c.done)
        for matches in batches.values():
            matches.reset_slots(finished, finished + 100 * turn)
    with pytest.raises(RuntimeError, match="history=True"):
        BatchedMatches(1).information_state(0)


@needs_c
def test_c_tensor_of_broken_words_is_zeros() -> None:
    """A record, count, seat or player count out of range gives a row of zeros, no read past."""
    state, facts, history, _ = midgame(2, 4, 30)
    good = information_state(state, facts, history, 0, backend="c")
    assert good.any(axis=1).all()
    cases = []
    broken = history.copy()
    broken[0, 0] = 449 + 1  # an action past the last
    cases.append((state, broken, 0, 2))
    broken = history.copy()
    broken[0, 0] |= 31 << k.H_TILE_SHIFT  # a tile past the last
    cases.append((state, broken, 0, 2))
    broken = history.copy()
    broken[0, 0] |= 3 << k.H_SEAT_SHIFT  # a seat the match does not have
    cases.append((state, broken, 0, 2))
    words = state.copy()
    words[0, k.ROUND_ACTIONS] = HISTORY_WORDS + 1  # more records than the history holds
    cases.append((words, history, 0, 2))
    cases.append((state, history, 2, 2))  # a seat the match does not have
    cases.append((state, history, -1, 2))
    for words, records, seat, players in cases:
        rows = np.full((4, information_state_size(players)), 9, np.int32)
        zeros = C.information_state_into(
            words, facts, records, players, np.full(4, seat, np.int64), rows,
            np.arange(4, dtype=np.int64),
        )  # fmt: skip
        assert zeros >= 1
        assert not rows[0].any()
        if seat in (0, 1):
            assert (rows[1:] == good[1:4]).all()
    # Another player count: every row is zeros.
    rows = np.ones((8, information_state_size(3)), np.float32)
    assert C.information_state_into(state, facts, history, 3, np.zeros(8, np.int64), rows) == 8
    assert not rows.any()


@needs_c
def test_c_recall_calls_refuse_wrong_buffers() -> None:
    """Wrong sizes, kinds or player counts are refused with a short error, nothing written."""
    state = reset(np.arange(2, dtype=np.uint64), 2).state
    facts, history = start_facts(state), start_history(2)
    out = np.zeros((2, information_state_size(2)), np.int32)
    seats = np.zeros(2, np.int64)
    with pytest.raises(ValueError, match="players"):
        C.information_state_into(state, facts, history, 5, seats, out)
    with pytest.raises(ValueError, match="out"):
        C.information_state_into(state, facts, history, 3, seats, out)
    with pytest.raises(ValueError, match="history"):
        C.information_state_into(state, facts, history[:1], 2, seats, out)
    with pytest.raises(ValueError, match="seats"):
        C.information_state_into(state, facts, history, 2, seats[:1], out)
    with pytest.raises(ValueError, match="rows"):
        C.information_state_into(state, facts, history, 2, seats, out, np.array([0, 2]))
    with pytest.raises(TypeError, match="out"):
        C.information_state_into(state, facts, history, 2, seats, b"x")
    one = np.zeros(1, np.int64)
    errors = np.zeros(1, np.uint8)
    with pytest.raises(ValueError, match="history"):
        C.redraw_into(
            state, facts, history.astype(np.int32), one, one, one.astype(np.uint64), one, errors
        )
    with pytest.raises(ValueError, match="errors"):
        C.redraw_into(state, facts, None, one, one, one.astype(np.uint64), one, errors[:0])
    with pytest.raises(ValueError, match="history"):
        C.step_facts_into(state, facts, seats, None, np.zeros((2, 4), np.int32),
                          np.zeros(2, np.bool_), np.zeros(2, np.uint8), history[:1])  # fmt: skip


# -- redrawing -----------------------------------------------------------------------


def midgame(players: int, seed: int, steps: int) -> tuple[Any, Any, Any, list[Any]]:
    """The batch and the matches of ``play`` after ``steps`` steps."""
    for number, found in enumerate(play(players, seed, slots=8, steps=steps + 1)):
        if number == steps:
            return found
    raise AssertionError  # pragma: no cover


@pytest.mark.sweep
@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_world_keeps_what_the_seat_knows(players: int) -> None:
    """Hand, table, facts, tensor, sizes and voids kept; the hidden tiles moved; C = Python."""
    checked = 0
    for steps in (0, 9, 23, 41, 70):
        state, facts, history, _ = midgame(players, players + steps, steps)
        n = len(state)
        live = [i for i in range(n) if state[i, k.WINNER] < 0]
        for seat in range(players):
            worlds = {}
            for how in REDRAWS:
                s, f, h = state.copy(), facts.copy(), history.copy()
                errors = redraw(
                    s, f, h, live, seat, np.arange(len(live)) + 17 * seat, live, backend=how
                )
                assert (errors == OK).all()
                worlds[how] = (s, f, h)
            s, f, h = worlds[REDRAWS[0]]
            for how in REDRAWS[1:]:
                assert (worlds[how][0] == s).all()
                assert (worlds[how][2] == h).all()
            assert (f == facts).all()
            before = information_state(state, facts, history, seat, live, backend="numpy")
            after = information_state(s, f, h, seat, live, backend="numpy")
            assert (before == after).all()  # the seat sees the same
            for i in live:
                assert_world(state[i], facts[i], s[i], seat)
                checked += 1
    assert checked > 50


def assert_world(real: Any, facts: Any, world: Any, seat: int) -> None:
    """The world keeps the seat's knowledge and the seats' voids, and holds the real tiles."""
    players = int(real[k.PLAYERS])
    keep = [w for w in range(k.STATE_WORDS) if not k.HANDS <= w < k.HANDS + 4]
    keep = [w for w in keep if w not in (k.RNG, k.RNG + 1, k.SEED, k.SEED + 1, k.DRAWN)]
    keep = [w for w in keep if not k.STOCK <= w < k.STOCK + 14]
    assert (world[keep] == real[keep]).all()
    assert world[k.HANDS + seat] == real[k.HANDS + seat]
    assert world[k.SEED] == world[k.SEED + 1] == 0
    if real[k.TURN] == seat:
        assert world[k.DRAWN] == real[k.DRAWN]
    drawn, size = int(real[k.DRAWN_COUNT]), int(real[k.STOCK_SIZE])
    hidden_real = {int(t) for t in real[k.STOCK + drawn : k.STOCK + size]}
    hidden_world = {int(t) for t in world[k.STOCK + drawn : k.STOCK + size]}
    for other in range(players):
        if other == seat:
            continue
        hand_real, hand_world = int(real[k.HANDS + other]), int(world[k.HANDS + other])
        assert hand_real.bit_count() == hand_world.bit_count()
        hidden_real |= {t for t in range(28) if hand_real >> t & 1}
        for t in range(28):
            if hand_world >> t & 1:
                hidden_world.add(t)
                tile = SHOWS[t]
                assert not tile & int(facts[k.F_VOIDS + other]), "a known void broken"
    assert hidden_world == hidden_real
    assert (
        len(hidden_world)
        == sum(int(world[k.HANDS + o]).bit_count() for o in range(players) if o != seat)
        + size
        - drawn
    )
    assert not world[k.STOCK : k.STOCK + drawn].any()


SHOWS = [0] * 28
for _t, (_low, _high) in enumerate((a, b) for a in range(7) for b in range(a, 7)):
    SHOWS[_t] = 1 << _low | 1 << _high


@pytest.mark.parametrize("how", REDRAWS)
def test_redraw_is_deterministic_and_refuses_what_it_cannot(how: str) -> None:
    """The same seed, the same world; a finished match, a bad seat or slot, broken words refused."""
    state, facts, history, _ = midgame(2, 5, 30)
    live = int(np.flatnonzero(state[:, k.WINNER] < 0)[0])
    first, again, other = (state.copy() for _ in range(3))
    for words, seed in ((first, 7), (again, 7), (other, 8)):
        f, h = facts.copy(), history.copy()
        assert redraw(words, f, h, live, 1, seed, 0, backend=how).tolist() == [OK]
    assert (first == again).all()
    assert (first[0] != other[0]).any()
    assert (first[1:] == state[1:]).all()  # only the slot written changed
    over = state.copy()
    over[live, k.WINNER] = 0
    kept = over.copy()
    assert redraw(over, facts.copy(), None, live, 0, 1, live, backend=how).tolist() == [MATCH_OVER]
    assert (over == kept).all()
    for slot, seat, into in ((live, 2, live), (8, 0, 0), (live, 0, -1), (live, -1, live)):
        words = state.copy()
        assert redraw(words, facts.copy(), None, slot, seat, 1, into, backend=how).tolist() == [
            BAD_STATE
        ]
        assert (words == state).all()
    broken = state.copy()
    broken[live, k.STOCK + 13] = broken[live, k.HANDS]  # a tile twice
    assert redraw(broken, facts.copy(), None, live, 0, 1, live, backend=how).tolist() == [BAD_STATE]
    records = history.copy()
    records[live, 0] = 460
    assert redraw(state.copy(), facts.copy(), records, live, 0, 1, live, backend=how).tolist() == [
        BAD_STATE
    ]
    voids = facts.copy()
    voids[live, k.F_VOIDS + 1] = 0x7F  # seat 1 lacks every number: no deal fits
    if int(state[live, k.HANDS + 1]):
        assert redraw(state.copy(), voids, None, live, 0, 1, live, backend=how).tolist() == [
            BAD_STATE
        ]
    with pytest.raises(ValueError, match="slots"):
        redraw(state, facts, None, [0, 1], 0, [1, 2, 3], 0, backend=how)
    with pytest.raises(ValueError, match="history"):
        redraw(state, facts, history[:1], 0, 0, 1, 0, backend=how)
    with pytest.raises(ValueError, match="state and facts"):
        redraw(state.astype(np.int64), facts, None, 0, 0, 1, 0, backend=how)
    with pytest.raises(ValueError, match="backend"):
        redraw(state, facts, None, 0, 0, 1, 0, backend="numpy")


@pytest.mark.sweep
@pytest.mark.parametrize(("players", "steps"), [(2, 14), (3, 25), (4, 33)])
def test_redraw_marginals_match_the_determiniser(players: int, steps: int) -> None:
    """Where each hidden tile lands, over many seeds, is where the determiniser puts it (0.03)."""
    state, facts, _, matches = midgame(players, 11, steps)
    live = [i for i in range(len(state)) if state[i, k.WINNER] < 0]
    slot = max(live, key=lambda i: int(facts[i, k.F_VOIDS : k.F_VOIDS + 4].astype(bool).sum()))
    seat = int(state[slot, k.TURN])
    view = view_for(matches[slot], seat)
    samples = 3000 if REDRAWS[-1] == "c" else 600
    many = np.repeat(state[slot : slot + 1], samples, axis=0)
    many_facts = np.repeat(facts[slot : slot + 1], samples, axis=0)
    rows = np.arange(samples)
    assert (
        redraw(many, many_facts, None, rows, seat, rows + 1, rows, backend=REDRAWS[-1]) == OK
    ).all()
    ours = np.zeros((players, 28))
    for words in many:
        for other in range(players):
            hand = int(words[k.HANDS + other])
            ours[other] += [(hand >> t) & 1 for t in range(28)]
    ours /= samples
    theirs = np.zeros((players, 28))
    determiniser = Determiniser(view, history=False)
    for sample in range(samples):
        world, _ = determiniser.sample(sample + 1)
        for other in range(players):
            for tile in world.hands[other]:
                theirs[other, tile.index] += 1
    theirs /= samples
    assert np.abs(ours - theirs).max() < 0.03 + (0.03 if samples < 1000 else 0.0)
    # the voids the facts know are the view's
    for other in range(players):
        assert sorted(view.voids[other]) == [
            v for v in range(7) if facts[slot, k.F_VOIDS + other] >> v & 1
        ]


@needs_c
@pytest.mark.sweep
@pytest.mark.parametrize("players", [2, 3, 4])
def test_c_recall_calls_on_random_broken_words(players: int) -> None:
    """Words, facts and records broken at random: zeros or refusals, never a read out of bounds.

    CI runs this under ASan and UBSan; a row the kernel writes must be one it
    would write for sound words (the tensor of a slot it accepts equals numpy's).
    """
    generator = np.random.default_rng(players + 40)
    odd = np.array([-(2**31), -2, -1, 0, 1, 2, 3, 13, 27, 28, 29, 127, 128, 449, 450, 2**31 - 1])
    state, facts, history, _ = midgame(players, players, 25)
    n = len(state)
    size = information_state_size(players)
    for _ in range(60):
        s, f, h = state.copy(), facts.copy(), history.copy()
        for _ in range(int(generator.integers(1, 4))):
            slot = int(generator.integers(0, n))
            where = int(generator.integers(0, 3))
            if where == 0:
                s[slot, int(generator.integers(0, k.STATE_WORDS))] = generator.choice(odd)
            elif where == 1:
                f[slot, int(generator.integers(0, 14))] = generator.choice(odd)
            else:
                h[slot, int(generator.integers(0, HISTORY_WORDS))] = generator.integers(0, 2**16)
        seats = generator.integers(-1, players + 1, n).astype(np.int64)
        out = np.full((n, size), 7, np.int32)
        zeros = C.information_state_into(s, f, h, players, seats, out)
        assert zeros == int((~out.any(axis=1)).sum())
        for row in np.flatnonzero(out.any(axis=1)):
            expected = information_state(s, f, h, int(seats[row]), [row], backend="numpy")
            assert (out[row] == expected[0]).all()
        slots = generator.integers(-1, n + 1, 6).astype(np.int64)
        into = generator.integers(-1, n + 1, 6).astype(np.int64)
        seeds = generator.integers(0, 2**63, 6).astype(np.uint64)
        errors = np.zeros(6, np.uint8)
        worlds = s.copy(), f.copy(), h.copy()
        C.redraw_into(*worlds, slots, seats[:6], seeds, into, errors)
        python = s.copy(), f.copy(), h.copy()
        assert (redraw(*python, slots, seats[:6], seeds, into, backend="python") == errors).all()
        for a, b in zip(worlds, python, strict=True):
            assert (a == b).all()

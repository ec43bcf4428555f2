"""The batched engine (american_sniff.batch): deals, lockstep with apply, refusals, arrays.

Every test runs on the Python kernel, which is always there; the C kernel's
runs are skipped where the extension is not built (build it in place with
``python hatch_build.py --batch-in-place``), and where it is, both kernels
are also stepped side by side.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from array import array
from pathlib import Path
from typing import Any

import pytest

import american_sniff.conformance
from american_sniff import Draw, Pass, apply, new_match, parse_move
from american_sniff.actions import (
    DRAW_ACTION,
    NUM_ACTIONS,
    PASS_ACTION,
    action_mask,
    legal_actions,
    move_of,
    placement_action,
)
from american_sniff.batch import (
    BACKEND,
    BACKENDS,
    BAD_STATE,
    FIELDS,
    ILLEGAL,
    MATCH_OVER,
    OK,
    OUT_OF_RANGE,
    STATE_WORDS,
    WINNER,
    BatchStep,
    legal_mask,
    reset,
    step,
    step_into,
)
from american_sniff.envs.rewards import rewards as env_rewards
from american_sniff.state import MatchState
from american_sniff.tiles import ALL_TILES
from generate_vectors import seed_giving

HAS_C = "c" in BACKENDS
needs_c = pytest.mark.skipif(not HAS_C, reason="the C extension is not built")
#: How many whole matches the C kernel's lockstep test plays for each number
#: of players (the sanitizer run of .ci/run plays fewer: it runs slowly).
MATCHES = int(os.environ.get("BATCH_MATCHES", "40"))
HAS_NUMPY = "numpy" in BACKENDS
needs_numpy = pytest.mark.skipif(not HAS_NUMPY, reason="numpy is not installed")
#: Each kernel, the C one skipped where it is not built, the numpy one where
#: numpy is not installed.
KERNELS = ["python", pytest.param("numpy", marks=needs_numpy), pytest.param("c", marks=needs_c)]
#: The kernels that run here, to be compared with each other.
HERE: list[str] = [name for name in ("python", "numpy", "c") if name in BACKENDS]


def field(state: Any, slot: int, name: str) -> list[int]:
    """The words of one field of one slot."""
    start, size = FIELDS[name]
    base = slot * STATE_WORDS + start
    return [int(word) for word in memoryview(state).cast("B").cast("i")[base : base + size]]


def mask_actions(mask: Any, slot: int) -> list[int]:
    """The legal actions of one slot, from a mask."""
    flags = memoryview(mask).cast("B")[slot * NUM_ACTIONS : (slot + 1) * NUM_ACTIONS]
    return [a for a in range(NUM_ACTIONS) if flags[a]]


def tiles_of(bits: int) -> tuple[Any, ...]:
    """The tiles of a tile mask, in index order."""
    return tuple(tile for tile in ALL_TILES if bits >> tile.index & 1)


def check_slot(state: Any, slot: int, match: MatchState) -> None:
    """The slot holds what the engine's state holds."""
    players = match.players
    assert field(state, slot, "players") == [players]
    assert field(state, slot, "round") == [match.round]
    assert field(state, slot, "turn") == [match.turn]
    assert field(state, slot, "winner") == [-1 if match.winner is None else match.winner]
    assert field(state, slot, "scores")[: len(match.scores)] == list(match.scores)
    hands = field(state, slot, "hands")
    assert tuple(tiles_of(h) for h in hands[:players]) == match.hands
    drawn = field(state, slot, "drawn")[0]
    assert (None if drawn < 0 else ALL_TILES[drawn]) == match.drawn
    count = field(state, slot, "drawn_count")[0]
    size = field(state, slot, "stock_size")[0]
    stock = field(state, slot, "stock")[count:size]
    assert tuple(ALL_TILES[t] for t in stock) == match.stock
    assert field(state, slot, "end_sum") == [match.layout.end_sum]
    assert tiles_of(field(state, slot, "table")[0]) == tuple(sorted(match.layout.tiles))


@pytest.mark.parametrize("backend", KERNELS)
@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_slot_deals_the_match_new_match_deals(backend: str, players: int) -> None:
    """Hands, stock, opener, seed and mask of a fresh slot are new_match's."""
    seeds = [0, 1, 2, 99, 2**63, 2**64 - 1, *range(1000, 1020)]
    out = reset(seeds, players, backend=backend)
    for slot, seed in enumerate(seeds):
        match = new_match(players, seed=seed)
        check_slot(out.state, slot, match)
        assert mask_actions(out.mask, slot) == list(legal_actions(match))
        low, high = field(out.state, slot, "seed")
        assert (low & 0xFFFFFFFF) | (high & 0xFFFFFFFF) << 32 == seed
    assert list(out.rewards) == [0] * 4 * len(seeds)
    assert list(out.done) == list(out.errors) == [0] * len(seeds)


def lockstep(backend: str, players: int, seeds: list[int], max_actions: int) -> int:
    """Random legal play of ``seeds`` in one batch and through apply; returns the actions made."""
    out = reset(seeds, players, backend=backend)
    matches = [new_match(players, seed=seed) for seed in seeds]
    chooser = random.Random(players * 1000 + len(seeds))
    made = 0
    for _ in range(max_actions):
        if all(m.winner is not None for m in matches):
            break
        actions = []
        for match in matches:
            legal = legal_actions(match)
            actions.append(chooser.choice(legal) if legal else 0)
        before = matches
        nxt = step(out.state, actions, backend=backend)
        matches = []
        for slot, (match, action) in enumerate(zip(before, actions, strict=True)):
            if match.winner is not None:
                assert nxt.errors[slot] == MATCH_OVER
                assert bool(nxt.done[slot])
                matches.append(match)
                continue
            after = apply(match, move_of(match, action))
            made += 1
            assert nxt.errors[slot] == OK
            check_slot(nxt.state, slot, after)
            assert mask_actions(nxt.mask, slot) == [
                a for a, flag in enumerate(action_mask(after)) if flag
            ]
            got = list(nxt.rewards[4 * slot : 4 * slot + players])
            assert got == [int(r) for r in env_rewards("points", match, after)]
            assert bool(nxt.done[slot]) == (after.winner is not None)
            matches.append(after)
        out = nxt
    return made


@pytest.mark.sweep
@needs_c
@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_c_kernel_plays_in_lockstep_with_apply(players: int) -> None:
    """Random legal play: the C slots follow apply move for move."""
    # Whole matches (several rounds each).
    made = lockstep("c", players, list(range(MATCHES)), 100_000)
    assert made > MATCHES * 100


@pytest.mark.sweep
@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_python_kernel_plays_in_lockstep_with_apply(players: int) -> None:
    """Random legal play: the Python slots follow apply move for move."""
    made = lockstep("python", players, [5, 6, 7, 8], 100_000)
    assert made > 4 * 100


@pytest.mark.sweep
@needs_numpy
@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_numpy_kernel_plays_in_lockstep_with_apply(players: int) -> None:
    """Random legal play: the numpy slots, stepped together, follow apply move for move."""
    made = lockstep("numpy", players, list(range(20, 32)), 100_000)
    assert made > 12 * 100


@pytest.mark.sweep
@needs_numpy
@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_numpy_kernel_refuses_random_actions_over_whole_matches(players: int) -> None:
    """The fuzz, long enough to finish matches, on the numpy and Python kernels side by side."""
    fuzz(["python", "numpy"], players, list(range(200, 206)), 1500, random.Random(players + 20))


@needs_numpy
@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("draw", [1, 14, 27, 28])
def test_the_numpy_kernel_deals_rejected_outputs_as_new_match(players: int, draw: int) -> None:
    """Seeds whose shuffle or lot meets SplitMix64's largest output deal as new_match deals.

    Output 2**64 - 1 is rejected by ``below(n)`` unless n is a power of two;
    draw 1 is the shuffle's first position (n = 28), draw 27 its last
    (n = 2, where it is accepted), draw 28 the lot (n = the players).
    """
    seeds = [seed_giving(2**64 - 1, draw), 7]
    out = reset(seeds, players, backend="numpy")
    assert list(out.state) == list(reset(seeds, players, backend="python").state)
    check_slot(out.state, 0, new_match(players, seed=seeds[0]))


@needs_numpy
def test_the_numpy_kernel_steps_two_three_and_four_players_in_one_batch() -> None:
    """Slots of 2, 3 and 4 players side by side, the mask at an odd address: as the Python kernel.

    The numpy kernel reads its bounds and deals by each slot's number of
    players, and writes a mask's placements as overlapping uint64 (unaligned here).
    """
    dealt = [
        reset(list(range(400 + 10 * k, 403 + 10 * k)), 2 + k, backend="python") for k in range(3)
    ]
    words = array("i")
    for slot in range(3):
        for part in dealt:  # the slots interleaved: 2, 3, 4, 2, 3, 4, ...
            words.extend(part.state[slot * STATE_WORDS : (slot + 1) * STATE_WORDS])
    n = len(words) // STATE_WORDS
    states = {backend: array("i", words) for backend in ("python", "numpy")}
    masks = {
        "python": memoryview(bytearray(n * NUM_ACTIONS)),
        "numpy": memoryview(bytearray(n * NUM_ACTIONS + 1))[1:],
    }
    outputs = {b: (array("i", bytes(16 * n)), bytearray(n), bytearray(n)) for b in states}
    BACKENDS["python"].mask_into(states["python"], masks["python"])
    chooser = random.Random(9)
    rounds = 0
    for _ in range(200):
        actions = array("q")
        for slot in range(n):
            legal = mask_actions(masks["python"], slot)
            roll = chooser.random()
            actions.append(
                chooser.choice(legal)
                if legal and roll < 0.9
                else chooser.randrange(-1, NUM_ACTIONS + 1)
            )
        before = [field(states["python"], slot, "round")[0] for slot in range(n)]
        for backend, state in states.items():
            step_into(state, actions, masks[backend], *outputs[backend], backend=backend)
        assert states["numpy"] == states["python"]
        assert bytes(masks["numpy"]) == bytes(masks["python"])
        assert outputs["numpy"] == outputs["python"]
        rounds += sum(
            field(states["python"], slot, "round")[0] != before[slot] for slot in range(n)
        )
    assert rounds >= n  # every slot dealt again, most more than once


def fuzz(backends: list[str], players: int, seeds: list[int], actions: int, chooser: Any) -> None:
    """Random actions, illegal ones included, on each backend: refusals match legal_actions."""
    outs = {b: reset(seeds, players, backend=b) for b in backends}
    matches = [new_match(players, seed=seed) for seed in seeds]
    for _ in range(actions):
        chosen = []
        for match in matches:
            legal = legal_actions(match)
            roll = chooser.random()
            if legal and roll < 0.5:
                chosen.append(chooser.choice(legal))
            elif roll < 0.9:
                chosen.append(chooser.randrange(NUM_ACTIONS))
            else:
                chosen.append(chooser.choice([-1, NUM_ACTIONS, 2**40, -(2**40)]))
        steps = {b: step(outs[b].state, chosen, backend=b) for b in backends}
        first = steps[backends[0]]
        for other in backends[1:]:
            for name in ("state", "mask", "rewards", "done", "errors"):
                assert list(getattr(steps[other], name)) == list(getattr(first, name)), name
        for slot, (match, action) in enumerate(zip(matches, chosen, strict=True)):
            code = first.errors[slot]
            if match.winner is not None:
                assert code == MATCH_OVER
            elif not 0 <= action < NUM_ACTIONS:
                assert code == OUT_OF_RANGE
            elif action not in legal_actions(match):
                assert code == ILLEGAL
            else:
                assert code == OK
                matches[slot] = apply(match, move_of(match, action))
            if code != OK:
                # A refused slot keeps its state and gets nothing.
                base = slot * STATE_WORDS
                assert list(first.state[base : base + STATE_WORDS]) == list(
                    outs[backends[0]].state[base : base + STATE_WORDS]
                )
                assert list(first.rewards[4 * slot : 4 * slot + 4]) == [0, 0, 0, 0]
            check_slot(first.state, slot, matches[slot])
        outs = steps


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_actions_are_refused_slot_by_slot(players: int) -> None:
    """Random actions, illegal included: refused where apply refuses, both kernels alike."""
    fuzz(HERE, players, [11, 12, 13], 400, random.Random(players))


@pytest.mark.sweep
@needs_c
@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_c_kernel_refuses_random_actions_over_whole_matches(players: int) -> None:
    """The same fuzz, long enough to finish matches, on the C kernel."""
    slots = max(2, MATCHES // 3)
    fuzz(["c"], players, list(range(100, 100 + slots)), 3000, random.Random(players + 10))


@pytest.mark.parametrize("backend", KERNELS)
def test_a_finished_match_refuses_every_action_until_reset(backend: str) -> None:
    """A won match: done, an empty mask, and MATCH_OVER for any action."""
    out = reset([3], 2, backend=backend)
    chooser = random.Random(3)
    while not out.done[0]:
        out = step(out.state, [chooser.choice(mask_actions(out.mask, 0))], backend=backend)
    assert field(out.state, 0, "winner")[0] in (0, 1)
    assert out.state[WINNER] == field(out.state, 0, "winner")[0]
    assert mask_actions(out.mask, 0) == []
    again = step(out.state, [448], backend=backend)
    assert again.errors[0] == MATCH_OVER
    assert again.done[0] == 1
    assert list(again.state) == list(out.state)


def garbage_states(chooser: random.Random, count: int) -> array[int]:
    """States with words broken at random: out of range, negative, huge."""
    good = reset(list(range(count)), 4, backend="python").state
    words = array("i", good)
    for slot in range(count):
        for _ in range(chooser.randrange(1, 6)):
            at = slot * STATE_WORDS + chooser.randrange(STATE_WORDS)
            words[at] = chooser.choice(
                [-(2**31), -2, -1, 5, 28, 29, 64, 70, 2**30, 2**31 - 1, chooser.randrange(-99, 99)]
            )
    return words


def test_a_broken_state_is_refused_without_harm() -> None:
    """Words broken at random: BAD_STATE (or a step), the kernels agree, masks empty."""
    chooser = random.Random(5)
    words = garbage_states(chooser, 200)
    actions = [chooser.randrange(NUM_ACTIONS) for _ in range(200)]
    results = [step(words, actions, backend=b) for b in HERE]
    for name in ("state", "mask", "rewards", "done", "errors"):
        assert all(list(getattr(r, name)) == list(getattr(results[0], name)) for r in results)
    codes = set(results[0].errors)
    assert BAD_STATE in codes
    for slot in range(200):
        if results[0].errors[slot] == BAD_STATE:
            assert mask_actions(results[0].mask, slot) == []
            assert results[0].done[slot] == 0


def test_bits_past_point_69_are_cleared_by_any_placement_on_every_kernel() -> None:
    """Stray bits past point 69 of the third open word: every kernel clears them on a placement."""
    out = reset(list(range(40)), 2, backend="python")
    words = array("i", out.state)
    for slot in range(40):
        words[slot * STATE_WORDS + FIELDS["open"][0] + 2] |= 0x40 << (slot % 25)
    mask = legal_mask(words, backend="python")
    actions = [mask_actions(mask, slot)[0] for slot in range(40)]
    results = [step(words, actions, backend=b) for b in HERE]
    for name in ("state", "mask", "rewards", "done", "errors"):
        assert all(list(getattr(r, name)) == list(getattr(results[0], name)) for r in results)
    assert set(results[0].errors) == {OK}
    stray = [results[0].state[i * STATE_WORDS + FIELDS["open"][0] + 2] >> 6 for i in range(40)]
    assert stray == [0] * 40


def test_step_leaves_its_input_alone_and_step_into_steps_in_place() -> None:
    """A step is functional; step_into writes the same results in place."""
    out = reset([21, 22], 3)
    kept = array("i", out.state)
    actions = array("q", [mask_actions(out.mask, 0)[0], mask_actions(out.mask, 1)[0]])
    stepped = step(out.state, actions)
    assert list(out.state) == list(kept)
    mask = array("B", bytes(2 * NUM_ACTIONS))
    rewards = array("i", bytes(32))
    done = array("B", bytes(2))
    errors = array("B", bytes(2))
    assert step_into(kept, actions, mask, rewards, done, errors) == 0
    assert list(kept) == list(stepped.state)
    assert list(mask) == list(stepped.mask) == list(legal_mask(stepped.state))
    assert step_into(kept, array("i", [NUM_ACTIONS, -5]), mask, rewards, done, errors) == 2
    assert list(errors) == [OUT_OF_RANGE, OUT_OF_RANGE]


@pytest.mark.parametrize("backend", KERNELS)
def test_malformed_arrays_are_refused_with_clear_errors(backend: str) -> None:
    """Wrong sizes, non-buffers and read-only outputs are refused with a message."""
    out = reset([1, 2], 2, backend=backend)
    with pytest.raises(ValueError, match="multiple of 48"):
        step(array("i", [0] * 47), [0], backend=backend)
    with pytest.raises(ValueError, match="actions must hold 2 integers"):
        step(out.state, array("q", [0]), backend=backend)
    with pytest.raises(TypeError, match="buffer"):
        step(42, [0], backend=backend)
    with pytest.raises(TypeError, match="an action is an integer"):
        step(out.state, [0, "draw"], backend=backend)
    with pytest.raises(TypeError, match="writable"):
        step_into(
            out.state,
            [0, 0],
            bytes(2 * NUM_ACTIONS),
            out.rewards,
            out.done,
            out.errors,
            backend=backend,
        )
    with pytest.raises(ValueError, match="mask must hold"):
        step_into(
            out.state, [0, 0], bytearray(10), out.rewards, out.done, out.errors, backend=backend
        )


def test_reset_refuses_bad_arguments() -> None:
    """Players, seeds and backend names are checked."""
    with pytest.raises(ValueError, match="2, 3 or 4 players"):
        reset([1], 5)
    with pytest.raises(ValueError, match="a seed must be"):
        reset([-1], 2)
    with pytest.raises(ValueError, match="a seed must be"):
        reset([2**64], 2)
    with pytest.raises(TypeError, match="seeds must be"):
        reset(7, 2)
    with pytest.raises(ValueError, match="backend must be one of"):
        reset([1], 2, backend="gpu")
    assert isinstance(reset([], 2), BatchStep)
    assert BACKEND in BACKENDS


@pytest.mark.parametrize("backend", KERNELS)
def test_every_kernel_resets_and_steps_no_slots(backend: str) -> None:
    """A batch of no slots: empty state, masks, rewards and flags out."""
    out = reset([], 3, backend=backend)
    assert (len(out.state), len(out.mask)) == (0, 0)
    after = step(out.state, [], backend=backend)
    sizes = [len(after.state), len(after.mask), len(after.rewards), len(after.done)]
    assert [*sizes, len(after.errors)] == [0, 0, 0, 0, 0]


def test_numpy_arrays_in_give_numpy_arrays_out() -> None:
    """Numpy arrays in, numpy arrays out, shaped by slot, with the bytes of the plain arrays."""
    numpy = pytest.importorskip("numpy")
    out = reset(numpy.arange(5, dtype=numpy.uint64), 4)
    assert out.state.shape == (5, STATE_WORDS)
    assert out.state.dtype == numpy.int32
    assert out.mask.shape == (5, NUM_ACTIONS)
    assert out.mask.dtype == numpy.bool_
    actions = out.mask.argmax(axis=1)  # int64: the first legal action of each slot
    nxt = step(out.state, actions)
    assert nxt.rewards.shape == (5, 4)
    assert nxt.done.shape == (5,)
    assert nxt.errors.shape == (5,)
    assert not nxt.errors.any()
    plain = step(array("i", out.state.tobytes()), list(map(int, actions)))
    assert nxt.state.tobytes() == bytes(plain.state)
    assert nxt.mask.tobytes() == bytes(plain.mask)
    assert (legal_mask(nxt.state) == nxt.mask).all()
    assert step(out.state, actions.astype(numpy.int32)).state.tobytes() == nxt.state.tobytes()


def test_a_named_extension_that_is_not_one_fails_the_import(tmp_path: Path) -> None:
    """AMERICAN_SNIFF_BATCH_EXTENSION never falls back: a file that is no extension is an error."""
    fake = tmp_path / "_cbatch.txt"
    fake.write_text("not a module")
    environment = {**os.environ, "AMERICAN_SNIFF_BATCH_EXTENSION": str(fake)}
    environment["PYTHONPATH"] = os.pathsep.join(sys.path)  # this process's own imports
    result = subprocess.run(
        [sys.executable, "-c", "import american_sniff.batch"],
        env=environment,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode != 0
    assert "is not an extension module" in result.stderr


def seeded_vectors() -> list[dict[str, Any]]:
    """The conformance vectors that start from a seed (the batch deals only from seeds)."""
    folder = Path(american_sniff.conformance.__file__).parent / "vectors"
    found = []
    for path in sorted(folder.glob("*.json")):
        for vector in json.loads(path.read_text("utf-8")).get("vectors", []):
            steps = vector.get("steps") or []
            first = steps[0].get("request") if steps else None
            if (
                isinstance(first, dict)
                and first.get("cmd") == "new"
                and "seed" in first
                and "deals" not in first
            ):
                found.append(vector)
    return found


def action_of_text(text: str) -> int:
    """The action of a move written as the protocol writes it."""
    move = parse_move(text)
    if isinstance(move, Draw):
        return DRAW_ACTION
    if isinstance(move, Pass):
        return PASS_ACTION
    return placement_action(move.tile, move.at)


@pytest.mark.parametrize("backend", KERNELS)
def test_the_seeded_conformance_vectors_play_alike(backend: str) -> None:
    """Every vector that starts from a seed: the batch's legal moves, scores, turns and rounds."""
    vectors = seeded_vectors()
    assert len(vectors) >= 8
    checked = 0
    for vector in vectors:
        steps = vector["steps"]
        new = steps[0]["request"]
        players = new["players"]
        out = reset([int(new["seed"])], players, backend=backend)
        state, mask = out.state, out.mask
        for number, item in enumerate(steps[1:], start=2):
            where = f"{vector['id']}, step {number} ({item['at']})"
            request, expect = item["request"], item["expect"]
            if request["cmd"] == "legal":
                wanted = sorted(action_of_text(text) for text in expect["moves"])
                assert mask_actions(mask, 0) == wanted, where
            elif request["cmd"] == "move":
                seat = field(state, 0, "turn")[0]
                nxt = step(state, [action_of_text(request["move"])], backend=backend)
                assert (nxt.errors[0] == OK) == expect["ok"], where
                if expect["ok"]:
                    state, mask = nxt.state, nxt.mask
                    winner = expect["winner"]
                    assert field(state, 0, "winner") == [-1 if winner is None else winner], where
                    assert field(state, 0, "round") == [expect["round"]], where
                    assert field(state, 0, "turn") == [expect["turn"]], where
                    settled = expect["round_end"]
                    scores = expect["scores"] if settled is None else settled["scores"]
                    assert field(state, 0, "scores")[: len(scores)] == scores, where
                    if settled is None and expect["points"]:
                        assert nxt.rewards[seat] == expect["points"], where
            elif request["cmd"] == "state":
                assert field(state, 0, "turn") == [expect["turn"]], where
                assert field(state, 0, "round") == [expect["round"]], where
                scores = expect["scores"]
                assert field(state, 0, "scores")[: len(scores)] == scores, where
                sizes = [bin(hand).count("1") for hand in field(state, 0, "hands")[:players]]
                assert sizes == expect["hand_sizes"], where
                left = field(state, 0, "stock_size")[0] - field(state, 0, "drawn_count")[0]
                assert left == expect["stock_size"], where
            checked += 1
    assert checked > 400

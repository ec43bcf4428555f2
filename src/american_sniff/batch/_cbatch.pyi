"""The C kernel of american_sniff.batch (built from _cbatch.c); see _pybatch for its twin."""

from typing import Any

#: How many int32 words a slot's state has.
STATE_WORDS: int
#: How many int64 words of facts a slot has (american_sniff.batch.observe.FACT_WORDS).
FACT_WORDS: int

def reset_into(state: Any, seeds: Any, players: int, mask: Any, /) -> None: ...
def step_into(
    state: Any, actions: Any, mask: Any, rewards: Any, done: Any, errors: Any, /
) -> int: ...
def mask_into(state: Any, mask: Any, /) -> None: ...
def playout_values(
    world: Any, actions: Any, seat: int, random: bool, depth: int, settle: float, rng: int, /
) -> tuple[list[float], int]: ...
def endgame_values(
    world: Any, actions: Any, seat: int, nodes: int, /
) -> tuple[list[float], int] | None: ...
def start_facts_into(state: Any, facts: Any, /) -> None: ...
def step_facts_into(
    state: Any,
    facts: Any,
    actions: Any,
    mask: Any,
    rewards: Any,
    done: Any,
    errors: Any,
    history: Any = None,
    /,
) -> int: ...
def play_random_into(
    state: Any,
    facts: Any,
    seats: Any,
    rng: Any,
    mask: Any,
    gains: Any,
    done: Any,
    errors: Any,
    history: Any = None,
    /,
) -> int: ...
def observe_into(
    state: Any, facts: Any, out: Any, rows: Any = None, scaled: bool = False, /
) -> int: ...
def observe_waiting_into(
    state: Any, facts: Any, seats: Any, rows: Any, out: Any, masks: Any, /
) -> int: ...
def step_rows_into(
    state: Any,
    facts: Any,
    rows: Any,
    actions: Any,
    mask: Any,
    rewards: Any,
    done: Any,
    errors: Any,
    seats: Any = None,
    gains: Any = None,
    history: Any = None,
    /,
) -> int: ...
def scale_into(out: Any, divisors: Any, low: Any, high: Any, target: int, /) -> None: ...
def play_forced_into(
    state: Any, facts: Any, seats: Any, gains: Any, done: Any, history: Any = None, /
) -> int: ...
def play_waiting_into(
    state: Any,
    facts: Any,
    seats: Any,
    rows: Any,
    k: int,
    gains: Any,
    done: Any,
    out: Any,
    masks: Any,
    history: Any = None,
    scaled: bool = False,
    /,
) -> tuple[int, int]: ...
def information_state_into(
    state: Any, facts: Any, history: Any, players: int, seats: Any, out: Any, rows: Any = None, /
) -> int: ...
def redraw_into(
    state: Any,
    facts: Any,
    history: Any,
    slots: Any,
    seats: Any,
    seeds: Any,
    into: Any,
    errors: Any,
    /,
) -> int: ...

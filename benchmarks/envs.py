"""Environment steps per second through each API, side by side with OpenSpiel's dominoes.

Every workload plays random legal actions (seeded), whole matches one after
another, and counts *steps*: each action applied, chance outcomes included
where the API has them. In one run, alternating the workloads run by run:

* ``actions``: the integer action layer on the engine (``legal_actions``,
  ``move_of``, ``apply``);
* ``pettingzoo``: the AEC environment, ``env.last()`` (the observation dict
  of the agent to act) and ``env.step`` for every action;
* ``gymnasium``: the single-agent environment against random bots; a step
  is one ``env.step`` (the agent's action, then the bots' up to its next
  turn, so several actions of the match);
* ``floor``: a Python game that does nothing (28 chance steps and 28
  decisions a game) through the same loop: what the loop and OpenSpiel's
  C++ layer cost alone, so the most any Python game can reach;
* ``openspiel``: the ``american_sniff`` game through OpenSpiel's API, and
  ``team_dominoes`` OpenSpiel's own ``python_team_dominoes`` (4 players),
  both through one loop, call for call: ``is_terminal()``, then
  ``is_chance_node()``; at a chance node ``chance_outcomes()``, at a decision
  ``legal_actions()``; then ``apply_action()`` with an outcome or action
  picked by ``random.Random.randrange``. **One step is one** ``apply_action``
  **call**, a chance outcome (a dealt or drawn tile, a lot) or a player's
  action; the share of chance steps in each game is printed.
  ``openspiel+obs`` and ``team_dominoes+obs``: the same, with
  ``observation_tensor(current_player())`` read before each decision.

Both games are Python games behind OpenSpiel's C++ layer. Each game answers
the calls it implements in Python (``is_terminal``, ``chance_outcomes``, and
for ``american_sniff`` also ``is_chance_node``, ``legal_actions`` and
``observation_tensor``); the others go through the C++ layer and back
(``apply_action`` always, for both). The generator is Python's, for every
workload: numpy's costs a microsecond a call, which would only blur what is
measured.

The ratio printed is american_sniff's steps per second over
python_team_dominoes', through the OpenSpiel API (the issue's goal: at least
5). Rates are by the process's CPU time, the median of ``--runs`` runs.

    python benchmarks/envs.py                 # 3 runs of 2 s each
    python benchmarks/envs.py --players 4 --runs 5 --seconds 3
    python benchmarks/envs.py --quick         # a few seconds: every workload once
    python benchmarks/envs.py --only openspiel team_dominoes floor

It needs the ``rl`` and ``openspiel`` extras; a workload whose framework is
not installed is reported as skipped.
"""

from __future__ import annotations

import argparse
import importlib.util
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import american_sniff
from american_sniff import apply, new_match
from american_sniff.actions import legal_actions, move_of

#: A workload: plays whole matches for about ``seconds`` of CPU, after its
#: imports and set-up; returns the steps and the CPU seconds they took.
Workload = Callable[[int, float, int], tuple[int, float]]


def _actions(players: int, seconds: float, seed: int) -> tuple[int, float]:
    rng = random.Random(seed)
    steps = 0
    start = time.process_time()
    end = start + seconds
    while time.process_time() < end:
        state = new_match(players, seed=rng.getrandbits(64))
        while state.winner is None:
            actions = legal_actions(state)
            state = apply(state, move_of(state, actions[rng.randrange(len(actions))]))
            steps += 1
    return steps, time.process_time() - start


def _pettingzoo(players: int, seconds: float, seed: int) -> tuple[int, float]:
    import numpy as np  # noqa: PLC0415 (an extra)

    from american_sniff.envs.pettingzoo import AmericanSniffEnv  # noqa: PLC0415

    env = AmericanSniffEnv(players=players)
    pick = random.Random(seed).randrange
    steps = 0
    start = time.process_time()
    end = start + seconds
    match = seed
    while time.process_time() < end:
        env.reset(seed=match)
        match += 1
        while True:
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                break
            legal = np.flatnonzero(observation["action_mask"])
            env.step(int(legal[pick(len(legal))]))
            steps += 1
    return steps, time.process_time() - start


def _gymnasium(players: int, seconds: float, seed: int) -> tuple[int, float]:
    import numpy as np  # noqa: PLC0415 (an extra)

    from american_sniff.envs.gymnasium import AmericanSniffGymEnv  # noqa: PLC0415

    env = AmericanSniffGymEnv(players=players, opponent="random")
    pick = random.Random(seed).randrange
    steps = 0
    start = time.process_time()
    end = start + seconds
    match = seed
    while time.process_time() < end:
        observation, _ = env.reset(seed=match)
        match += 1
        terminated = False
        while not terminated:
            legal = np.flatnonzero(observation["action_mask"])
            observation, _, terminated, _, _ = env.step(int(legal[pick(len(legal))]))
            steps += 1
    return steps, time.process_time() - start


def _floor_game() -> Any:
    """A Python game that does nothing: 28 chance steps, then 28 decisions, of 3 choices each.

    It answers ``is_chance_node`` and ``legal_actions`` in Python as
    ``american_sniff`` does; its rate through the loop is what the loop and
    OpenSpiel's C++ layer cost alone, the most any Python game could reach.
    """
    import pyspiel  # noqa: PLC0415 (an extra)

    if "floor_game" in _FLOOR:
        return _FLOOR["floor_game"]
    game_type = pyspiel.GameType(
        short_name="benchmark_floor",
        long_name="A game that does nothing (benchmarks/envs.py)",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=2,
        min_num_players=2,
        provides_information_state_string=False,
        provides_information_state_tensor=False,
        provides_observation_string=False,
        provides_observation_tensor=False,
        parameter_specification={},
    )
    info = pyspiel.GameInfo(
        num_distinct_actions=3,
        max_chance_outcomes=3,
        num_players=2,
        min_utility=0.0,
        max_utility=0.0,
        max_game_length=56,
    )
    outcomes = [(0, 1 / 3), (1, 1 / 3), (2, 1 / 3)]

    class State(pyspiel.State):  # type: ignore[misc]
        def __init__(self, game: Any) -> None:
            super().__init__(game)
            self.steps = 0
            self.player = -1

        def current_player(self) -> int:
            return self.player

        def is_chance_node(self) -> bool:
            return self.player == -1

        def is_terminal(self) -> bool:
            return self.player == -4

        def legal_actions(self, player: int | None = None) -> list[int]:
            return [0, 1, 2]

        def _legal_actions(self, player: int) -> list[int]:
            return [0, 1, 2]

        def chance_outcomes(self) -> list[tuple[int, float]]:
            return outcomes.copy()

        def _apply_action(self, action: int) -> None:
            self.steps += 1
            self.player = -4 if self.steps == 56 else -1 if self.steps < 28 else self.steps % 2

        def returns(self) -> list[float]:
            return [0.0, 0.0]

        def _action_to_string(self, player: int, action: int) -> str:
            return str(action)

        def __str__(self) -> str:
            return str(self.steps)

    class Game(pyspiel.Game):  # type: ignore[misc]
        def __init__(self, params: Any = None) -> None:
            super().__init__(game_type, info, params or {})

        def new_initial_state(self) -> State:
            return State(self)

    pyspiel.register_game(game_type, Game)
    _FLOOR["floor_game"] = Game
    return Game


_FLOOR: dict[str, Any] = {}


def _spiel(name: str, params: dict[str, Any], observe: bool) -> Workload:
    def run(players: int, seconds: float, seed: int) -> tuple[int, float]:
        import pyspiel  # noqa: PLC0415 (an extra)

        if name == "benchmark_floor":
            _floor_game()
            game = pyspiel.load_game(name)
        elif name == "american_sniff":
            import american_sniff.envs.openspiel  # noqa: F401, PLC0415 (registers the game)

            game = pyspiel.load_game(name, {**params, "players": players})
        else:
            from open_spiel.python.games import team_dominoes  # noqa: F401, PLC0415 (registers it)

            game = pyspiel.load_game(name, params)
        # The one loop both games run: the same calls, in the same order.
        pick = random.Random(seed).randrange
        steps = chance = 0
        start = time.process_time()
        end = start + seconds
        while time.process_time() < end:
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    outcomes = state.chance_outcomes()
                    state.apply_action(outcomes[pick(len(outcomes))][0])
                    chance += 1
                else:
                    if observe:
                        state.observation_tensor(state.current_player())
                    actions = state.legal_actions()
                    state.apply_action(actions[pick(len(actions))])
                steps += 1
        _CHANCE_SHARE[name] = chance / steps
        return steps, time.process_time() - start

    return run


#: The share of chance steps among each OpenSpiel game's steps, in the last run.
_CHANCE_SHARE: dict[str, float] = {}


#: Each workload, and the modules it needs.
WORKLOADS: dict[str, tuple[Workload, tuple[str, ...]]] = {
    "actions": (_actions, ()),
    "pettingzoo": (_pettingzoo, ("pettingzoo", "gymnasium", "numpy")),
    "gymnasium": (_gymnasium, ("gymnasium", "numpy")),
    "openspiel": (_spiel("american_sniff", {}, False), ("pyspiel", "numpy")),
    "openspiel+obs": (_spiel("american_sniff", {}, True), ("pyspiel", "numpy")),
    "team_dominoes": (_spiel("python_team_dominoes", {}, False), ("pyspiel", "numpy")),
    "team_dominoes+obs": (_spiel("python_team_dominoes", {}, True), ("pyspiel", "numpy")),
    "floor": (_spiel("benchmark_floor", {}, False), ("pyspiel",)),
}


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print a table; 0 unless a workload fails."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=4, choices=(2, 3, 4))
    parser.add_argument("--seconds", type=float, default=2.0, help="CPU seconds per run")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--quick", action="store_true", help="one short run of each (CI)")
    parser.add_argument(
        "--only",
        nargs="+",
        choices=list(WORKLOADS),
        metavar="WORKLOAD",
        help=f"run only these workloads (of {', '.join(WORKLOADS)})",
    )
    args = parser.parse_args(argv)
    if args.quick:
        args.seconds, args.runs = 0.3, 1
    available = {
        name: all(importlib.util.find_spec(m) is not None for m in needs)
        for name, (_, needs) in WORKLOADS.items()
        if args.only is None or name in args.only
    }
    rates: dict[str, list[float]] = {name: [] for name in available if available[name]}
    for run in range(args.runs):
        names = list(rates)
        if run % 2:
            names.reverse()
        for name in names:
            workload = WORKLOADS[name][0]
            steps, seconds = workload(args.players, args.seconds, args.seed + run)
            rates[name].append(steps / seconds)
    build = "compiled" if american_sniff.COMPILED else "pure Python"
    print(
        f"american-sniff {american_sniff.__version__} ({build}), Python "
        f"{platform.python_version()}, {args.players} players (team_dominoes: 4), "
        f"{args.runs} runs of {args.seconds} CPU s"
    )
    print(f"{'workload':<20}{'steps/s':>12}")
    median = {name: statistics.median(values) for name, values in rates.items()}
    for name in available:
        shown = f"{median[name]:12,.0f}" if name in median else f"{'skipped':>12}"
        print(f"{name:<20}{shown}")
    for ours, theirs in (("openspiel", "team_dominoes"), ("openspiel+obs", "team_dominoes+obs")):
        if ours in median and theirs in median:
            print(f"ratio {ours} / {theirs}: {median[ours] / median[theirs]:.2f}x")
    if "floor" in median and "team_dominoes" in median:
        print(
            f"ratio floor / team_dominoes: {median['floor'] / median['team_dominoes']:.2f}x "
            "(the most a Python game can reach through this loop)"
        )
    for game, share in _CHANCE_SHARE.items():
        print(f"chance steps among {game}'s: {share:.0%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

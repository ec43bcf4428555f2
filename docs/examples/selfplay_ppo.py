"""Self-play PPO on the vector environment, against a league of frozen past policies and greedy.

The learner, a small PyTorch network (a shared MLP body, a policy head and a
value head), plays seat 0 of every slot of an
:class:`~american_sniff.envs.vector.AmericanSniffVectorEnv`; the other seats
are played by a member of a *league*: frozen copies of the learner taken
every ``--refresh`` updates (the ``--league`` newest are kept), and the
greedy bot as a batched policy
(:func:`american_sniff.envs.features.greedy_policy`). Each time a copy
joins, the opponent is drawn again: greedy with probability ``--greedy``,
else the newest copy half the time, else any copy. The opponent is a batched
policy, asked once for every slot waiting on it
(``BatchedMatches.play_policy``). Everyone sees the observations as the
library scales them (``scaled=True``, :func:`american_sniff.observation.scaled`).

**The policy head** (``--head``): ``"actions"`` (the default) scores each
legal action with a small MLP from the body's output and the action's
features, computed from the observation by the rules
(:func:`american_sniff.envs.features.action_features`: the points it scores
now, the tile, the most the next seat can score in reply, ...); ``"plain"``
is one logit an action from the body alone, as in the first version.

**The reward** (``--reward``), divided by 100: ``"zero-sum"`` (the default)
is the change of the learner's side's score less the mean of the other
sides', plus ``--win`` times 100 for a match won and minus that for one lost;
``"points"`` is the change of the learner's side's score alone. PPO with a
clipped objective, generalised advantage estimation, and Adam. At the end the
learner, choosing its most likely legal action, is evaluated against the
random and the greedy bots over duplicate deals with seats swapped
(:func:`american_sniff.evaluation.evaluate`), as is its untrained start
before training. The training time is counted on the clock (``--seconds``)
and in CPU seconds (``--cpu``, ``time.process_time``), the learning curve's
evaluations (``--curve``) left out.

Needs the ``learn`` extra (PyTorch, CPU build, pinned; docs/ai.md says how to
install it). It runs on the C batch kernel where it is built (the line
``batch kernel:`` says which), else on numpy. Run:

    python docs/examples/selfplay_ppo.py --cpu 300 --deals 200 --curve 200
    python docs/examples/selfplay_ppo.py --steps 65536 --deals 50 --check 0.1   # what CI runs

With ``--check MARGIN`` the run fails (exit status 1) unless the trained
policy's win rate against ``greedy`` is at least its untrained start's plus
``MARGIN``, and the lower end of its 95% interval is above the even rate.
"""

from __future__ import annotations

import argparse
import copy
import os
import sys
import time
from typing import Any

# The products are small and the machine shared: one thread each for BLAS and
# torch. Set before numpy and torch load.
for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

import numpy as np  # noqa: E402
import torch  # noqa: E402
from torch import nn  # noqa: E402

from american_sniff import batch  # noqa: E402
from american_sniff.envs.features import (  # noqa: E402
    FEATURE_NAMES,
    action_features,
    greedy_policy,
)
from american_sniff.envs.vector import AmericanSniffVectorEnv  # noqa: E402
from american_sniff.evaluation import Evaluation, evaluate  # noqa: E402
from american_sniff.observation import OBSERVATION_SIZE  # noqa: E402
from american_sniff.rules import side_count  # noqa: E402

ACTIONS = 450
#: The policy heads of :class:`Network`.
HEADS = ("actions", "plain")
#: The rewards: the learner's own points, or its side's points less the best other side's.
REWARDS = ("zero-sum", "points")
#: The bot ``--check`` measures the gain against.
CHECKED = "greedy"


class Network(nn.Module):
    """The learner: a shared body, then the actions' logits and the state's value.

    With ``head="plain"`` the logits are a linear layer of the body's output,
    one a action. With ``head="actions"`` (the default) each legal action is
    scored by a small MLP from the action's features
    (:func:`american_sniff.envs.features.action_features`: what it scores now,
    the tile, what the next seat can score in reply, ...) and the body's
    output: the network reads the observations as scaled, as every policy here does.
    """

    def __init__(self, hidden: int, head: str = "actions") -> None:
        super().__init__()
        if head not in HEADS:
            raise ValueError(f"head must be one of {HEADS}, got {head!r}")
        self.head = head
        self.body = nn.Sequential(
            nn.Linear(OBSERVATION_SIZE, hidden),
            nn.Tanh(),
            nn.Linear(hidden, hidden),
            nn.Tanh(),
        )
        self.logits = nn.Linear(hidden, ACTIONS)
        self.score = nn.Sequential(
            nn.Linear(len(FEATURE_NAMES) + hidden, 64), nn.Tanh(), nn.Linear(64, 1)
        )
        self.value = nn.Linear(hidden, 1)
        with torch.no_grad():  # a near-uniform start, as PPO's usual small last layer gives
            self.logits.weight.mul_(0.01)
            self.score[2].weight.mul_(0.01)

    def forward(self, observations: torch.Tensor, masks: torch.Tensor) -> Any:
        """The masked logits (illegal actions at -1e9) and the values of a batch."""
        hidden = self.body(observations)
        if self.head == "plain":
            logits = self.logits(hidden).masked_fill(~masks, -1e9)
            return logits, self.value(hidden).squeeze(-1)
        rows, actions, features = action_features(observations.numpy(), masks.numpy())
        rows_t, actions_t = torch.as_tensor(rows), torch.as_tensor(actions)
        scores = self.score(torch.cat([torch.as_tensor(features), hidden[rows_t]], dim=1))
        logits = torch.full((len(observations), ACTIONS), -1e9).index_put(
            (rows_t, actions_t), scores.squeeze(1)
        )
        return logits, self.value(hidden).squeeze(-1)


class Frozen:
    """A copy of the learner as a batched policy: ``(observations, masks) -> actions``.

    ``sample`` draws each action from the policy's distribution (as an
    opponent in the league); otherwise it takes the most likely legal one (as
    evaluated). A row with no legal action gets 0 (the environment ignores it).
    """

    def __init__(self, network: Network, *, sample: bool, seed: int) -> None:
        self.network = copy.deepcopy(network).eval()
        self.sample = sample
        self.generator = torch.Generator().manual_seed(seed)

    def __call__(self, observations: Any, masks: Any) -> Any:
        """One action a row."""
        masks = np.asarray(masks, bool)
        with torch.no_grad():
            logits, _ = self.network(
                torch.as_tensor(np.asarray(observations, np.float32)),
                torch.as_tensor(masks | ~masks.any(axis=1, keepdims=True)),
            )
            if not self.sample:
                return logits.argmax(dim=1).numpy()
            chosen = torch.multinomial(torch.softmax(logits, dim=1), 1, generator=self.generator)
            return chosen.squeeze(1).numpy()


def ppo_update(
    network: Network, optimizer: torch.optim.Optimizer, rollout: dict[str, Any], run: Any
) -> None:
    """``run.epochs`` passes of PPO's clipped objective over the valid steps of a rollout."""
    keep = rollout["valid"]
    observations = torch.as_tensor(rollout["observations"][keep])
    masks = torch.as_tensor(rollout["masks"][keep])
    actions = torch.as_tensor(rollout["actions"][keep])
    old_log = torch.as_tensor(rollout["log_probs"][keep])
    advantages = torch.as_tensor(rollout["advantages"][keep])
    returns = torch.as_tensor(rollout["returns"][keep])
    advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
    count = len(actions)
    for _ in range(run.epochs):
        order = torch.randperm(count)
        for start in range(0, count, run.minibatch):
            pick = order[start : start + run.minibatch]
            logits, values = network(observations[pick], masks[pick])
            every = torch.log_softmax(logits, dim=1)
            log_probs = every.gather(1, actions[pick].unsqueeze(1)).squeeze(1)
            ratio = torch.exp(log_probs - old_log[pick])
            gain = advantages[pick]
            policy_loss = -torch.min(
                ratio * gain, torch.clamp(ratio, 1 - run.clip, 1 + run.clip) * gain
            ).mean()
            value_loss = ((values - returns[pick]) ** 2).mean()
            entropy = -(every.exp() * every).sum(dim=1).mean()
            loss = policy_loss + 0.5 * value_loss - run.entropy * entropy
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(network.parameters(), 0.5)
            optimizer.step()


def margins(env: AmericanSniffVectorEnv) -> Any:
    """The learner's side's score less the mean of the other sides', in each slot (seat 0)."""
    sides = side_count(env.players)
    scores = env.matches.scores[:, :sides].astype(np.float64)
    return scores[:, 0] - scores[:, 1:].mean(axis=1)


def collect(
    network: Network,
    env: AmericanSniffVectorEnv,
    start: tuple[Any, Any, Any],
    generator: torch.Generator,
    run: Any,
) -> tuple[dict[str, Any], tuple[Any, Any, Any]]:
    """``run.horizon`` steps of every slot, with advantages; and where the next rollout starts.

    ``start`` is the observations, the masks, and which slots' episodes have
    just ended (the environment ignores their next action and resets them).
    """
    observations, masks, ended = start
    n, horizon = env.num_envs, run.horizon
    rollout: dict[str, Any] = {
        "observations": np.zeros((horizon, n, OBSERVATION_SIZE), np.float32),
        "masks": np.zeros((horizon, n, ACTIONS), bool),
        "actions": np.zeros((horizon, n), np.int64),
        "log_probs": np.zeros((horizon, n), np.float32),
        "values": np.zeros((horizon + 1, n), np.float32),
        "rewards": np.zeros((horizon, n), np.float32),
        "ends": np.zeros((horizon, n), bool),
        "valid": np.zeros((horizon, n), bool),
    }
    for t in range(horizon):
        # A slot whose episode has just ended is reset by this step, which ignores its
        # action: that step is left out of the loss (and its mask, empty after a match's
        # end, is filled so that the network's distribution stays defined).
        rollout["valid"][t] = ~ended & masks.any(axis=1)
        legal = masks | ~rollout["valid"][t][:, None]
        with torch.no_grad():
            logits, values = network(torch.as_tensor(observations), torch.as_tensor(legal))
            every = torch.log_softmax(logits, dim=1)
            actions = torch.multinomial(every.exp(), 1, generator=generator)
            rollout["log_probs"][t] = every.gather(1, actions).squeeze(1).numpy()
            actions = actions.squeeze(1)
        rollout["observations"][t] = observations
        rollout["masks"][t] = legal
        rollout["actions"][t] = actions.numpy()
        rollout["values"][t] = values.numpy()
        before = margins(env)
        observations, rewards, terminated, truncated, infos = env.step(actions.numpy())
        masks = infos["action_mask"]
        if run.reward == "zero-sum":
            # The margin's change (a slot's final scores stay until its reset, next
            # step), and +-run.win for the match won or lost.
            won = np.where(env.matches.winner == 0, run.win, -run.win)
            rewards = margins(env) - before + np.where(terminated, won * 100.0, 0.0)
        # (A step that resets a slot gets nothing: its margin jumps to the new match's.)
        rollout["rewards"][t] = np.where(rollout["valid"][t], rewards, 0.0) / 100.0
        ended = terminated | truncated
        rollout["ends"][t] = ended
    with torch.no_grad():
        _, last = network(
            torch.as_tensor(observations),
            torch.as_tensor(masks | ~masks.any(axis=1, keepdims=True)),
        )
    rollout["values"][horizon] = last.numpy()
    advantages = np.zeros((horizon, n), np.float32)
    running = np.zeros(n, np.float32)
    for t in reversed(range(horizon)):
        carry = ~rollout["ends"][t]
        delta = (
            rollout["rewards"][t]
            + run.gamma * rollout["values"][t + 1] * carry
            - rollout["values"][t]
        )
        running = delta + run.gamma * run.lam * carry * running
        advantages[t] = running
    rollout["advantages"] = advantages.reshape(-1)
    rollout["returns"] = (advantages + rollout["values"][:horizon]).reshape(-1)
    for key in ("observations", "masks"):
        rollout[key] = rollout[key].reshape(horizon * n, -1)
    for key in ("actions", "log_probs", "valid"):
        rollout[key] = rollout[key].reshape(-1)
    return rollout, (observations, masks, ended)


def train(network: Network, run: Any) -> tuple[int, int]:
    """Self-play PPO until ``run.seconds``, ``run.cpu`` or ``run.steps``; (updates, learner steps).

    Sets ``run.training`` and ``run.cpu_used``: the wall-clock and the CPU
    seconds of training (the learning curve's evaluations left out).
    """
    optimizer = torch.optim.Adam(network.parameters(), lr=run.rate)
    generator = np.random.default_rng(run.seed)
    sampler = torch.Generator().manual_seed(run.seed)
    league = [Frozen(network, sample=True, seed=run.seed)]
    env = AmericanSniffVectorEnv(
        run.envs, run.players, opponent=league[0], reward="points", scaled=True
    )
    observations, infos = env.reset(seed=run.seed)
    state = (observations, infos["action_mask"], np.zeros(run.envs, bool))
    updates = steps = 0
    training = cpu = 0.0  # seconds spent training (the learning curve's evaluations left out)
    while training < run.seconds and cpu < run.cpu and (run.steps is None or steps < run.steps):
        began, began_cpu = time.monotonic(), time.process_time()
        rollout, state = collect(network, env, state, sampler, run)
        steps += run.horizon * run.envs
        ppo_update(network, optimizer, rollout, run)
        updates += 1
        training += time.monotonic() - began
        cpu += time.process_time() - began_cpu
        if run.curve and updates % run.curve == 0:
            policy = Frozen(network, sample=False, seed=run.seed)
            result = evaluate(
                policy,
                "greedy",
                players=run.players,
                deals=run.curve_deals,
                seed=run.seed + 2,
                scaled=True,
            )
            print(
                f"curve: {steps} steps, {training:.0f}s, {cpu:.0f} CPU s: "
                f"against greedy {result.summary()}",
                flush=True,
            )
        if updates % run.refresh == 0:
            league.append(Frozen(network, sample=True, seed=run.seed + updates))
            del league[: -run.league]
            draw = generator.random()
            if draw < run.greedy:
                env.set_opponent(greedy_policy)
            elif draw < run.greedy + (1 - run.greedy) / 2:
                env.set_opponent(league[-1])
            else:
                env.set_opponent(league[generator.integers(len(league))])
    run.training, run.cpu_used = training, cpu
    return updates, steps


def report(label: str, network: Network, run: Any) -> dict[str, Evaluation]:
    """The policy (its most likely legal action) against the random and greedy bots."""
    policy = Frozen(network, sample=False, seed=run.seed)
    results = {}
    for bot in ("random", "greedy"):
        results[bot] = evaluate(
            policy, bot, players=run.players, deals=run.deals, seed=run.seed + 1, scaled=True
        )
        print(f"{label}, against {bot}: {results[bot].summary()}", flush=True)
    return results


def verdict(before: Evaluation, after: Evaluation, margin: float) -> str | None:
    """Why ``--check`` fails, or None: the rate must gain ``margin``, its interval clear even."""
    if after.win_rate < before.win_rate + margin or after.low <= after.even:
        return (
            f"CHECK FAILED: against {CHECKED} {after.win_rate:.1%} "
            f"(lower end {after.low:.1%}), untrained {before.win_rate:.1%}, margin {margin:.1%}"
        )
    return None


def main(argv: list[str] | None = None) -> int:
    """Train, print the evaluations before and after, and apply ``--check``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--seconds", type=float, default=None, help="training time (wall; 60 without --steps)"
    )
    parser.add_argument("--cpu", type=float, default=float("inf"), help="training CPU seconds")
    parser.add_argument("--steps", type=int, default=None, help="stop after so many learner steps")
    parser.add_argument("--head", default="actions", choices=HEADS, help="the policy's head")
    parser.add_argument("--reward", default="zero-sum", choices=REWARDS)
    parser.add_argument("--win", type=float, default=1.0, help="zero-sum: a match won, lost")
    parser.add_argument(
        "--greedy", type=float, default=0.25, help="share of league draws that are greedy"
    )
    parser.add_argument("--save", default=None, help="write the trained weights here")
    parser.add_argument("--envs", type=int, default=128, help="matches played at once")
    parser.add_argument("--players", type=int, default=2, choices=(2, 3, 4))
    parser.add_argument("--horizon", type=int, default=16, help="steps a slot per update")
    parser.add_argument("--hidden", type=int, default=128, help="the MLP's width")
    parser.add_argument("--rate", type=float, default=1e-3, help="Adam's learning rate")
    parser.add_argument("--epochs", type=int, default=3, help="passes over each rollout")
    parser.add_argument("--minibatch", type=int, default=1024)
    parser.add_argument("--gamma", type=float, default=0.99)
    parser.add_argument("--lam", type=float, default=0.95, help="GAE's lambda")
    parser.add_argument("--clip", type=float, default=0.2)
    parser.add_argument("--entropy", type=float, default=0.01, help="entropy bonus")
    parser.add_argument("--refresh", type=int, default=5, help="updates between league copies")
    parser.add_argument("--league", type=int, default=8, help="league copies kept")
    parser.add_argument("--deals", type=int, default=100, help="evaluation deals")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--curve", type=int, default=0, help="updates between curve points")
    parser.add_argument("--curve-deals", type=int, default=50, help="deals of a curve point")
    parser.add_argument("--threads", type=int, default=1, help="torch's threads")
    parser.add_argument(
        "--check", type=float, default=None, metavar="MARGIN", help="fail unless it improved"
    )
    run = parser.parse_args(argv)
    if run.seconds is None:
        run.seconds = 60.0 if run.steps is None and run.cpu == float("inf") else float("inf")
    if run.seconds <= 0 or (run.steps is not None and run.steps < 1) or run.deals < 1:
        parser.error("--seconds, --steps and --deals must be positive")
    torch.set_num_threads(run.threads)
    torch.manual_seed(run.seed)
    network = Network(run.hidden, run.head)
    print(f"batch kernel: {batch.BACKEND}", flush=True)
    before = report("before", network, run)
    updates, steps = train(network, run)
    elapsed = run.training
    print(
        f"trained: {updates} updates, {steps} learner steps in {elapsed:.1f}s, "
        f"{run.cpu_used:.1f} CPU s ({steps / elapsed:,.0f} learner steps a second)",
        flush=True,
    )
    if run.save:
        torch.save(network.state_dict(), run.save)
    after = report("after", network, run)
    if run.check is not None:
        failure = verdict(before[CHECKED], after[CHECKED], run.check)
        if failure is not None:
            print(failure, file=sys.stderr)
            return 1
        print(
            f"check passed: {before[CHECKED].win_rate:.1%} -> "
            f"{after[CHECKED].win_rate:.1%} against {CHECKED}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())

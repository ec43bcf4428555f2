"""The examples that learn (docs/examples/selfplay_ppo.py, maskable_ppo.py): the learn extra."""

from __future__ import annotations

import argparse
import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

pytest.importorskip("gymnasium")
torch = pytest.importorskip("torch")

import numpy as np  # noqa: E402 (after the extras' skips)

from american_sniff.envs.vector import AmericanSniffVectorEnv  # noqa: E402
from american_sniff.evaluation import evaluate  # noqa: E402

EXAMPLES = Path(__file__).parent.parent / "docs" / "examples"


def _load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _run(**changes: object) -> argparse.Namespace:
    run = argparse.Namespace(
        horizon=12,
        gamma=0.99,
        lam=0.95,
        epochs=2,
        minibatch=64,
        clip=0.2,
        entropy=0.01,
        reward="zero-sum",
        win=1.0,
    )
    for key, value in changes.items():
        setattr(run, key, value)
    return run


def test_a_rollout_leaves_out_the_steps_the_environment_ignores() -> None:
    """Steps of slots being reset are invalid; each valid step's action is legal; returns add up."""
    example = _load("selfplay_ppo")
    torch.manual_seed(0)
    network = example.Network(16)
    opponent = example.Frozen(network, sample=True, seed=1)
    # Episodes cut short after 5 steps, so that some end (and are reset) within the rollout.
    env = AmericanSniffVectorEnv(8, 2, opponent=opponent, reward="points", scaled=True, max_steps=5)
    observations, infos = env.reset(seed=3)
    run = _run(horizon=20)
    rollout, _ = example.collect(
        network,
        env,
        (observations, infos["action_mask"], np.zeros(len(observations), bool)),
        torch.Generator(),
        run,
    )
    valid, masks, actions = rollout["valid"], rollout["masks"], rollout["actions"]
    ends = rollout["ends"]
    assert ends.any()
    # The step after a slot's end is ignored by the environment, and left out here.
    after_end = np.zeros_like(ends)
    after_end[1:] = ends[:-1]
    assert not (valid & after_end.reshape(-1)).any()
    assert valid[~after_end.reshape(-1)].all()
    assert masks[np.arange(len(actions)), actions][valid].all()
    assert np.isfinite(rollout["advantages"]).all()
    np.testing.assert_allclose(
        rollout["returns"], rollout["advantages"] + rollout["values"][:-1].reshape(-1), rtol=1e-6
    )


def test_an_update_moves_the_policy_and_a_frozen_copy_does_not_follow() -> None:
    """ppo_update changes the network; a Frozen copy keeps the old weights and plays legally."""
    example = _load("selfplay_ppo")
    torch.manual_seed(0)
    network = example.Network(16)
    frozen = example.Frozen(network, sample=False, seed=0)
    env = AmericanSniffVectorEnv(4, 2, opponent=frozen, reward="points", scaled=True)
    observations, infos = env.reset(seed=5)
    rollout, _ = example.collect(
        network,
        env,
        (observations, infos["action_mask"], np.zeros(len(observations), bool)),
        torch.Generator(),
        _run(),
    )
    before = [p.detach().clone() for p in network.parameters()]
    optimizer = torch.optim.Adam(network.parameters(), lr=1e-2)
    example.ppo_update(network, optimizer, rollout, _run())
    assert any(not torch.equal(a, b) for a, b in zip(before, network.parameters(), strict=True))
    kept = list(frozen.network.parameters())
    assert all(torch.equal(a, b) for a, b in zip(before, kept, strict=True))
    masks = np.zeros((3, 450), bool)
    masks[0, 7] = masks[1, 448] = masks[2, [30, 31]] = True
    chosen = frozen(np.zeros((3, 375), np.float32), masks)
    assert masks[np.arange(3), chosen].all()


@pytest.mark.parametrize("head", ["actions", "plain"])
def test_the_heads_give_logits_to_the_legal_actions_alone(head: str) -> None:
    """Both heads: finite logits on the legal actions, -1e9 elsewhere; an unknown head raises."""
    example = _load("selfplay_ppo")
    torch.manual_seed(0)
    network = example.Network(16, head)
    env = AmericanSniffVectorEnv(6, 2, opponent="random", scaled=True)
    observations, infos = env.reset(seed=4)
    masks = infos["action_mask"]
    logits, values = network(torch.as_tensor(observations), torch.as_tensor(masks))
    assert logits.shape == (6, 450)
    assert values.shape == (6,)
    assert (logits[torch.as_tensor(masks)] > -1e8).all()
    assert (logits[~torch.as_tensor(masks)] == -1e9).all()
    with pytest.raises(ValueError, match="head must be"):
        example.Network(16, "linear")


def test_the_zero_sum_reward_counts_the_match_won_or_lost() -> None:
    """Zero-sum: a match's last step carries +-win (|r| >= 0.6); no other step, nor "points"."""
    example = _load("selfplay_ppo")
    torch.manual_seed(0)
    network = example.Network(16)
    env = AmericanSniffVectorEnv(8, 2, opponent=example.greedy_policy, scaled=True)
    observations, infos = env.reset(seed=9)
    rollout, _ = example.collect(
        network,
        env,
        (observations, infos["action_mask"], np.zeros(len(observations), bool)),
        torch.Generator().manual_seed(1),
        _run(horizon=150),
    )
    ends = rollout["ends"].reshape(-1)
    rewards = rollout["rewards"].reshape(-1)
    assert ends.sum() >= 4
    assert (np.abs(rewards[ends]) >= 0.6).all()
    assert (np.abs(rewards[~ends]) < 1).all()
    assert (rewards[~ends] < 0).any()  # the opponents' points count against the learner
    points = _run(horizon=150, reward="points")
    observations, infos = env.reset(seed=9)
    rollout, _ = example.collect(
        network,
        env,
        (observations, infos["action_mask"], np.zeros(len(observations), bool)),
        torch.Generator().manual_seed(1),
        points,
    )
    assert rollout["ends"].any()
    assert (np.abs(rollout["rewards"]) < 1).all()  # no bonus for the match


@pytest.mark.parametrize("name", ["selfplay_ppo", "maskable_ppo"])
def test_the_check_fails_a_policy_that_did_not_improve(name: str) -> None:
    """--check's verdict: a gain below the margin, or an interval reaching even, fails."""
    if name == "maskable_ppo":
        pytest.importorskip("sb3_contrib")
    verdict = _load(name).verdict
    weak = evaluate("random", "random", deals=20, seed=1)
    strong = evaluate("greedy", "random", deals=20, seed=1)
    assert verdict(weak, strong, 0.1) is None
    assert "CHECK FAILED" in verdict(strong, weak, 0.1)
    assert "CHECK FAILED" in verdict(weak, weak, 0.0)  # no margin, but not above even either
    assert "CHECK FAILED" in verdict(weak, strong, strong.win_rate - weak.win_rate + 0.01)


def test_the_selfplay_ppo_example_runs(capsys: pytest.CaptureFixture[str]) -> None:
    """selfplay_ppo.py trains for its steps, draws its curve, evaluates, and checks."""
    example = _load("selfplay_ppo")
    arguments = ["--steps", "128", "--envs", "4", "--horizon", "16", "--deals", "1"]
    code = example.main([*arguments, "--curve", "1", "--curve-deals", "1", "--check", "0.1"])
    captured = capsys.readouterr()
    assert "curve: 64 steps" in captured.out
    assert "trained: 2 updates, 128 learner steps" in captured.out
    assert "after, against greedy: a won" in captured.out
    assert ("check passed" in captured.out) == (code == 0)
    assert ("CHECK FAILED" in captured.err) == (code == 1)


def test_the_maskable_ppo_example_runs(capsys: pytest.CaptureFixture[str]) -> None:
    """maskable_ppo.py trains MaskablePPO through the adapter and evaluates it."""
    pytest.importorskip("sb3_contrib")
    example = _load("maskable_ppo")
    arguments = ["--steps", "64", "--envs", "2", "--rollout", "32", "--deals", "1"]
    assert example.main(arguments) == 0
    out = capsys.readouterr().out
    assert "after, against greedy: a won" in out
    assert "trained: 64 steps" in out

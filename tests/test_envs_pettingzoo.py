"""The PettingZoo AEC environment: american_sniff.envs.pettingzoo."""

from __future__ import annotations

import warnings
from typing import Any

import pytest

pytest.importorskip("pettingzoo")

import numpy as np
from pettingzoo.test import api_test, seed_test

from american_sniff import IllegalMove, new_match, view_for
from american_sniff.actions import NUM_ACTIONS, legal_actions
from american_sniff.envs.pettingzoo import AmericanSniffEnv, action_of_input, encoded
from american_sniff.observation import encode, scaled

# What PettingZoo's api_test says of any environment it does not know by name
# whose observations are dicts (with an action mask) and whose finished agents
# have no legal action; nothing else may be warned.
_EXPECTED_WARNINGS = (
    "Observation is not a NumPy array",
    "Observation space for each agent probably should be",
    "Action mask numpy array is all zeros",
)


def _checked(run: Any) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        run()
    unexpected = [
        str(w.message) for w in caught if not str(w.message).startswith(_EXPECTED_WARNINGS)
    ]
    assert unexpected == []


@pytest.mark.parametrize("players", [2, 3, 4])
def test_pettingzoo_api_test(players: int) -> None:
    """PettingZoo's own API test passes for 2, 3 and 4 players."""
    _checked(lambda: api_test(AmericanSniffEnv(players=players), num_cycles=300))


@pytest.mark.parametrize("players", [2, 3, 4])
def test_pettingzoo_seed_test(players: int) -> None:
    """PettingZoo's own seed test passes: the same seed, the same episode."""
    _checked(lambda: seed_test(lambda: AmericanSniffEnv(players=players), num_cycles=100))


def _play(env: AmericanSniffEnv, seed: int) -> dict[str, float]:
    """A whole episode of random legal actions; each agent's total reward."""
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        observation, reward, terminated, truncated, _ = env.last()
        totals[agent] += reward
        if terminated or truncated:
            env.step(None)
            continue
        assert observation is not None
        legal = np.flatnonzero(observation["action_mask"])
        env.step(int(rng.choice(legal)))
    return totals


def test_the_episode_is_the_seeded_match() -> None:
    """reset(seed=s) plays new_match(players, seed=s); the mask is the legal actions."""
    env = AmericanSniffEnv(players=3)
    env.reset(seed=12)
    state = env.state_of_match
    assert state == new_match(3, seed=12)
    observation = env.observe(env.agent_selection)
    assert observation is not None
    assert tuple(np.flatnonzero(observation["action_mask"])) == legal_actions(state)
    other = env.observe(env.possible_agents[(state.turn + 1) % 3])
    assert other is not None
    assert not other["action_mask"].any()


def test_partners_share_the_outcome() -> None:
    """With 4 players, partners get the same reward: +1 for the winners, -1 for the others."""
    env = AmericanSniffEnv(players=4)
    totals = _play(env, 5)
    state = env.state_of_match
    assert state is not None
    assert state.winner is not None
    for seat, agent in enumerate(env.possible_agents):
        assert totals[agent] == (1.0 if seat % 2 == state.winner else -1.0)


def test_points_rewards_add_up_to_the_scores() -> None:
    """With reward="points" an agent's rewards add up to its side's final score."""
    env = AmericanSniffEnv(players=2, reward="points")
    totals = _play(env, 8)
    state = env.state_of_match
    assert state is not None
    assert [totals[a] for a in env.possible_agents] == [float(s) for s in state.scores]
    assert max(state.scores) >= state.target


def test_an_illegal_action_loses_or_raises() -> None:
    """An illegal action ends the episode (-1) by default, or raises with illegal_action="raise"."""
    env = AmericanSniffEnv(players=2)
    env.reset(seed=1)
    agent = env.agent_selection
    bad = next(a for a in range(NUM_ACTIONS) if a not in legal_actions(env.state_of_match))  # type: ignore[arg-type]
    env.step(bad)
    assert all(env.terminations.values())
    assert env.rewards[agent] == -1.0
    assert env.infos[agent] == {"illegal_action": True}
    strict = AmericanSniffEnv(players=2, illegal_action="raise")
    strict.reset(seed=1)
    before = strict.state_of_match
    with pytest.raises(IllegalMove, match="is not legal"):
        strict.step(bad)
    assert strict.state_of_match is before
    for junk in (-1, NUM_ACTIONS, 2.5, "3", None, True):
        with pytest.raises(ValueError, match="an action is an integer from 0 to 449"):
            strict.step(junk)  # type: ignore[arg-type]


def test_actions_may_be_numpy_integers() -> None:
    """Numpy integers and 0-d arrays are actions too."""
    assert action_of_input(np.int64(7)) == 7
    assert action_of_input(np.array(449)) == 449


def test_truncation_after_max_steps() -> None:
    """max_steps truncates every agent."""
    env = AmericanSniffEnv(players=2, max_steps=3)
    env.reset(seed=2)
    for _ in range(3):
        observation, *_ = env.last()
        assert observation is not None
        env.step(int(np.flatnonzero(observation["action_mask"])[0]))
    assert all(env.truncations.values())
    assert not any(env.terminations.values())


def test_render_shows_the_table() -> None:
    """render() draws the table with the text renderer, and the scores."""
    env = AmericanSniffEnv(players=2, render_mode="ansi")
    env.reset(seed=3)
    observation, *_ = env.last()
    assert observation is not None
    env.step(int(np.flatnonzero(observation["action_mask"])[0]))
    text = env.render()
    assert text is not None
    assert "End sum" in text
    assert "scores" in text
    assert AmericanSniffEnv(players=2).render() is None


def test_bad_options_are_refused() -> None:
    """Options out of range get a clear ValueError."""
    with pytest.raises(ValueError, match="players must be 2, 3 or 4"):
        AmericanSniffEnv(players=5)
    with pytest.raises(ValueError, match="reward must be one of"):
        AmericanSniffEnv(reward="score")
    with pytest.raises(ValueError, match="illegal_action must be one of"):
        AmericanSniffEnv(illegal_action="ignore")
    with pytest.raises(ValueError, match="max_steps must be"):
        AmericanSniffEnv(max_steps=0)
    with pytest.raises(ValueError, match="render_mode must be one of"):
        AmericanSniffEnv(render_mode="rgb_array")
    with pytest.raises(ValueError, match="a seed is an integer"):
        AmericanSniffEnv().reset(seed="7")  # type: ignore[arg-type]


@pytest.mark.sweep
@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_observation_is_the_encoded_view(players: int) -> None:
    """At every step of whole episodes, each agent's observation is encode(view_for) of its seat.

    The environment keeps the round's facts as actions happen; the result must
    be the view's encoding, entry for entry, and the mask the legal actions.
    """
    env = AmericanSniffEnv(players=players)
    rng = np.random.default_rng(players)
    for episode in range(2):
        env.reset(seed=40 + episode)
        while True:
            state = env.state_of_match
            assert state is not None
            for seat, agent in enumerate(env.possible_agents):
                observation = env.observe(agent)
                assert observation is not None
                expected = np.array(encode(view_for(state, seat)), dtype=np.float32)
                assert observation["observation"].dtype == np.float32
                np.testing.assert_array_equal(observation["observation"], expected)
                np.testing.assert_array_equal(
                    observation["observation"], encoded(state, seat)["observation"]
                )
                legal = legal_actions(state) if state.turn == seat and not state.is_over else ()
                assert list(np.flatnonzero(observation["action_mask"])) == list(legal)
            _, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                break
            mask = env.observe(env.agent_selection)["action_mask"]  # type: ignore[index]
            choices = np.flatnonzero(mask)
            env.step(int(choices[rng.integers(len(choices))]))


def test_scaled_observations() -> None:
    """With scaled=True every agent's observation is float32(scaled(encode(view_for)))."""
    env = AmericanSniffEnv(players=4, scaled=True)
    env.reset(seed=3)
    rng = np.random.default_rng(4)
    for _ in range(40):
        state = env.state_of_match
        assert state is not None
        for seat, agent in enumerate(env.possible_agents):
            observation = env.observe(agent)
            assert observation is not None
            expected = np.array(scaled(encode(view_for(state, seat))), dtype=np.float32)
            np.testing.assert_array_equal(observation["observation"], expected)
            assert env.observation_space(agent).contains(observation)
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            break
        legal = np.flatnonzero(observation["action_mask"])
        env.step(int(legal[rng.integers(len(legal))]))
    with pytest.raises(ValueError, match="scaled"):
        AmericanSniffEnv(scaled=1)  # type: ignore[arg-type]

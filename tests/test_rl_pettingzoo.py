"""The PettingZoo environment, run against the real pettingzoo package and its own tests."""

from __future__ import annotations

import itertools
import json
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from troedler import IllegalMoveError, outcome

np = pytest.importorskip("numpy")
pettingzoo = pytest.importorskip("pettingzoo")

from pettingzoo.test import api_test, seed_test  # noqa: E402 - after the skip

from troedler.adapters import pettingzoo as troedler_zoo  # noqa: E402
from troedler.adapters.pettingzoo import TroedlerEnv, env, rewards_for  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
PLAYERS = [2, 3, 4]
EPISODES = 50
EPISODE_ROUNDS = 60
"""Round cap of the random episodes, a safety net: uniform random masked play
ends its games in 17 to 25 rounds (median), 32 at most in 150 games."""


# api_test warns that Dict observations are not arrays, Box or Discrete: expected
# for observations with an action mask (it only exempts PettingZoo's own games).
pytestmark = [
    pytest.mark.filterwarnings("ignore:Observation is not a NumPy array:UserWarning"),
    pytest.mark.filterwarnings("ignore:Observation space for each agent:UserWarning"),
]


@pytest.mark.parametrize("players", PLAYERS)
def test_pettingzoo_api_test_passes_raw_and_wrapped(players: int) -> None:
    api_test(TroedlerEnv(players=players), num_cycles=1000, verbose_progress=False)
    api_test(env(players=players), num_cycles=1000, verbose_progress=False)


@pytest.mark.parametrize("players", PLAYERS)
def test_pettingzoo_seed_test_passes(players: int) -> None:
    seed_test(lambda: env(players=players), num_cycles=100)
    seed_test(lambda: TroedlerEnv(players=players, recall="perfect"), num_cycles=100)


def masked_random(rng: np.random.Generator, mask: Any) -> int:
    """An action drawn uniformly from the legal ones (as ``Discrete.sample(mask)``
    does, without its checks of the mask, which cost more than the step)."""
    legal = np.flatnonzero(mask)
    return int(legal[rng.integers(len(legal))])


def play_episode(
    game: Any, seed: int, policy: Callable[[Any], int] | None = None
) -> tuple[dict[str, float], list[str]]:
    """One episode of ``game`` with masked random actions: each agent's
    rewards as read from ``last()``, and the order in which agents acted."""
    rng = np.random.default_rng(seed)
    game.reset(seed=seed)
    returns = dict.fromkeys(game.possible_agents, 0.0)
    acted = []
    for agent in game.agent_iter():
        observation, reward, termination, truncation, _info = game.last()
        returns[agent] += reward
        if termination or truncation:
            game.step(None)
            continue
        mask = observation["action_mask"]
        assert mask.dtype == np.int8 and mask.any()
        raw = game.unwrapped
        assert raw.game.current_player == raw.possible_agents.index(agent)
        acted.append(agent)
        game.step(policy(mask) if policy else masked_random(rng, mask))
    return returns, acted


def check_rewards(game: Any, returns: dict[str, float]) -> None:
    """The rewards the agents got are those the rules' outcome gives (E3-E6)."""
    raw = game.unwrapped
    result = outcome(raw.game)
    winners = len(result.winners)
    for seat, agent in enumerate(raw.possible_agents):
        expected = 1.0 / winners if seat in result.winners else 0.0
        assert returns[agent] == pytest.approx(expected), (agent, returns, result)
    assert sum(returns.values()) == pytest.approx(1.0)


@pytest.mark.parametrize("players", PLAYERS)
def test_random_masked_episodes_end_with_the_rewards_of_the_outcome(players: int) -> None:
    game = env(players=players, max_rounds=EPISODE_ROUNDS)
    repeated = 0
    for episode in range(EPISODES):
        returns, acted = play_episode(game, seed=episode)
        raw = game.unwrapped
        assert raw.game.is_over, f"episode {episode} was cut at round {raw.game.round}"
        assert not game.agents  # every agent was stepped out with None
        check_rewards(game, returns)
        # Several decisions in a row by one player keep agent_selection on them.
        repeated += sum(a == b for a, b in itertools.pairwise(acted))
    assert repeated > EPISODES


class _SwappedRewards(TroedlerEnv):
    """A broken environment: the first two seats' rewards are swapped."""

    def _moved(self) -> None:
        super()._moved()
        if self.game is not None and self.game.is_over:
            a, b = self.possible_agents[:2]
            for table in (self.rewards, self._cumulative_rewards):
                table[a], table[b] = table[b], table[a]


def test_the_reward_check_fails_on_an_environment_with_wrong_rewards() -> None:
    failures = 0
    game = _SwappedRewards(players=3, max_rounds=EPISODE_ROUNDS)
    for episode in range(5):
        returns, _acted = play_episode(game, seed=episode)
        try:
            check_rewards(game, returns)
        except AssertionError:
            failures += 1
    assert failures >= 1  # unless seats 0 and 1 tied, the check must catch the swap


def test_rewards_share_one_among_the_winners() -> None:
    from troedler import Tally, score

    tie = score([Tally(0, 0, (5,)), Tally(0, 0, (5,)), Tally(0, 0, (3,))])
    assert rewards_for(tie) == (0.5, 0.5, 0.0)
    # Total damage (E3) is a loss like any other: no extra penalty.
    damaged = score([Tally(9, 0, (20,)), Tally(0, 0, (3,)), Tally(0, 0, (1,))])
    assert damaged.totally_damaged == {0}
    assert rewards_for(damaged) == (0.0, 1.0, 0.0)


def test_the_final_infos_report_the_outcome() -> None:
    game = TroedlerEnv(players=2, max_rounds=EPISODE_ROUNDS)
    rng = np.random.default_rng(3)
    game.reset(seed=3)
    while not game.terminations[game.agent_selection]:
        game.step(masked_random(rng, game.observe(game.agent_selection)["action_mask"]))
    result = outcome(game.game)
    for seat, agent in enumerate(game.possible_agents):
        assert game.infos[agent] == {
            "points": result.points[seat],
            "damage": result.damage[seat],
            "total_damage": seat in result.totally_damaged,
            "winner": seat in result.winners,
        }
        assert game.observe(agent)["action_mask"].sum() == 0


def test_reset_with_a_seed_replays_and_without_one_goes_on() -> None:
    a, b = TroedlerEnv(players=3), TroedlerEnv(players=3)
    a.reset(seed=11)
    b.reset(seed=11)
    assert a.game == b.game
    first = a.game
    a.reset()
    b.reset()
    assert a.game == b.game != first  # the generator went on, the same in both
    a.reset(seed=11)
    assert a.game == first


def test_only_the_agent_to_act_has_a_mask_and_observations_stay_private() -> None:
    game = TroedlerEnv(players=4)
    game.reset(seed=5)
    acting = game.agent_selection
    for agent in game.possible_agents:
        mask = game.observe(agent)["action_mask"]
        assert mask.dtype == np.int8
        assert bool(mask.any()) == (agent == acting)
    assert game.observation_space(acting) is game.observation_space(acting)
    assert game.action_space(acting) is game.action_space(acting)
    ids = np.flatnonzero(game.observe(acting)["action_mask"]).tolist()
    assert ids == list(game.actions.legal_action_ids(game.game))


def test_max_rounds_truncates_every_agent_without_reward() -> None:
    game = env(players=2, max_rounds=1)
    game.reset(seed=2)
    rng = np.random.default_rng(2)
    seen = []
    for agent in game.agent_iter():
        observation, reward, termination, truncation, _info = game.last()
        if truncation:
            seen.append((agent, reward, termination))
            game.step(None)
            continue
        game.step(masked_random(rng, observation["action_mask"]))
    raw = game.unwrapped
    assert raw.game.round == 2 and not raw.game.is_over
    assert sorted(agent for agent, _, _ in seen) == ["player_0", "player_1"]
    assert all(reward == 0 and not termination for _, reward, termination in seen)


def test_the_illegal_move_wrapper_ends_the_game_with_a_penalty() -> None:
    game = env(players=3)
    game.reset(seed=4)
    agent = game.agent_selection
    mask = game.observe(agent)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    game.step(illegal)
    assert all(game.terminations.values())
    rewards = game.unwrapped._cumulative_rewards
    assert rewards == {
        a: troedler_zoo.ILLEGAL_MOVE_REWARD if a == agent else 0 for a in game.possible_agents
    }


def test_the_raw_env_refuses_an_illegal_action_naming_the_rule() -> None:
    game = TroedlerEnv(players=3)
    game.reset(seed=4)
    end_turn = game.actions.section("end turn").start
    with pytest.raises(IllegalMoveError, match="^T1"):
        game.step(end_turn)
    game.step(np.int64(np.flatnonzero(game.observe(game.agent_selection)["action_mask"])[0]))


def test_the_out_of_bounds_and_order_wrappers_catch_misuse() -> None:
    game = env(players=2)
    with pytest.raises(AssertionError, match=r"reset\(\) needs to be called before step"):
        game.step(0)
    game.reset(seed=1)
    with pytest.raises(AssertionError):
        game.step(10**6)


def test_render_ansi_shows_the_view_of_the_agent_to_act_with_action_ids() -> None:
    game = env(players=3, render_mode="ansi")
    game.reset(seed=1)
    text = game.render()
    assert isinstance(text, str) and "Aberlour" in text
    raw = game.unwrapped
    for action in raw.actions.legal_action_ids(raw.game):
        assert re.search(rf"^\s*{action} {re.escape(str(raw.actions.move(action)))}$", text, re.M)
    assert env(players=3).unwrapped.render_mode is None


def test_bad_arguments_are_refused() -> None:
    from troedler import ConfigurationError

    for kwargs in ({"players": 5}, {"recall": "all"}, {"max_rounds": 0}, {"render_mode": "human"}):
        with pytest.raises(ConfigurationError):
            TroedlerEnv(**kwargs)  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="reset"):
        TroedlerEnv().observe("player_0")


def test_the_documented_example_runs() -> None:
    text = (ROOT / "docs" / "rl.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.DOTALL)
    assert blocks
    for block in blocks:
        exec(compile(block, "docs/rl.md", "exec"), {})  # noqa: S102 - our own docs


def test_quick_rl_benchmark_reports_every_figure() -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "rl.py"), "--quick"],
        capture_output=True,
        text=True,
        check=True,
    )
    figures = json.loads(result.stdout.strip().splitlines()[-1])
    for players in PLAYERS:
        for key in ("env_step_us", "engine_decision_us", "step_per_decision", "tensor_us"):
            assert figures[f"{key}_{players}p"] > 0

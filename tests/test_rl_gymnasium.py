"""The single-agent Gymnasium environment: a learner's seat among troedler's bots.

It passes Gymnasium's own checker, gives the learner the PettingZoo env's
tensors, masks and rewards, takes all chance from reset(seed=...), and
takes any bot as an opponent, a program among them. Torch is needed only
for the documented training example, run when sb3-contrib is installed.
"""

from __future__ import annotations

import importlib.util
import re
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest

from tests.extras import skip_reason

np = pytest.importorskip("numpy")
pytest.importorskip("gymnasium")

from gymnasium.utils.env_checker import check_env  # noqa: E402 - after the skip

from troedler import observe, outcome  # noqa: E402
from troedler.adapters.gymnasium import TroedlerGymEnv, env  # noqa: E402
from troedler.adapters.pettingzoo import ILLEGAL_MOVE_REWARD, rewards_for  # noqa: E402
from troedler.bots import GreedyBot, RandomBot  # noqa: E402
from troedler.core.errors import ConfigurationError  # noqa: E402
from troedler.encoding.action_ids import layout_for  # noqa: E402
from troedler.encoding.tensors import observation_tensor  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
PYTHON_BOT = f"exec:{sys.executable} {ROOT / 'examples' / 'delivery_bot.py'}"


def play_episode(game: TroedlerGymEnv, seed: int | None, pick: int = 0) -> dict[str, Any]:
    """One episode with a learner that takes legal action number ``pick`` (mod the count)."""
    game.reset(seed=seed)
    reward, terminated, truncated, info = 0.0, False, False, {}
    actions = []
    while not (terminated or truncated):
        legal = np.flatnonzero(game.action_masks())
        action = int(legal[pick % len(legal)])
        actions.append(action)
        _, got, terminated, truncated, info = game.step(action)
        reward += float(got)
    return {"actions": actions, "reward": reward, "info": info, "terminated": terminated}


@pytest.mark.parametrize("players", [2, 3, 4])
def test_gymnasiums_checker_passes(players: int) -> None:
    with warnings.catch_warnings():
        # The round count is the one unbounded entry of the tensor: its Box
        # bound is infinite, as in the PettingZoo env, and the checker warns.
        warnings.filterwarnings("ignore", message=".*maximum value is infinity")
        opponents = ["greedy", "random", "ismcts:5"][: players - 1]
        check_env(env(players=players, opponents=opponents), skip_render_check=True)


def test_the_learner_sees_the_pettingzoo_tensor_and_mask_of_its_seat() -> None:
    game = env(players=3, opponents=["greedy"], seat=2, recall="table")
    tensor, info = game.reset(seed=5)
    assert info["seat"] == 2
    for _ in range(40):
        state = game.game_env.game
        assert state is not None and state.current_player == 2
        expected = observation_tensor(observe(state, 2, recall="table"))
        assert tensor.dtype == np.float32 and (tensor == expected).all()
        mask = game.action_masks()
        assert mask.dtype == np.bool_ and mask.shape == (game.action_space.n,)
        assert tuple(np.flatnonzero(mask)) == tuple(layout_for(state).legal_action_ids(state))
        tensor, _, terminated, truncated, _ = game.step(int(np.flatnonzero(mask)[-1]))
        if terminated or truncated:
            break


def test_the_reward_is_the_learners_share_of_the_win_at_the_end() -> None:
    rewards = []
    for seed in range(6):
        game = env(players=2, opponents=["greedy" if seed % 2 else "random"])
        played = play_episode(game, seed)
        state = game.game_env.game
        assert state is not None and state.is_over and played["terminated"]
        assert played["reward"] == rewards_for(outcome(state))[0]
        assert played["info"]["winner"] == (0 in outcome(state).winners)
        assert not game.action_masks().any()
        rewards.append(played["reward"])
    assert 0.0 in rewards and 1.0 in rewards


def test_a_seed_replays_an_episode_and_others_differ() -> None:
    game = env(players=3, opponents=["random", "greedy"], seat=None)
    first = play_episode(game, 11, pick=3)
    again = play_episode(game, 11, pick=3)
    assert first == again
    other = play_episode(game, 12, pick=3)
    assert other["actions"] != first["actions"]
    seats = {game.reset(seed=seed)[1]["seat"] for seed in range(12)}
    assert seats == {0, 1, 2}
    # Without a seed the generator goes on: a fresh env seeded once gives the same run.
    fresh = env(players=3, opponents=["random", "greedy"], seat=None)
    fresh.reset(seed=11)
    game.reset(seed=11)
    assert play_episode(fresh, None) == play_episode(game, None)


def test_an_illegal_action_ends_the_episode_with_the_pettingzoo_penalty() -> None:
    game = env(players=2, opponents=["greedy"])
    game.reset(seed=3)
    illegal = int(np.flatnonzero(~game.action_masks())[0])
    _, reward, terminated, truncated, info = game.step(illegal)
    assert (reward, terminated, truncated) == (ILLEGAL_MOVE_REWARD, True, False)
    assert info == {"illegal_action": illegal}
    with pytest.raises(ConfigurationError, match="reset"):
        game.step(0)


def test_opponents_may_be_objects_factories_texts_and_programs() -> None:
    greedy = GreedyBot()
    game = env(players=4, opponents=[greedy, RandomBot, PYTHON_BOT], seat=1)
    played = play_episode(game, 2)
    assert played["terminated"]
    program = game._bots[3]  # the program made for this episode
    assert program is not None and program.name == "delivery-py"
    assert "game over: finished" in program.stderr  # type: ignore[attr-defined]
    assert game._bots[0] is greedy


def test_an_opponent_program_that_fails_truncates_the_episode(tmp_path: Path) -> None:
    broken = tmp_path / "broken.py"
    broken.write_text(
        "import json, sys\nsys.stdin.readline()\n"
        'print(json.dumps({"type": "hello", "protocol": 1, "name": "broken"}), flush=True)\n'
        "sys.stdin.readline()\nsys.exit(5)\n"
    )
    game = env(players=2, opponents=[f"exec:{sys.executable} {broken}"], seat=0)
    played = play_episode(game, 1)
    assert not played["terminated"]
    assert played["info"]["opponent_failure"] == "broken (seat 1) crashed: exited with code 5"


class Nameless:
    """A bot without a name."""

    def choose(self, observation: object, legal_moves: list[object], rng: object) -> object:
        return legal_moves[0]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"players": 5}, "S1"),
        ({"opponents": "greedy"}, "opponents is a non-empty list"),
        ({"opponents": []}, "opponents is a non-empty list"),
        ({"opponents": ["greedy", "random"]}, "2 opponents given for 1 seats"),
        ({"opponents": ["nobody"]}, "no bot called 'nobody'"),
        ({"opponents": [object()]}, "an opponent is a bot, a bot factory or a bot's text"),
        ({"opponents": [Nameless()]}, "needs a name"),
        ({"seat": 2}, "seat is None or a seat from 0 to 1"),
        ({"opponent_recall": "none"}, "opponent_recall is 'perfect' or 'table'"),
    ],
)
def test_bad_arguments_are_refused(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigurationError, match=re.escape(message)):
        env(**kwargs)


def test_the_rendered_view_is_the_pettingzoo_envs() -> None:
    game = env(players=2, opponents=["greedy"], render_mode="ansi")
    game.reset(seed=1)
    shown = game.render()
    assert shown is not None and "player_0 to act (action id, move):" in shown


@pytest.mark.skipif(
    importlib.util.find_spec("sb3_contrib") is None,
    reason=f"{skip_reason(['sb3_contrib'])} (it brings torch)",
)
def test_the_documented_maskableppo_training_runs() -> None:
    text = (ROOT / "docs" / "rl.md").read_text()
    blocks = re.findall(r'```python title="train_maskable_ppo\.py"\n(.*?)```', text, re.DOTALL)
    assert len(blocks) == 1
    exec(compile(blocks[0], "docs/rl.md", "exec"), {"__name__": "__doc__"})  # noqa: S102 - our own docs

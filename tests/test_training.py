"""Training on the JAX engine, and the bot that plays what it learned.

The bot (:mod:`troedler.bots.neural`) needs numpy only: its tests run
here. The training example runs JAX, which starts threads of its own, and
other tests fork; so the smoke run of ``examples/ppo_train.py`` is a process
of its own, whose log and weight file are checked here.
"""

from __future__ import annotations

import importlib.util
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.extras import skip_reason

np = pytest.importorskip("numpy")

from troedler import ConfigurationError, TroedlerError, legal_moves, new_game, observe  # noqa: E402
from troedler.bots import RandomBot, play_game  # noqa: E402
from troedler.bots.neural import (  # noqa: E402
    NeuralBot,
    WeightsError,
    load_policy,
    policy_spec,
    save_policy,
)
from troedler.encoding.action_ids import action_layout  # noqa: E402
from troedler.encoding.tensors import observation_tensor  # noqa: E402
from troedler.io.state_json import state_from_json  # noqa: E402
from troedler.simulation import Tournament, tournament  # noqa: E402
from troedler.simulation.lineup import bot_from_text  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
MISSING = [
    name for name in ("jax", "pgx", "optax", "equinox") if importlib.util.find_spec(name) is None
]


def network_arrays(spec: dict[str, Any], seed: int = 0) -> dict[str, Any]:
    """Random weights of the shapes ``spec`` asks for, scaled as a fresh network's."""
    rng = np.random.default_rng(seed)
    sizes = [spec["tensor_size"], *spec["hidden"]]
    outs = {f"hidden_{i}": (w, sizes[i]) for i, w in enumerate(spec["hidden"])}
    outs["policy"] = (spec["num_actions"], sizes[-1])
    outs["value"] = (1, sizes[-1])
    arrays = {}
    for name, shape in outs.items():
        arrays[f"{name}_weight"] = rng.normal(0, 1 / np.sqrt(shape[1]), shape).astype(np.float32)
        arrays[f"{name}_bias"] = rng.normal(0, 0.1, shape[0]).astype(np.float32)
    return arrays


@pytest.fixture(scope="module")
def weights(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("weights") / "two.npz"
    spec = policy_spec(2, [24, 16], meta={"seed": 0})
    save_policy(path, spec, network_arrays(spec))
    return path


def test_a_saved_network_loads_and_plays_whole_games(weights: Path) -> None:
    bot = NeuralBot(weights)
    for seed in range(3):
        played = play_game([bot, RandomBot()], seed=seed, starting_dealer=seed % 2)
        assert played.finished  # play_game refuses any move that is not legal
    greedy = NeuralBot(weights, greedy=True, name="neural-greedy")
    assert play_game([RandomBot(), greedy], seed=9, recall="table").finished


def test_the_distribution_is_the_masked_softmax_of_the_logits(weights: Path) -> None:
    bot = NeuralBot(weights)
    state = new_game(2, seed=4)
    seen = observe(state, state.current_player)
    probabilities = bot.distribution(seen, legal_moves(seen))
    logits, _ = bot.policy.forward(observation_tensor(seen))
    ids = action_layout().action_ids(legal_moves(seen))
    expected = np.exp(logits[ids] - logits[ids].max())
    assert np.allclose(probabilities, expected / expected.sum(), rtol=1e-12, atol=0)
    assert np.isclose(probabilities.sum(), 1.0)


def test_the_bot_draws_from_its_distribution_with_its_rng_alone(weights: Path) -> None:
    bot = NeuralBot(weights)
    state = new_game(2, seed=4)
    seen = observe(state, state.current_player)
    probabilities = bot.distribution(seen, legal_moves(seen))
    rng = random.Random(1)
    draws = [legal_moves(seen).index(bot.choose(seen, legal_moves(seen), rng)) for _ in range(4000)]
    counts = np.bincount(draws, minlength=len(legal_moves(seen)))
    # Chi-squared over the moves (here the dealer's 3 piles to discard, R4)
    # against the network's probabilities, at its 0.999 quantile.
    quantile = {2: 13.82, 3: 16.27, 4: 18.47}[len(legal_moves(seen)) - 1]
    expected = probabilities * len(draws)
    assert ((counts - expected) ** 2 / expected).sum() < quantile
    again = random.Random(1)
    assert [
        legal_moves(seen).index(bot.choose(seen, legal_moves(seen), again)) for _ in range(50)
    ] == draws[:50]
    greedy = NeuralBot(weights, greedy=True)
    assert (
        greedy.choose(seen, legal_moves(seen), rng)
        == legal_moves(seen)[int(np.argmax(probabilities))]
    )


def test_a_network_for_two_players_refuses_other_games(weights: Path) -> None:
    bot = NeuralBot(weights)
    state = new_game(3, seed=1)
    seen = observe(state, state.current_player)
    with pytest.raises(WeightsError, match="players"):
        bot.choose(seen, legal_moves(seen), random.Random(0))


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("tensor_layout_version", 99),
        ("tensor_size", 541),
        ("action_layout_version", 0),
        ("num_actions", 2440),
        ("fingerprint", "0" * 16),
        ("format", "something else"),
        ("players", 5),
        ("hidden", [0]),
        ("activation", "gelu"),
        ("inputs", "square"),
    ],
)
def test_a_file_made_for_other_layouts_is_refused_naming_the_field(
    tmp_path: Path, field: str, value: object
) -> None:
    spec = policy_spec(2, [8])
    arrays = network_arrays(spec)
    spec[field] = value
    path = tmp_path / "bad.npz"
    with pytest.raises(WeightsError, match=field):
        save_policy(path, spec, arrays)
    assert not path.exists()  # a file that could not be played is not left behind
    # Written by hand past the check, it is refused when read.
    np.savez(path, spec=np.array(json.dumps(spec)), **network_arrays(policy_spec(2, [8])))
    with pytest.raises(WeightsError, match=field) as error:
        NeuralBot(path)
    assert isinstance(error.value, TroedlerError)


def test_broken_files_are_refused_and_nothing_is_unpickled(tmp_path: Path) -> None:
    spec = policy_spec(2, [8])
    arrays = network_arrays(spec)
    missing = tmp_path / "missing.npz"
    with pytest.raises(WeightsError, match="path"):
        load_policy(missing)
    text = tmp_path / "text.npz"
    text.write_text("not an archive")
    with pytest.raises(WeightsError, match="path"):
        load_policy(text)
    # An object array would need pickle to be read: the archive is refused.
    pickled = tmp_path / "pickled.npz"
    np.savez(pickled, spec=np.array([{"format": "troedler-policy"}], dtype=object))
    with pytest.raises(WeightsError):
        load_policy(pickled)
    no_spec = tmp_path / "no-spec.npz"
    np.savez(no_spec, **{k: np.asarray(v, np.float32) for k, v in arrays.items()})
    with pytest.raises(WeightsError, match="spec"):
        load_policy(no_spec)
    shapes = dict(arrays)
    shapes["policy_weight"] = shapes["policy_weight"][:, :4]
    wrong = tmp_path / "wrong.npz"
    np.savez(wrong, spec=np.array(json.dumps(spec)), **shapes)
    with pytest.raises(WeightsError, match="policy_weight"):
        load_policy(wrong)
    nan = {k: np.asarray(v, np.float32) for k, v in arrays.items()}
    nan["value_bias"][0] = np.nan
    np.savez(wrong, spec=np.array(json.dumps(spec)), **nan)
    with pytest.raises(WeightsError, match="value_bias"):
        load_policy(wrong)


def test_the_bot_is_given_observations_and_legal_moves_only(weights: Path) -> None:
    bot = NeuralBot(weights)
    state = new_game(2, seed=4)
    with pytest.raises(ConfigurationError, match="Observation"):
        bot.choose(state, [], random.Random(0))  # type: ignore[arg-type]
    seen = observe(state, 1 - state.current_player)
    with pytest.raises(ConfigurationError, match="legal_moves"):
        bot.choose(seen, legal_moves(seen), random.Random(0))


@pytest.mark.skipif(bool(MISSING), reason=skip_reason(MISSING))
def test_a_short_training_run_lowers_its_loss_and_its_weights_play(tmp_path: Path) -> None:
    out, log = tmp_path / "smoke.npz", tmp_path / "smoke.jsonl"
    command = [
        sys.executable, str(ROOT / "examples" / "ppo_train.py"),
        "--updates", "4", "--games", "32", "--steps", "48", "--hidden", "64",
        "--out", str(out), "--log", str(log), "--window", "1",
    ]  # fmt: skip
    # Its own process: JAX starts threads, and other tests of this process fork.
    result = subprocess.run(
        command, cwd=tmp_path, capture_output=True, text=True, timeout=1200, check=False
    )
    assert result.returncode == 0, result.stdout[-5000:] + result.stderr[-5000:]
    rows = [json.loads(line) for line in log.read_text().splitlines()]
    assert len(rows) == 4
    for row in rows:
        # Within every update the epochs lower PPO's loss on that update's games.
        before = row["policy_loss"] + 0.5 * row["value_loss"] - 0.01 * row["entropy"]
        after = (
            row["policy_loss_after"] + 0.5 * row["value_loss_after"] - 0.01 * row["entropy_after"]
        )
        assert after < before, row
        assert row["value_loss_after"] <= row["value_loss"], row
        assert row["learner_decisions"] > 0
    # The weights load with numpy only, and compute what the JAX network computed.
    policy = load_policy(out)
    assert policy.spec["hidden"] == [64] and policy.spec["meta"]["updates"] == 4
    tests = policy.tests
    logits, values = policy.forward(tests["test_observations"])
    assert np.allclose(logits, tests["test_logits"], atol=1e-4)
    assert np.allclose(values, tests["test_values"], atol=1e-4)
    mask = tests["test_masks"]
    expected = np.where(
        mask, np.exp(tests["test_logits"] - tests["test_logits"].max(-1, keepdims=True)), 0
    )
    expected /= expected.sum(-1, keepdims=True)
    assert np.allclose(policy.probabilities(tests["test_observations"], mask), expected, atol=1e-5)
    # The same games as core states: the bot, seeing its observation of them
    # through the core, draws from the JAX network's distribution.
    bot = NeuralBot(out)
    for text, row in zip(tests["test_states"], expected, strict=True):
        state = state_from_json(str(text))
        seen = observe(state, state.current_player)
        ids = action_layout().action_ids(legal_moves(seen))
        assert sorted(ids) == list(np.flatnonzero(row))
        assert np.allclose(bot.distribution(seen, legal_moves(seen)), row[ids], atol=1e-5)
    assert load_policy(tmp_path / "smoke-initial.npz").spec["meta"]["seed"] == 0
    # ... and play.
    played = play_game([NeuralBot(out), RandomBot()], seed=3)
    assert played.finished


def test_a_network_for_other_player_counts_is_refused_before_any_game(
    weights: Path, tmp_path: Path
) -> None:
    # A two-player network seated at a three-player table stops the run
    # before its first game, with one line naming the players (not a
    # forfeit of every game at the bot's first move).
    text = f"neural:{weights}"
    for start in (
        lambda: tournament([text, "greedy"], games=2, players=3),
        lambda: Tournament([NeuralBot(weights), "random"], players=3),
        lambda: play_game([NeuralBot(weights), RandomBot(), RandomBot()], seed=1),
    ):
        with pytest.raises(WeightsError, match="^players: the network plays 2-player games"):
            start()
    summary = tournament([text, "greedy"], games=2, players=2)
    assert summary.games == 2 and summary.forfeited == 0
    run = subprocess.run(
        [sys.executable, "-m", "troedler", "simulate", "--bots", f"{text},greedy",
         "--players", "3", "--games", "4", "--out", str(tmp_path / "run.jsonl")],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert run.returncode == 2, run.stderr
    assert run.stderr.count("\n") == 1 and "2-player games, not 3-player" in run.stderr
    assert not (tmp_path / "run.jsonl").exists()


def test_neural_names_its_weight_file_on_the_command_line(weights: Path) -> None:
    assert isinstance(bot_from_text(f"neural:{weights}"), NeuralBot)
    # Without a path, neural is the learned bot with the networks that ship.
    assert type(bot_from_text("neural")).__name__ == "LearnedBot"

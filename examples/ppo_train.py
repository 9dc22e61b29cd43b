"""PPO on the JAX engine: a masked policy and value network learns to beat the random bot.

Everything of one update runs inside one jit-compiled function: a batch of
2-player games is played on ``troedler.jax`` for a number of steps under
``jax.lax.scan`` (the learner's seat drawn per game, the other seat playing
uniformly random legal moves), the advantages are computed, and the network
is trained for a few epochs with PPO's clipped objective.

The network is an equinox module (a pytree of arrays: no framework state to
carry around), trained with optax's Adam. The weights are written as a
``.npz`` archive that :class:`troedler.bots.neural.NeuralBot` plays with
numpy only; the win share before and after is measured by the Python
tournament (``troedler.simulation.tournament``) through that bot.

    python examples/ppo_train.py --minutes 15 --out ppo-2p.npz --evaluate 400

Needs ``pip install 'troedler[jax-train]'`` (jax, pgx, optax, equinox;
matplotlib for the curve's picture).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import time
from pathlib import Path
from typing import Any, NamedTuple

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
import optax

from troedler.bots.neural import policy_spec, save_policy
from troedler.io.state_json import state_to_json
from troedler.jax import make, to_state

PLAYERS = 2
BLOCK = 64
PROBES = 8
"""Observations kept from the last rollout as the weight file's test vectors."""
MASKED = -1e9
"""The logit of an action that is not legal: finite, so that no gradient meets
an infinity, and still exactly 0 after the softmax."""


class Settings(NamedTuple):
    """What one training run is made of."""

    games: int = 256
    """Games played at once."""
    steps: int = 64
    """Steps of every game per update (the rollout's length)."""
    epochs: int = 3
    minibatches: int = 4
    keep: float = 0.6
    """Share of a rollout's steps trained on: the learner's decisions first
    (about half the steps are the random bot's)."""
    learning_rate: float = 3e-4
    gamma: float = 0.997
    lam: float = 0.95
    clip: float = 0.2
    value_weight: float = 0.5
    entropy_weight: float = 0.01
    max_grad_norm: float = 0.5
    hidden: tuple[int, ...] = (256, 128)
    max_rounds: int = 100
    recall: str = "perfect"
    """The recall of the observations: the tournament's bots see perfect recall."""
    seed: int = 0


class Network(eqx.Module):
    """Dense layers on log1p of the tensor, then a policy head (one logit per
    action id) and a value head. What :class:`~troedler.bots.neural.Policy`
    computes with numpy from the saved arrays."""

    hidden: list[eqx.nn.Linear]
    policy: eqx.nn.Linear
    value: eqx.nn.Linear

    def __init__(self, size: int, actions: int, widths: tuple[int, ...], key: jax.Array) -> None:
        keys = jax.random.split(key, len(widths) + 2)
        sizes = (size, *widths)
        self.hidden = [
            eqx.nn.Linear(sizes[i], sizes[i + 1], key=keys[i]) for i in range(len(widths))
        ]
        policy = eqx.nn.Linear(sizes[-1], actions, key=keys[-2])
        # A small policy head starts near the uniform policy over the legal ids.
        self.policy = eqx.tree_at(lambda layer: layer.weight, policy, policy.weight * 0.01)
        self.value = eqx.nn.Linear(sizes[-1], 1, key=keys[-1])

    def __call__(self, tensor: jax.Array) -> tuple[jax.Array, jax.Array]:
        x = jnp.log1p(tensor)
        for layer in self.hidden:
            x = jax.nn.relu(layer(x))
        return self.policy(x), self.value(x)[0]


def arrays_of(network: Network) -> dict[str, np.ndarray]:
    """The network's arrays under the names of the weight file."""
    arrays = {}
    for i, layer in enumerate(network.hidden):
        arrays[f"hidden_{i}_weight"], arrays[f"hidden_{i}_bias"] = layer.weight, layer.bias
    for name in ("policy", "value"):
        layer = getattr(network, name)
        arrays[f"{name}_weight"], arrays[f"{name}_bias"] = layer.weight, layer.bias
    return {name: np.asarray(value, np.float32) for name, value in arrays.items()}


def sample(key: jax.Array, logits: jax.Array, mask: jax.Array) -> jax.Array:
    """An action id per row, drawn from the softmax of ``logits`` over ``mask``.

    One uniform number per row and the inverse of the distribution function,
    found in two short running sums (over blocks of 64 ids, then in one
    block): ``jax.random.categorical`` draws a number for each of the 2,441
    ids, which costs several engine steps on a CPU. A block or id that
    rounding would pick past the last one with any weight falls back to it.
    """
    probs = jax.nn.softmax(jnp.where(mask, logits, MASKED), axis=-1)
    rows, size = probs.shape
    blocks = -(-size // BLOCK)
    padded = jnp.zeros((rows, blocks * BLOCK), probs.dtype).at[:, :size].set(probs)
    padded = padded.reshape(rows, blocks, BLOCK)
    sums = padded.sum(axis=-1)
    running = jnp.cumsum(sums, axis=-1)
    target = jax.random.uniform(key, (rows,)) * running[:, -1]
    last_block = blocks - 1 - jnp.argmax((sums > 0)[:, ::-1], axis=-1)
    block = jnp.minimum((running <= target[:, None]).sum(axis=-1), last_block)
    before = jnp.take_along_axis(running - sums, block[:, None], axis=-1)[:, 0]
    row = jnp.take_along_axis(padded, block[:, None, None], axis=1)[:, 0]
    last_id = BLOCK - 1 - jnp.argmax((row > 0)[:, ::-1], axis=-1)
    within = (jnp.cumsum(row, axis=-1) <= (target - before)[:, None]).sum(axis=-1)
    return (block * BLOCK + jnp.minimum(within, last_id)).astype(jnp.int32)


def log_policy(logits: jax.Array, mask: jax.Array) -> jax.Array:
    """Log-probabilities of the masked softmax."""
    return jax.nn.log_softmax(jnp.where(mask, logits, MASKED), axis=-1)


class Step(NamedTuple):
    """One step of every game of a rollout."""

    observation: jax.Array
    mask: jax.Array
    action: jax.Array
    log_prob: jax.Array
    value: jax.Array
    learner: jax.Array
    """The learner decided this step (in a running game)."""
    reward: jax.Array
    """The learner's reward from this step (given when a game ends)."""
    done: jax.Array
    """A running game ended (or was truncated) at this step."""


class Carry(NamedTuple):
    """What one update hands to the next."""

    params: Any
    opt_state: Any
    games: Any
    seats: jax.Array
    """The learner's seat in each game."""
    key: jax.Array


def build(settings: Settings) -> tuple[Carry, Any, Network]:
    """The first carry, the jit-compiled update, and the network's static part."""
    env = make(players=PLAYERS, recall=settings.recall, max_rounds=settings.max_rounds)
    key = jax.random.PRNGKey(settings.seed)
    key, net_key, game_key, seat_key = jax.random.split(key, 4)
    network = Network(env.observation_shape[0], env.num_actions, settings.hidden, net_key)
    params, static = eqx.partition(network, eqx.is_array)
    optimizer = optax.chain(
        optax.clip_by_global_norm(settings.max_grad_norm),
        optax.adam(settings.learning_rate, eps=1e-5),
    )
    n = settings.games
    init = jax.vmap(env.init)
    step = jax.vmap(env.step)
    observe = jax.vmap(env.observe)
    # Games that are over, all of them: the first update deals new ones in
    # its own compiled program, so that init is compiled only once.
    shapes = jax.eval_shape(init, jax.random.split(game_key, n))
    games = jax.tree_util.tree_map(lambda x: jnp.zeros(x.shape, x.dtype), shapes)
    games = games.replace(terminated=jnp.ones(n, bool))
    seats = jax.random.randint(seat_key, (n,), 0, PLAYERS)
    carry = Carry(params, optimizer.init(params), games, seats, key)
    samples = settings.steps * n
    kept = math.ceil(settings.keep * samples / settings.minibatches) * settings.minibatches

    def run(params: Any, tensors: jax.Array) -> tuple[jax.Array, jax.Array]:
        return jax.vmap(eqx.combine(params, static))(tensors)  # type: ignore[no-any-return]

    def rollout(params: Any, games: Any, seats: jax.Array, key: jax.Array) -> Any:
        rows = jnp.arange(n)

        def one(games: Any, key: jax.Array) -> tuple[Any, Step]:
            mine_key, other_key, chance = jax.random.split(key, 3)
            mask = games.legal_action_mask
            logits, value = run(params, games.observation)
            mine = sample(mine_key, logits, mask)
            other = sample(other_key, jnp.zeros_like(logits), mask)
            running = ~(games.terminated | games.truncated)
            turn = games.current_player == seats
            action = jnp.where(turn, mine, other)
            log_prob = jnp.take_along_axis(log_policy(logits, mask), action[:, None], axis=-1)
            after = step(games, action, jax.random.split(chance, n))
            done = running & (after.terminated | after.truncated)
            reward = jnp.where(running, after.rewards[rows, seats], 0.0)
            record = Step(
                games.observation, mask, action, log_prob[:, 0], value,
                turn & running, reward, done,
            )  # fmt: skip
            return after, record

        games, trajectory = jax.lax.scan(one, games, jax.random.split(key, settings.steps))
        running = ~(games.terminated | games.truncated)
        _, last_value = run(params, observe(games, seats))
        return games, trajectory, jnp.where(running, last_value, 0.0)

    def advantages(trajectory: Step, last_value: jax.Array) -> jax.Array:
        """GAE over the learner's own decisions: the random bot's steps in
        between only pass on the rewards they bring."""

        def back(carry: Any, s: Step) -> tuple[Any, jax.Array]:
            next_value, next_advantage, rewards = (x * ~s.done for x in carry)
            rewards = rewards + s.reward
            delta = rewards + settings.gamma * next_value - s.value
            advantage = delta + settings.gamma * settings.lam * next_advantage
            carry = (
                jnp.where(s.learner, s.value, next_value),
                jnp.where(s.learner, advantage, next_advantage),
                jnp.where(s.learner, 0.0, rewards),
            )
            return carry, advantage

        zeros = jnp.zeros_like(last_value)
        _, found = jax.lax.scan(back, (last_value, zeros, zeros), trajectory, reverse=True)
        return found

    def loss(params: Any, batch: Step, advantage: jax.Array, target: jax.Array) -> Any:
        logits, value = run(params, batch.observation)
        logs = log_policy(logits, batch.mask)
        log_prob = jnp.take_along_axis(logs, batch.action[:, None], axis=-1)[:, 0]
        weight = batch.learner / jnp.maximum(batch.learner.sum(), 1)
        mean = (advantage * weight).sum()
        spread = jnp.sqrt((((advantage - mean) ** 2) * weight).sum() + 1e-8)
        advantage = (advantage - mean) / spread
        ratio = jnp.exp(log_prob - batch.log_prob)
        clipped = jnp.clip(ratio, 1 - settings.clip, 1 + settings.clip)
        policy_loss = -jnp.minimum(ratio * advantage, clipped * advantage)
        value_loss = 0.5 * (value - target) ** 2
        entropy = -jnp.where(batch.mask, jnp.exp(logs) * logs, 0.0).sum(axis=-1)
        total = policy_loss + settings.value_weight * value_loss - settings.entropy_weight * entropy
        kl = (ratio - 1) - (log_prob - batch.log_prob)
        parts = jnp.stack([policy_loss, value_loss, entropy, kl])
        return (total * weight).sum(), (parts * weight).sum(axis=-1)

    def update(carry: Carry) -> tuple[Carry, jax.Array, Any]:
        params, opt_state, games, seats, key = carry
        key, fresh, new_seats, play, order = jax.random.split(key, 5)
        # Finished games are replaced by new ones, each with the learner in a new seat.
        over = games.terminated | games.truncated
        new = init(jax.random.split(fresh, n))
        games = jax.tree_util.tree_map(
            lambda a, b: jnp.where(over.reshape((-1,) + (1,) * (a.ndim - 1)), a, b), new, games
        )
        seats = jnp.where(over, jax.random.randint(new_seats, (n,), 0, PLAYERS), seats)
        games, trajectory, last_value = rollout(params, games, seats, play)
        advantage = advantages(trajectory, last_value)
        target = advantage + trajectory.value
        flat = jax.tree_util.tree_map(lambda x: x.reshape((samples, *x.shape[2:])), trajectory)
        advantage, target = advantage.reshape(samples), target.reshape(samples)

        def epoch(state: Any, key: jax.Array) -> tuple[Any, jax.Array]:
            # The learner's decisions first, in random order; the rest after them.
            noise = jax.random.uniform(key, (samples,))
            chosen = jnp.argsort(jnp.where(flat.learner, noise, 1 + noise))[:kept]
            chosen = chosen.reshape(settings.minibatches, -1)

            def minibatch(state: Any, index: jax.Array) -> tuple[Any, jax.Array]:
                params, opt_state = state
                batch = jax.tree_util.tree_map(lambda x: x[index], flat)
                grads, parts = jax.grad(loss, has_aux=True)(
                    params, batch, advantage[index], target[index]
                )
                updates, opt_state = optimizer.update(grads, opt_state, params)
                return (optax.apply_updates(params, updates), opt_state), parts

            return jax.lax.scan(minibatch, state, chosen)

        (params, opt_state), parts = jax.lax.scan(
            epoch, (params, opt_state), jax.random.split(order, settings.epochs)
        )
        finished = trajectory.done.sum()
        metrics = jnp.concatenate(
            [
                parts[0].mean(axis=0),  # the first epoch's losses: before this update's steps
                parts[-1].mean(axis=0),
                jnp.stack(
                    [
                        finished.astype(jnp.float32),
                        (trajectory.reward * trajectory.done).sum(),
                        trajectory.learner.sum().astype(jnp.float32),
                    ]
                ),
            ]
        )
        # A few games in progress, their observations the weight file's test vectors.
        running = ~(games.terminated | games.truncated)
        picks = jnp.argsort(~running)[:PROBES]
        probe = jax.tree_util.tree_map(lambda x: x[picks], games)
        return Carry(params, opt_state, games, seats, key), metrics, probe

    return carry, jax.jit(update), static


DEFAULT = Settings()

METRICS = (
    "policy_loss", "value_loss", "entropy", "kl",
    "policy_loss_after", "value_loss_after", "entropy_after", "kl_after",
    "finished", "learner_wins", "learner_decisions",
)  # fmt: skip


def test_vectors(network: Network, probe: Any) -> dict[str, np.ndarray]:
    """Games in progress met in training, as core states (JSON text) and as
    the JAX engine's observations and masks, with what the JAX network makes
    of the observations."""
    logits, value = jax.vmap(network)(probe.observation)
    states = [state_to_json(to_state(probe, index=i)) for i in range(len(probe.observation))]
    return {
        "test_states": np.array(states),
        "test_observations": np.asarray(probe.observation, np.float32),
        "test_masks": np.asarray(probe.legal_action_mask, bool),
        "test_logits": np.asarray(logits, np.float32),
        "test_values": np.asarray(value, np.float32),
    }


def save(
    path: Path,
    settings: Settings,
    params: Any,
    static: Any,
    probe: Any,
    meta: dict[str, Any],
) -> None:
    """The weight file of the network ``params``, with its spec and test vectors."""
    network = eqx.combine(params, static)
    spec = policy_spec(
        PLAYERS, settings.hidden, recall=settings.recall, meta={**meta, **settings._asdict()}
    )
    save_policy(path, spec, {**arrays_of(network), **test_vectors(network, probe)})


def code_version() -> str:
    """The commit of the code, where it is a git checkout."""
    try:
        found = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],  # noqa: S607 - git from PATH
            capture_output=True, text=True, timeout=10, check=True,
            cwd=Path(__file__).parent,
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return found.stdout.strip()


def train(
    settings: Settings,
    *,
    updates: int | None = None,
    minutes: float | None = None,
    out: Path | None = None,
    log: Path | None = None,
    every: int = 10,
) -> tuple[Any, Any, list[dict[str, float]]]:
    """Run updates until ``updates`` are done or ``minutes`` have passed.

    Writes the first weights to ``<out>-initial.npz`` and the last to
    ``out``; ``log`` gets one JSON line per update. Gives the parameters,
    the static part of the network and the log's rows.
    """
    started = time.perf_counter()
    carry, update, static = build(settings)
    meta = {"code_version": code_version(), "jax": jax.__version__}
    initial = carry.params
    rows: list[dict[str, float]] = []
    compiled_at = None
    index = 0
    with log.open("w") if log is not None else open(os.devnull, "w") as lines:
        while (updates is None or index < updates) and (
            minutes is None or time.perf_counter() - started < minutes * 60
        ):
            carry, metrics, probe = update(carry)
            values = [float(x) for x in np.asarray(metrics)]
            if compiled_at is None:
                compiled_at = time.perf_counter() - started
            row = dict(zip(METRICS, values, strict=True))
            row.update(
                update=index,
                env_steps=(index + 1) * settings.games * settings.steps,
                wall_s=time.perf_counter() - started,
                compile_s=compiled_at,
            )
            rows.append(row)
            lines.write(json.dumps(row) + "\n")
            lines.flush()
            if every and index % every == 0:
                window = rows[-every:]
                ended = sum(r["finished"] for r in window)
                wins = sum(r["learner_wins"] for r in window)
                print(
                    f"update {index:4d}  steps {row['env_steps']:>10,}  "
                    f"{row['wall_s']:7.1f} s  games {ended:5.0f}  "
                    f"win share {wins / max(ended, 1):.3f}  value loss {row['value_loss']:.4f}  "
                    f"entropy {row['entropy']:.3f}",
                    flush=True,
                )
            index += 1
    if out is not None and rows:
        wall = round(time.perf_counter() - started, 1)
        save(out.with_name(out.stem + "-initial.npz"), settings, initial, static, probe, meta)
        save(out, settings, carry.params, static, probe, {**meta, "updates": index, "wall_s": wall})
    return carry.params, static, rows


def curve(rows: list[dict[str, float]], window: int) -> list[tuple[float, float, float, int]]:
    """(env steps, minutes, win share, games) over successive windows of updates."""
    points = []
    for start in range(0, len(rows) - window + 1, window):
        part = rows[start : start + window]
        games = sum(r["finished"] for r in part)
        wins = sum(r["learner_wins"] for r in part)
        points.append(
            (part[-1]["env_steps"], part[-1]["wall_s"] / 60, wins / max(games, 1), int(games))
        )
    return points


def plot(rows: list[dict[str, float]], window: int, path: Path) -> None:
    """The learning curve as a picture (matplotlib)."""
    import matplotlib  # noqa: PLC0415 - only for the picture

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # noqa: PLC0415

    points = curve(rows, window)
    figure, axis = plt.subplots(figsize=(7, 4), dpi=100)
    axis.plot([p[1] for p in points], [p[2] for p in points], color="#8b4513", marker="o")
    axis.axhline(0.5, color="grey", linestyle=":", linewidth=1)
    axis.set_xlabel("minutes of training (2-core CPU)")
    axis.set_ylabel("win share against the random bot")
    axis.set_ylim(0, 1)
    axis.set_title("PPO on troedler.jax, 2 players: games finished during training")
    axis.grid(alpha=0.3)
    figure.tight_layout()
    figure.savefig(path, metadata={"Software": None})
    plt.close(figure)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--updates", type=int, help="stop after this many updates")
    parser.add_argument("--minutes", type=float, help="stop after this much wall time")
    parser.add_argument("--games", type=int, default=DEFAULT.games)
    parser.add_argument("--steps", type=int, default=DEFAULT.steps)
    parser.add_argument("--epochs", type=int, default=DEFAULT.epochs)
    parser.add_argument("--learning-rate", type=float, default=DEFAULT.learning_rate)
    parser.add_argument("--hidden", default="256,128", help="widths of the dense layers")
    parser.add_argument("--seed", type=int, default=DEFAULT.seed)
    parser.add_argument("--out", type=Path, default=Path("ppo-2p.npz"), help="the weight file")
    parser.add_argument("--log", type=Path, help="one JSON line per update")
    parser.add_argument("--plot", type=Path, help="the learning curve as a PNG")
    parser.add_argument("--window", type=int, default=10, help="updates per point of the curve")
    parser.add_argument("--replot", type=Path, help="only draw --plot from this --log file")
    parser.add_argument(
        "--evaluate", type=int, default=0, help="tournament games before and after (0: none)"
    )
    arguments = parser.parse_args()
    if arguments.replot is not None and arguments.plot is not None:
        rows = [json.loads(line) for line in arguments.replot.read_text().splitlines()]
        plot(rows, arguments.window, arguments.plot)
        return
    if arguments.updates is None and arguments.minutes is None:
        parser.error("give --updates or --minutes")
    settings = Settings(
        games=arguments.games,
        steps=arguments.steps,
        epochs=arguments.epochs,
        learning_rate=arguments.learning_rate,
        hidden=tuple(int(w) for w in arguments.hidden.split(",")),
        seed=arguments.seed,
    )
    _, _, rows = train(
        settings,
        updates=arguments.updates,
        minutes=arguments.minutes,
        out=arguments.out,
        log=arguments.log,
        every=arguments.window,
    )
    print(f"{len(rows)} updates, {rows[-1]['env_steps']:,} steps in {rows[-1]['wall_s']:.0f} s")
    if arguments.plot is not None:
        plot(rows, arguments.window, arguments.plot)
    if arguments.evaluate:
        # In this process, one game after another: a process that runs JAX must not fork.
        from ppo_evaluate import evaluate  # noqa: PLC0415 - the script next to this one

        initial = arguments.out.with_name(arguments.out.stem + "-initial.npz")
        for name, path in (("before", initial), ("after", arguments.out)):
            print(name, json.dumps(evaluate(path, arguments.evaluate)), flush=True)


if __name__ == "__main__":
    main()

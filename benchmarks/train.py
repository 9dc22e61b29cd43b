"""Train MaskablePPO (sb3-contrib) against bundled bots in the Gymnasium env.

Reports the learner's win share before training (the freshly initialised
policy) and after, each over the same evaluation games, with 95% Wilson
intervals, as one JSON object on the last line:

    .venv/bin/pip install -e '.[train]'     # sb3-contrib, which brings torch
    .venv/bin/python benchmarks/train.py --steps 50000 --games 300

The env is ``troedler.adapters.gymnasium.env``; the learner plays seat 0
and 1 in turn (``seat=None``), so seat advantage averages out.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Sequence
from typing import Any


def wilson(wins: float, games: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a share of ``wins`` in ``games``."""
    if games == 0:
        return (0.0, 1.0)
    p = wins / games
    centre = (p + z * z / (2 * games)) / (1 + z * z / games)
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / (1 + z * z / games)
    return (max(0.0, centre - half), min(1.0, centre + half))


def win_share(model: Any, opponents: Sequence[str], players: int, games: int, seed: int) -> float:
    """The learner's mean reward (its share of wins) over ``games`` seeded episodes."""
    from troedler.adapters.gymnasium import env  # noqa: PLC0415

    game = env(players=players, opponents=list(opponents), seat=None)
    total = 0.0
    for k in range(games):
        tensor, _ = game.reset(seed=seed + k)
        done = False
        while not done:
            action, _ = model.predict(tensor, action_masks=game.action_masks(), deterministic=True)
            tensor, reward, terminated, truncated, _ = game.step(int(action))
            total += float(reward)
            done = terminated or truncated
    return total / games


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=50_000, help="training steps")
    parser.add_argument("--games", type=int, default=300, help="evaluation games, before and after")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--opponents", default="random", help="comma-separated bot texts")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    import torch  # noqa: PLC0415 - the train extra
    from sb3_contrib import MaskablePPO  # noqa: PLC0415

    from troedler.adapters.gymnasium import env  # noqa: PLC0415

    torch.set_num_threads(1)
    opponents = args.opponents.split(",")
    learner = env(players=args.players, opponents=opponents, seat=None)
    model = MaskablePPO("MlpPolicy", learner, n_steps=1024, batch_size=128, seed=args.seed)
    evaluation_seed = 10**6  # games the training never sees
    before = win_share(model, opponents, args.players, args.games, evaluation_seed)
    started = time.perf_counter()
    model.learn(total_timesteps=args.steps)
    took = time.perf_counter() - started
    after = win_share(model, opponents, args.players, args.games, evaluation_seed)
    result = {
        "players": args.players,
        "opponents": opponents,
        "steps": args.steps,
        "training_s": round(took, 1),
        "games": args.games,
        "before": round(before, 4),
        "before_95": [round(x, 4) for x in wilson(before * args.games, args.games)],
        "after": round(after, 4),
        "after_95": [round(x, 4) for x in wilson(after * args.games, args.games)],
    }
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())

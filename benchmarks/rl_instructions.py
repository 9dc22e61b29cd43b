"""Random masked env steps, or engine decisions, to be counted under callgrind.

Instruction counts do not depend on the machine's load, so they compare the
environment with the engine where timings are noisy. Count a run of N and
a run of 0 and divide the difference by N; the 3,000 steps to warm up and
the start of Python cancel out:

    valgrind --tool=callgrind --callgrind-out-file=/dev/null \\
        python benchmarks/rl_instructions.py env 4 4000 2>&1 | grep Collected
    valgrind --tool=callgrind --callgrind-out-file=/dev/null \\
        python benchmarks/rl_instructions.py env 4 0 2>&1 | grep Collected

``env`` plays the raw environment (``last()`` then ``step()``), choosing
among the legal ids it listed for the mask, so that sampling from the mask
is not counted; ``engine`` plays ``legal_moves`` then ``apply_move``. Both
cut games at round 30 as ``benchmarks/rl.py`` does. Needs the ``rl`` extra.
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Callable

from troedler import apply_move, legal_moves, new_game
from troedler.adapters.pettingzoo import TroedlerEnv

WARM_UP = 3_000
ROUND_CAP = 30


def env_steps(players: int) -> Callable[[], None]:
    """One raw env step a call, with a random legal action."""
    rng = random.Random(1)
    game = TroedlerEnv(players=players, max_rounds=ROUND_CAP)
    game.reset(seed=1)
    games = 0

    def step() -> None:
        nonlocal games
        _observation, _reward, termination, truncation, _info = game.last()
        if termination or truncation:
            games += 1
            game.reset(seed=games)
            return
        legal = game._legal  # the ids behind the mask that last() just built
        assert legal is not None
        game.step(legal[0][rng.randrange(len(legal[0]))])

    return step


def engine_decisions(players: int) -> Callable[[], None]:
    """One engine decision a call: legal_moves, one at random, apply_move."""
    rng = random.Random(1)
    state = new_game(players, seed=1)
    games = 0

    def decide() -> None:
        nonlocal state, games
        if state.is_over or state.round > ROUND_CAP:
            games += 1
            state = new_game(players, seed=games)
        moves = legal_moves(state)
        state = apply_move(state, moves[rng.randrange(len(moves))])

    return decide


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("what", choices=("env", "engine"))
    parser.add_argument("players", type=int, choices=(2, 3, 4))
    parser.add_argument("count", type=int, help="steps or decisions after the warm-up")
    args = parser.parse_args(argv)
    one = (env_steps if args.what == "env" else engine_decisions)(args.players)
    for _ in range(WARM_UP + args.count):
        one()


if __name__ == "__main__":
    main()

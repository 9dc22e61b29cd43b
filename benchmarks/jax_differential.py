"""The JAX engine against the core over many steps: the count of mismatches.

Random masked walks of the JAX engine (:func:`troedler.jax.differential.walk`)
for 2, 3 and 4 players with the rulebook's rules, every step compared with the
core: the state, the legal mask, the observation tensors of every seat with
both recalls, rewards and truncation. Then the negative controls: an engine
with a rule broken on purpose (``BROKEN_RULES`` of the tests' ``jax_broken.py``)
must be caught. Prints one JSON line per walk and a summary line last:

    python benchmarks/jax_differential.py --steps 1000000

Needs the ``jax`` and ``rl`` extras.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the tests' broken engines

from tests.jax_broken import BROKEN_RULES
from troedler.jax.differential import walk

CHUNK = 1_000
"""Steps per walk: a walk starts fresh games, and reports as it goes."""


def main(argv: list[str] | None = None) -> None:
    """Run the walks and print what they found."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=1_000_000, help="compared steps in all")
    parser.add_argument("--games", type=int, default=128, help="games run at once")
    parser.add_argument("--control-steps", type=int, default=20_000, help="per negative control")
    args = parser.parse_args(argv)
    if args.steps < 0 or args.games < 1 or args.control_steps < 1:
        parser.error("steps must be 0 or more, games and control steps 1 or more")
    started = time.perf_counter()
    totals = {"steps": 0, "mismatches": 0, "games_finished": 0, "games_truncated": 0}
    per_players = args.steps // 3
    seed = 0
    for players in (2, 3, 4):
        done = 0
        while done < per_players:
            steps = max(1, min(CHUNK, (per_players - done) // args.games))
            seed += 1
            # Half the walks deliver whenever they can, so that games end often.
            report = walk(players, games=args.games, steps=steps, seed=seed, eager=seed % 2 == 0)
            done += report.steps
            for name in totals:
                totals[name] += getattr(report, name)
            line = {"players": players, "seed": seed, "steps": report.steps}
            line |= {"mismatches": report.mismatches, "kinds": report.kinds}
            line |= {"finished": report.games_finished, "truncated": report.games_truncated}
            line |= {"events": report.events, "first": report.first}
            print(json.dumps(line), flush=True)
    controls = {}
    for rule in BROKEN_RULES:
        # Few games, long walks: a game must reach its end for E1 to show.
        games = min(args.games, 16)
        steps = max(1, args.control_steps // games)
        report = walk(2, games=games, steps=steps, seed=1, eager=True, changed=BROKEN_RULES[rule])
        controls[rule] = report.mismatches
        print(json.dumps({"broken": rule, "steps": report.steps, "kinds": report.kinds}))
    summary = totals | {
        "negative_controls_caught": controls,
        "seconds": round(time.perf_counter() - started, 1),
    }
    print(json.dumps(summary), flush=True)


if __name__ == "__main__":
    main()

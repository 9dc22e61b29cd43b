"""``python -m troedler.learning``: train the learned bot, generation by generation.

Commands:

- ``init --players N --out PATH``: write a fresh network (generation 0,
  which plays as the greedy bot does);
- ``generation --players N --work DIR ...``: run or resume one generation
  to its verdict and write its record (``--help`` lists the settings);
- ``verify --players N``: replay a record's SPRT games and check each
  generation's verdict;
- ``curve --players N``: the record's generations as a Markdown table.

Numerical libraries are held to one thread per process (unless the
environment says otherwise): a run's parallelism is its worker processes,
and it shares its machine.
"""

from __future__ import annotations

import os

for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

import argparse  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from collections.abc import Sequence  # noqa: E402
from pathlib import Path  # noqa: E402

from troedler.bots.greedy import GreedyBot  # noqa: E402
from troedler.bots.learned import shipped_path  # noqa: E402
from troedler.bots.value import greedy_network, save_value_network  # noqa: E402
from troedler.core.errors import TroedlerError  # noqa: E402
from troedler.learning.fit import Fitting  # noqa: E402
from troedler.learning.games import line_of  # noqa: E402
from troedler.learning.generation import Settings, run_generation  # noqa: E402
from troedler.learning.labels import Labelling  # noqa: E402
from troedler.learning.sprt import SPRT  # noqa: E402
from troedler.learning.verify import curve, verify_log  # noqa: E402
from troedler.simulation.games import GameSpec  # noqa: E402
from troedler.simulation.runners import run_games  # noqa: E402

RECORD = Path("benchmarks") / "results" / "learned"
"""The record's folder, from the repository's root."""


def _say(text: str) -> None:
    print(time.strftime("%Y-%m-%d %H:%M:%S"), text, flush=True)


def greedy_positions(players: int) -> list[tuple[int, list[int], int]]:
    """Positions of a greedy game for a fresh network's checks: seed, action ids, seat."""
    line = line_of(
        next(run_games([GameSpec(0, 1, ("greedy",) * players, 100, True)], {"greedy": GreedyBot}))
    )
    n = len(line.actions)
    return [
        (line.seed, list(line.actions[:ply]), ply % players) for ply in (n // 4, n // 2, 3 * n // 4)
    ]


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; the exit status."""
    parser = argparse.ArgumentParser(prog="python -m troedler.learning", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    init = commands.add_parser("init", help="write a fresh network (plays as greedy)")
    init.add_argument("--players", type=int, required=True)
    init.add_argument("--out", type=Path, required=True)
    init.add_argument("--seed", type=int, default=0, help="draws the hidden layers")
    one = commands.add_parser("generation", help="run or resume one generation")
    one.add_argument("--players", type=int, required=True)
    one.add_argument("--work", type=Path, required=True, help="checkpoint folder")
    one.add_argument("--record", type=Path, default=RECORD, help=f"record folder ({RECORD})")
    one.add_argument("--weights", type=Path, help="best network (default: the shipped one)")
    one.add_argument("--seed", type=int, default=1)
    one.add_argument("--games", type=int, default=4000, help="most games played (4000)")
    one.add_argument("--play-minutes", type=float, default=75.0)
    one.add_argument("--chunk-games", type=int, default=8)
    one.add_argument("--exploration", type=float, default=0.05)
    one.add_argument("--label-iterations", type=int, default=100)
    one.add_argument("--label-share", type=float, default=0.25)
    one.add_argument("--epochs", type=int, default=30)
    one.add_argument("--train-minutes", type=float, default=15.0)
    one.add_argument("--elo0", type=float, default=0.0)
    one.add_argument("--elo1", type=float, default=20.0)
    one.add_argument("--max-pairs", type=int, default=1500)
    one.add_argument("--test-minutes", type=float, default=45.0)
    one.add_argument("--batch-pairs", type=int, default=10)
    one.add_argument("--measure-deals", type=int, default=100)
    one.add_argument("--workers", type=int, default=1)
    one.add_argument("--scheduler", default=None, help="a Dask scheduler's address")
    check = commands.add_parser("verify", help="replay a record's SPRT games")
    check.add_argument("--players", type=int, required=True)
    check.add_argument("--record", type=Path, default=RECORD)
    table = commands.add_parser("curve", help="the record's generations as a Markdown table")
    table.add_argument("--players", type=int, required=True)
    table.add_argument("--record", type=Path, default=RECORD)
    args = parser.parse_args(argv)
    try:
        if args.command == "init":
            network = greedy_network(args.players, seed=args.seed)
            save_value_network(args.out, network, greedy_positions(args.players))
            _say(f"wrote {args.out}")
            return 0
        if args.command == "curve":
            print(curve(args.record / f"log-{args.players}p.jsonl"))
            return 0
        if args.command == "verify":
            record: Path = args.record
            ok = True
            for generation, same, how in verify_log(
                record / f"log-{args.players}p.jsonl", record / f"games-{args.players}p"
            ):
                ok &= same
                print(f"generation {generation}: {'ok' if same else 'DIFFERS'}: {how}")
            return 0 if ok else 1
        support = (0.0, 0.25, 0.5, 0.75, 1.0)
        settings = Settings(
            players=args.players,
            work=args.work,
            record=args.record,
            weights=args.weights or shipped_path(args.players),
            seed=args.seed,
            games=args.games,
            play_minutes=args.play_minutes,
            chunk_games=args.chunk_games,
            exploration=args.exploration,
            labelling=Labelling(iterations=args.label_iterations, share=args.label_share),
            fitting=Fitting(epochs=args.epochs),
            train_minutes=args.train_minutes,
            sprt=SPRT(elo0=args.elo0, elo1=args.elo1, support=support),
            max_pairs=args.max_pairs,
            test_minutes=args.test_minutes,
            batch_pairs=args.batch_pairs,
            measure_deals=args.measure_deals,
            workers=args.workers,
            scheduler=args.scheduler,
        )
        run_generation(settings, _say)
    except TroedlerError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Is one bot stronger than another? A sequential test over paired deals, as fishtest runs it.

The candidate and the baseline play pairs of games: the same deal (seed)
twice, the seats swapped (4 players: ``A B A B`` then ``B A B A``). After
each batch of pairs the log-likelihood ratio of H1 (the candidate is at
least ``--elo1`` logistic Elo stronger) to H0 (at most ``--elo0``) is
computed with fishtest's generalized SPRT over the pair scores
(``troedler.learning.sprt``); the test stops at the first pair where it
leaves ``[log(beta / (1 - alpha)), log((1 - beta) / alpha)]``::

    .venv/bin/pip install -e '.[rl]'
    .venv/bin/python benchmarks/sprt.py neural greedy --players 2
    .venv/bin/python benchmarks/sprt.py neural:mine.npz neural --elo1 10 --workers 2

With ``--pairs N`` it plays exactly N pairs and reports the score with its
95% interval instead; with ``--table`` each deal is played once per seat,
the candidate alone against a table of baselines (one ``neural`` against
three ``greedy``: an even share is 25%). The last line printed is one JSON
object with every figure.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from typing import Any

from troedler.learning.sprt import (
    BASELINE,
    CANDIDATE,
    SPRT,
    deal_specs,
    game_score,
    interval,
    pair_specs,
    score_to_elo,
)
from troedler.simulation import default_workers
from troedler.simulation.lineup import entrant
from troedler.simulation.runners import run_games


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("candidate", help="the bot under test (a bot text)")
    parser.add_argument("baseline", help="the bot it is tested against")
    parser.add_argument("--players", type=int, default=2, choices=(2, 4))
    parser.add_argument("--elo0", type=float, default=0.0)
    parser.add_argument("--elo1", type=float, default=20.0)
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument("--beta", type=float, default=0.05)
    parser.add_argument("--max-pairs", type=int, default=2000, help="stop undecided after these")
    parser.add_argument("--pairs", type=int, default=None, help="play exactly this many, no test")
    parser.add_argument("--table", action="store_true", help="one candidate against the table")
    parser.add_argument("--batch", type=int, default=20, help="pairs (or deals) per batch")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--max-rounds", type=int, default=100)
    parser.add_argument("--workers", type=int, default=default_workers())
    parser.add_argument("--scheduler", default=None, help="a Dask scheduler's address")
    args = parser.parse_args(argv)
    if args.table and args.pairs is None:
        parser.error("--table measures a share against the table: give --pairs N (deals)")
    makers = {
        CANDIDATE: entrant(args.candidate, args.players).make,
        BASELINE: entrant(args.baseline, args.players).make,
    }
    sprt = SPRT(elo0=args.elo0, elo1=args.elo1, alpha=args.alpha, beta=args.beta)
    limit = args.pairs if args.pairs is not None else args.max_pairs
    seats = args.players if args.table else 2
    scores: list[float] = []
    verdict = None
    started = time.perf_counter()
    while len(scores) < limit and (args.pairs is not None or verdict is None):
        deals = list(range(len(scores), min(limit, len(scores) + args.batch)))
        specs = (deal_specs if args.table else pair_specs)(
            deals, args.players, args.seed, args.max_rounds
        )
        reports = sorted(
            run_games(specs, makers, workers=args.workers, scheduler=args.scheduler),
            key=lambda report: report.index,
        )
        for k in range(len(deals)):
            group = reports[seats * k : seats * k + seats]
            scores.append(sum(game_score(report) for report in group) / seats)
        if args.pairs is None:
            verdict = sprt.run(scores)[0]
        mean, low, high = interval(scores)
        # The test's hypotheses are about pairs, whose even score is 1/2; a
        # table's even share is 1/players, so it gets no log-likelihood ratio.
        test = (
            ""
            if args.table
            else f", llr {sprt.llr(scores):+.2f} in [{sprt.bounds[0]:.2f}, {sprt.bounds[1]:.2f}]"
        )
        print(
            f"{len(scores)} {'deals' if args.table else 'pairs'}: score {mean:.3f} "
            f"({low:.3f}-{high:.3f}){test}",
            flush=True,
        )
    counted = len(scores)
    if args.pairs is None:
        verdict, counted = sprt.run(scores)
    mean, low, high = interval(scores[:counted])
    result: dict[str, Any] = {
        "candidate": args.candidate,
        "baseline": args.baseline,
        "players": args.players,
        "table": args.table,
        "seed": args.seed,
        "verdict": verdict if args.pairs is None else None,
        "deals" if args.table else "pairs": counted,
        "games": counted * seats,
        "score": round(mean, 4),
        "score_95": [round(low, 4), round(high, 4)],
        "seconds": round(time.perf_counter() - started, 1),
    }
    if not args.table:
        result.update(llr=round(sprt.llr(scores[:counted]), 3), elo0=args.elo0, elo1=args.elo1)
        if 0 < mean < 1:
            result["elo"] = round(score_to_elo(mean), 1)
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())

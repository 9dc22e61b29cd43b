"""The ``troedler`` command line."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from troedler.bots import make_bot
from troedler.cli.demo import play_demo
from troedler.cli.play import play_in_terminal
from troedler.cli.replay import read_records, replay_in_terminal
from troedler.cli.simulate import (
    default_workers,
    game_specs,
    progress_bar,
    simulate,
    summarize,
    write_records,
    write_summary,
)
from troedler.cli.stepper import step_in_terminal
from troedler.errors import ConfigurationError, FormatError, TroedlerError
from troedler.records import MAX_SEAT_NAME, GameRecord
from troedler.svg.html import write_replay_html

__all__ = ["main"]

DEFAULT_BOTS = "greedy,random,random,random"


def _bot_list(text: str) -> list[str]:
    names = [name.strip().lower() for name in text.split(",") if name.strip()]
    for name in names:
        try:
            make_bot(name)
        except ConfigurationError as error:
            raise argparse.ArgumentTypeError(str(error)) from None
    return names


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text}")
    return value


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="troedler", description=__doc__)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    demo = commands.add_parser("demo", help="play one game between the bundled bots and print it")
    demo.add_argument(
        "--players", type=int, choices=(2, 3, 4), default=4, help="2, 3 or 4 (default 4)"
    )
    demo.add_argument("--seed", type=int, default=1, help="the game's seed (default 1)")

    play = commands.add_parser("play", help="play a game in the terminal against bots")
    play.add_argument("--players", type=int, choices=(2, 3, 4), default=3, help="default 3")
    play.add_argument("--seed", type=int, default=1, help="the game's seed (default 1)")
    play.add_argument(
        "--bots", type=_bot_list, default=["greedy"], help="the other seats' bots (default greedy)"
    )
    play.add_argument("--seat", type=int, default=0, help="your seat, from 0 (default 0)")
    play.add_argument("--name", default="you", help="your name in the record (default: you)")
    play.add_argument(
        "--save",
        default=None,
        metavar="FILE",
        help="where to save the game's record (default: a new file in this folder)",
    )
    play.add_argument(
        "--recall",
        choices=("perfect", "table"),
        default="perfect",
        help="perfect: see all you have seen; table: only what lies on the table now",
    )

    again = commands.add_parser("replay", help="step through a game record")
    again.add_argument("file", help="a game record, or a file of them from simulate --out")
    again.add_argument("--game", type=int, default=0, help="which game of the file (from 0)")
    again.add_argument(
        "--step",
        action="store_true",
        help="show the position after each move, with back and jump",
    )
    again.add_argument(
        "--html",
        default=None,
        metavar="OUT",
        help="write the game as one self-contained HTML page that replays it in a browser",
    )

    sim = commands.add_parser("simulate", help="play many games between bots and summarize them")
    sim.add_argument("--games", type=_positive, default=300, help="how many games (default 300)")
    sim.add_argument(
        "--players",
        type=int,
        choices=(2, 3, 4),
        default=None,
        help="players per game (default: as many as --bots names)",
    )
    sim.add_argument(
        "--bots",
        type=_bot_list,
        default=_bot_list(DEFAULT_BOTS),
        help=f"bots in seat order, rotated each game (default {DEFAULT_BOTS}); "
        "fewer names than players are repeated; ismcts:N searches N iterations a move",
    )
    sim.add_argument("--seed", type=int, default=1, help="the run's seed (default 1)")
    sim.add_argument(
        "--workers",
        type=_positive,
        default=None,
        help="local worker processes (default: all cores)",
    )
    sim.add_argument(
        "--scheduler",
        default=None,
        metavar="ADDRESS",
        help="run the games on the Dask cluster at this scheduler address",
    )
    sim.add_argument(
        "--out",
        default=None,
        metavar="FILE",
        help="write every game record to FILE, one JSON object per line",
    )
    sim.add_argument(
        "--max-rounds",
        type=_positive,
        default=100,
        help="stop a game after this round; it counts as unfinished (default 100)",
    )
    sim.add_argument("--json", action="store_true", help="print the summary as JSON")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``troedler`` command; the exit status."""
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        if args.command == "demo":
            play_demo(args.players, args.seed)
            return 0
        if args.command == "simulate":
            return _simulate(args)
        if args.command == "play":
            if not 0 <= args.seat < args.players:
                parser.error(f"--seat must be 0 to {args.players - 1}")
            if not 0 < len(args.name) <= MAX_SEAT_NAME or not args.name.isprintable():
                parser.error(f"--name must be 1 to {MAX_SEAT_NAME} printable characters")
            return play_in_terminal(
                args.players,
                args.seed,
                args.bots,
                args.seat,
                args.recall,
                save=args.save,
                name=args.name,
            )
        if args.command == "replay":
            if args.html:
                return _replay_html(args.file, args.game, args.html)
            if args.step:
                return step_in_terminal(args.file, args.game)
            return replay_in_terminal(args.file, args.game, False)
    except TroedlerError as error:
        print(f"troedler: {error}", file=sys.stderr)
        return 2
    parser.print_help(sys.stderr)
    return 2


def _replay_html(path: str, game: int, out: str) -> int:
    texts = read_records(path)
    if not 0 <= game < len(texts):
        raise FormatError(path, "", f"holds {len(texts)} game(s); there is no game {game}")
    try:
        write_replay_html(GameRecord.from_json(texts[game]), out)
    except OSError as error:
        print(f"troedler: cannot write {out}: {error.strerror}", file=sys.stderr)
        return 2
    print(f"Wrote {out}: open it in a browser.")
    return 0


def _simulate(args: argparse.Namespace) -> int:
    players = args.players or len(args.bots)
    bots = [args.bots[seat % len(args.bots)] for seat in range(players)]
    specs = game_specs(args.games, bots, args.seed, args.max_rounds, args.out is not None)
    results = simulate(
        specs,
        workers=args.workers or default_workers(),
        scheduler=args.scheduler,
        progress=None if args.json else progress_bar(),
    )
    if args.out:
        write_records(results, args.out)
    summary = summarize(results)
    if args.json:
        print(json.dumps(summary, indent=1))
    else:
        write_summary(summary)
    return 0

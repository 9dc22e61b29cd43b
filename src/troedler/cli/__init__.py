"""The ``troedler`` command line."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import secrets
import signal
import sys
from collections.abc import Sequence

from troedler import __version__
from troedler.bots.program import MOVE_TIME
from troedler.cli.demo import play_demo
from troedler.cli.play import SEEDS, play_in_terminal
from troedler.cli.replay import record_of, replay_in_terminal
from troedler.cli.serve import add_serve, serve_command
from troedler.cli.simulate import (
    Output,
    add_working_directory,
    bots_option,
    play_and_keep,
    progress_bar,
    run_settings,
    unfinished,
    write_summary,
)
from troedler.cli.stepper import step_in_terminal
from troedler.core.errors import ConfigurationError, TroedlerError
from troedler.core.rulebook import PLAYER_COUNTS
from troedler.core.state import RECALLS
from troedler.io.position_text import from_position_text
from troedler.io.records import MAX_SEAT_NAME
from troedler.simulation.games import GameReport
from troedler.simulation.runners import check_scheduler_address
from troedler.simulation.tournament import Tournament, default_workers

__all__ = ["main"]

DESCRIPTION = (
    "troedler: play, replay and simulate games of Die Tr\u00f6dler aus den Highlands. "
    "Run 'troedler COMMAND --help' for a command's options."
)
DEFAULTS = {
    "bots": ["greedy", "random", "random", "random"],
    "players": None,
    "seed": 1,
    "max_rounds": 100,
    "move_time_limit": None,
    "games": 300,
}
"""simulate's settings when neither given nor resumed (players: one per bot)."""


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, got {text!r}")
    return value


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, got {text!r}")
    return value


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="troedler", description=DESCRIPTION)
    parser.add_argument("--version", action="version", version=f"troedler {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    demo = commands.add_parser("demo", help="play one game between the bundled bots and print it")
    demo.add_argument(
        "--players", type=int, choices=PLAYER_COUNTS, default=4, help="2, 3 or 4 (default 4)"
    )
    demo.add_argument("--seed", type=int, default=1, help="the game's seed (default 1)")

    play = commands.add_parser("play", help="play a game in the terminal against bots")
    play.add_argument("--players", type=int, choices=PLAYER_COUNTS, default=3, help="default 3")
    play.add_argument(
        "--seed",
        type=int,
        default=None,
        help="the game's seed, to deal a game again (default: a fresh one, shown and saved)",
    )
    play.add_argument(
        "--bots",
        metavar="BOT,BOT,...",
        default=None,
        help="the other seats' bots in seat order, repeated as needed (default greedy; "
        "with --resume: the bundled bots the record's seats are named after, and any "
        "seat's bot may be replaced); as in simulate, a bot is random, greedy, ismcts, "
        "ismcts:N, ismcts:N:neural (guided by the learned networks), neural (the learned "
        "bot, 2 or 4 players), a network's weight file as "
        "neural:PATH, your own as module:Class or "
        "module:Class:ARG (the module looked for in the current directory too), or a "
        "program as exec:COMMAND or exec:SECONDS:COMMAND "
        f"(SECONDS a move, default {MOVE_TIME:g}; docs/protocol.md)",
    )
    play.add_argument(
        "--move-time-limit",
        type=_seconds,
        metavar="SECONDS",
        help="a bot that takes longer for a move stops the game, which is saved; it is "
        f"also a program bot's time for a move (default: no limit, {MOVE_TIME:g} s "
        "for a program bot)",
    )
    play.add_argument("--seat", type=int, default=0, help="your seat, from 0 (default 0)")
    play.add_argument("--name", default="you", help="your name in the record (default: you)")
    play.add_argument(
        "--save",
        default=None,
        metavar="FILE",
        help="where to save the game's record as it goes; an existing file is refused "
        "(default: a new file in this folder)",
    )
    play.add_argument(
        "--resume",
        "--load",
        dest="resume",
        default=None,
        metavar="FILE",
        help="continue the unfinished game saved in FILE, saving it there again",
    )
    play.add_argument(
        "--position", metavar="TEXT", help="start from a position text (docs/format.md)"
    )
    play.add_argument(
        "--recall",
        choices=RECALLS,
        default="perfect",
        help="perfect: see all you have seen; table: only what lies on the table now",
    )
    play.add_argument(
        "--browser",
        action="store_true",
        help="play in a web browser: the game server, run privately on 127.0.0.1 "
        "(needs troedler[server]); --save and --resume name its store, an SQLite file",
    )
    play.add_argument(
        "--no-open",
        dest="open_browser",
        action="store_false",
        help="with --browser: only print the game's address, to open in a browser of "
        "your choice (default: open it in the system's browser)",
    )

    add_serve(commands)

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

    sim = commands.add_parser(
        "simulate",
        help="play many games between bots and summarize them",
        description="Play many games between bots, seats rotated each game, and summarize them. "
        "Ctrl-C stops the run and keeps every finished game; --resume continues it.",
    )
    sim.add_argument("--games", type=_positive, help="how many games (default 300)")
    sim.add_argument(
        "--players",
        type=int,
        choices=PLAYER_COUNTS,
        help="players per game (default: as many as --bots names)",
    )
    sim.add_argument(
        "--bots",
        metavar="BOT,BOT,...",
        help="bots in seat order, rotated each game (default greedy,random,random,random, "
        "its first seats with fewer --players); "
        "fewer bots than players are repeated. A bot is random, greedy, ismcts or "
        "ismcts:N (N iterations a move), ismcts:N:neural (guided by the learned networks), "
        "neural (the learned bot, 2 or 4 players), a "
        "network's weight file as neural:PATH, or your "
        "own as module:Class or module:Class:ARG "
        "(Class called with the text ARG; the module is looked for in the current directory "
        "too), or a program that speaks docs/protocol.md as exec:COMMAND or "
        f"exec:SECONDS:COMMAND (SECONDS a move, default {MOVE_TIME:g})",
    )
    sim.add_argument("--seed", type=int, help="the run's seed (default 1)")
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
        help="run the games on the Dask cluster whose scheduler is at ADDRESS (tcp://HOST:PORT)",
    )
    sim.add_argument(
        "--out",
        default=None,
        metavar="FILE",
        help="write every game record to FILE as it finishes, one per line "
        "(with FILE.journal beside it, for --resume)",
    )
    sim.add_argument(
        "--resume",
        action="store_true",
        help="continue the interrupted run of --out FILE with its own settings",
    )
    sim.add_argument(
        "--overwrite",
        action="store_true",
        help="replace the games already in --out FILE (without it such a file is refused)",
    )
    sim.add_argument(
        "--drop-broken",
        action="store_true",
        help="with --resume: drop a last game that a crash cut short, and play it again",
    )
    sim.add_argument(
        "--max-rounds",
        type=_positive,
        help="stop a game after this round; it counts as capped, not finished (default 100)",
    )
    sim.add_argument(
        "--move-time-limit",
        type=_seconds,
        metavar="SECONDS",
        help="a bot that takes longer for a move forfeits the game; it is also a program "
        f"bot's time for a move (default: no limit, {MOVE_TIME:g} s for a program bot)",
    )
    sim.add_argument("--json", action="store_true", help="print the summary as JSON")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``troedler`` command; the exit status."""
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        status = _command(parser, args)
        sys.stdout.flush()  # here, where a reader that went away can be answered
    except TroedlerError as error:
        print(f"troedler: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # before a run began, or outside one
        print("troedler: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader went away (troedler replay FILE | head)
        _quiet_stdout()
        return 141
    return status


def _command(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    if args.command == "demo":
        play_demo(args.players, args.seed)
        return 0
    if args.command == "simulate":
        return _simulate(args)
    if args.command == "play":
        if args.position is not None:
            if args.resume is not None or args.browser:
                raise ConfigurationError(
                    "--position starts a new game in the terminal: not with --resume or --browser"
                )
            args.players = from_position_text(args.position).num_players
        if args.resume is None and not 0 <= args.seat < args.players:
            raise ConfigurationError(
                f"--seat must be 0 to {args.players - 1}: a game of {args.players} players "
                f"has seats {', '.join(map(str, range(args.players - 1)))} "
                f"and {args.players - 1}, not {args.seat}"
            )
        if not 0 < len(args.name) <= MAX_SEAT_NAME or not args.name.isprintable():
            raise ConfigurationError(f"--name must be 1 to {MAX_SEAT_NAME} printable characters")
        if args.browser:
            return _play_in_browser(args)
        if not args.open_browser:
            raise ConfigurationError("--no-open is for --browser: the terminal game opens nothing")
        return play_in_terminal(
            args.players,
            args.seed,
            bots_option(args.bots) if args.bots is not None else None,
            args.seat,
            args.recall,
            save=args.save,
            name=args.name,
            resume=args.resume,
            position=args.position,
            move_time_limit=args.move_time_limit,
        )
    if args.command == "serve":
        return serve_command(args)
    if args.command == "replay":
        if args.html:
            return _replay_html(args.file, args.game, args.html)
        if args.step:
            return step_in_terminal(args.file, args.game)
        return replay_in_terminal(args.file, args.game, False)
    parser.print_help(sys.stderr)
    return 2


def _quiet_stdout() -> None:
    """Send what is left for standard output nowhere: its reader is gone, and
    Python would otherwise complain when it flushes it at exit."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())


def _play_in_browser(args: argparse.Namespace) -> int:
    """``play --browser``: the game server, run privately (troedler.server.private)."""
    try:
        from troedler.server.private import play_in_browser  # noqa: PLC0415 - an optional extra
    except ImportError:
        print("troedler: play --browser needs the server extra: pip install -e '.[server]'",
              file=sys.stderr)  # fmt: skip
        return 2
    return play_in_browser(
        args.players,
        args.seed if args.seed is not None else secrets.randbelow(SEEDS),
        bots_option(args.bots) if args.bots is not None else ["greedy"],
        args.seat,
        args.recall,
        save=args.save,
        name=args.name,
        resume=args.resume,
        move_time_limit=args.move_time_limit,
        open_browser=args.open_browser,
    )


def _replay_html(path: str, game: int, out: str) -> int:
    from troedler.server.replay import write_replay_html  # noqa: PLC0415 - the page, when asked

    record = record_of(path, game)
    try:
        write_replay_html(record, out)
    except OSError as error:
        print(f"troedler: cannot write {out}: {error.strerror}", file=sys.stderr)
        return 2
    print(f"Wrote {out}: open it in a browser.")
    return 0


def _simulate(args: argparse.Namespace) -> int:
    if args.overwrite and args.resume:
        raise ConfigurationError("--overwrite replaces the run that --resume continues: give one")
    if args.drop_broken and not args.resume:
        raise ConfigurationError("--drop-broken drops a broken last game with --resume only")
    given = {name: getattr(args, name) for name in DEFAULTS}
    if args.bots is not None:
        given["bots"] = bots_option(args.bots)
    settings = run_settings(given, args.out, args.resume, DEFAULTS)
    if args.bots is None and not args.resume and settings["players"] is not None:
        # --players 2 alone: the default line-up's first seats, greedy and random.
        settings["bots"] = settings["bots"][: settings["players"]]
    if settings["players"] is None:
        settings["players"] = len(settings["bots"])
    if args.scheduler is not None:
        check_scheduler_address(args.scheduler)
    add_working_directory()
    try:
        run = Tournament(
            settings["bots"],
            players=settings["players"],
            seed=settings["seed"],
            max_rounds=settings["max_rounds"],
            move_time_limit=settings["move_time_limit"],
        )
    except ConfigurationError as error:
        raise ConfigurationError(f"--bots: {error}") from None
    output = (
        Output(
            args.out,
            settings,
            args.resume,
            overwrite=args.overwrite,
            drop_broken=args.drop_broken,
        )
        if args.out
        else None
    )
    reports: list[GameReport] = list(output.done) if output else []
    total = settings["games"]
    progress = None if args.json else progress_bar()
    games = run.play(
        unfinished(reports, total),
        workers=args.workers or default_workers(),
        scheduler=args.scheduler,
        keep_records=output is not None,
    )
    complete = False
    try:
        if progress is not None and reports:
            progress(len(reports), total)
        play_and_keep(games, reports, output, progress, total)
        complete = True
    except KeyboardInterrupt:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C must not cut the summary
        games.close()
        if progress is not None and sys.stderr.isatty():
            sys.stderr.write("\n")
    finally:
        games.close()
        if output is not None:
            output.close(complete)
    summary = run.summarize(reports)
    if args.json:
        print(json.dumps(summary.to_dict(), indent=1))
    else:
        write_summary(summary)
    if complete:
        return 0
    kept = f"; they are in {args.out}: continue with --resume" if args.out else ""
    print(f"troedler: interrupted after {len(reports)} of {total} games{kept}", file=sys.stderr)
    return 130

"""The ``troedler`` command line."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from troedler.cli.demo import play_demo

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``troedler`` command; the exit status."""
    parser = argparse.ArgumentParser(prog="troedler", description=__doc__)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    demo = commands.add_parser("demo", help="play one game between simple players and print it")
    demo.add_argument(
        "--players", type=int, choices=(2, 3, 4), default=4, help="2, 3 or 4 (default 4)"
    )
    demo.add_argument("--seed", type=int, default=1, help="the game's seed (default 1)")
    args = parser.parse_args(argv)
    if args.command == "demo":
        play_demo(args.players, args.seed)
        return 0
    parser.print_help(sys.stderr)
    return 2

"""A bot's decisions, to be counted under callgrind.

Instruction counts do not depend on the machine's load, so they compare two
versions of a bot where its timings are noisy. The bot plays ``--games``
games against greedy bots, its decisions are kept (each decision with more
than one legal move: the observation and the moves), and then it decides
them all again ``passes`` times, each with the random generator it had.
Count a run of N passes and a run of 0 and divide the difference by N and
by the decisions (printed) to get the instructions of one decision; the
games and the start of Python cancel out::

    valgrind --tool=callgrind --callgrind-out-file=/dev/null \\
        python benchmarks/bot_instructions.py neural 4 2 2>&1 | grep Collected
    valgrind --tool=callgrind --callgrind-out-file=/dev/null \\
        python benchmarks/bot_instructions.py neural 4 0 2>&1 | grep Collected

The bot is any bot text (``neural``, ``greedy``, ``ismcts:25``). Decisions
vary a lot in cost (a turn of many cards against one forced move), so
compare versions over the same games. ``neural`` needs the ``rl`` extra.
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Sequence

from troedler.bots import Bot, GreedyBot, play_game
from troedler.bots.base import check_players
from troedler.core.errors import TroedlerError
from troedler.core.moves import Move
from troedler.seat import Observation
from troedler.simulation.lineup import bot_from_text


class _Keeper:
    """Plays as ``bot`` does and keeps each decision with a choice."""

    def __init__(self, bot: Bot) -> None:
        self.bot = bot
        self.name = getattr(bot, "name", "bot")
        self.kept: list[tuple[Observation, Sequence[Move], int]] = []

    def check_players(self, num_players: int) -> None:
        check_players(self.bot, num_players)

    def choose(self, observation: Observation, legal: Sequence[Move], rng: random.Random) -> Move:
        index = len(self.kept)
        if len(legal) > 1:
            self.kept.append((observation, legal, index))
        return self.bot.choose(observation, legal, random.Random(index + 1))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("bot", help="the bot whose decisions are counted (a bot text)")
    parser.add_argument("players", type=int, choices=(2, 3, 4))
    parser.add_argument("passes", type=int, help="times every kept decision is decided again")
    parser.add_argument("--games", type=int, default=2, help="games played to keep decisions")
    parser.add_argument("--seed", type=int, default=7000)
    args = parser.parse_args(argv)
    try:
        keeper = _Keeper(bot_from_text(args.bot))
    except TroedlerError as error:
        parser.error(str(error))
    for game in range(args.games):
        play_game([keeper] + [GreedyBot()] * (args.players - 1), seed=args.seed + game)
    for _ in range(args.passes):
        for observation, legal, index in keeper.kept:
            keeper.bot.choose(observation, legal, random.Random(index + 1))
    print(f"{len(keeper.kept)} decisions kept, each decided {args.passes} times more")


if __name__ == "__main__":
    main()

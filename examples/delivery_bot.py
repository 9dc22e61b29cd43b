#!/usr/bin/env python3
"""A troedler bot in plain Python, speaking the bot protocol (docs/protocol.md).

It imports nothing from troedler: it reads one JSON message a line on stdin
and answers one a line on stdout. Its strategy: deliver the most valuable
order it can, else take a good, else anything but ending the turn, with ties
broken by a generator with a fixed seed, so that a game replays exactly.

    troedler simulate --bots 'exec:python3 examples/delivery_bot.py,greedy' --games 10
"""

import json
import random
import sys

NAME = "delivery-py"


def score(move: str) -> float:
    """How much the bot likes a move, from its notation alone."""
    words = move.split()
    if words[0] == "deliver":  # "deliver AAA:6" or "deliver AAA:6 with AAP"
        return 100 + int(words[1].partition(":")[2] or 0)
    if any(word.startswith("+") for word in words):
        return 10
    if words[0] == "end":
        return 0
    return 1


def choose(message: dict, rng: random.Random) -> str:
    """The best-scored legal move, ties broken at random."""
    legal = message["legal_moves"]
    best = max(score(move) for move in legal)
    return rng.choice([move for move in legal if score(move) == best])


def main() -> None:
    # One process plays one game: a fixed seed makes the same game replay.
    rng = random.Random(NAME)  # noqa: S311 - a game's chance, not a secret
    for line in sys.stdin:
        message = json.loads(line)
        kind = message["type"]
        if kind == "hello":
            answer = {"type": "hello", "protocol": 1, "name": NAME}
        elif kind == "move":
            answer = {"type": "move", "move": choose(message, rng)}
        elif kind == "end":
            print(f"game over: {message['reason']} {message['result']}", file=sys.stderr)
            return
        else:
            continue  # a message of a later protocol version: ignore it
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()

"""``troedler play``: a person plays in the terminal against bots."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from troedler.bots import Bot, make_bot
from troedler.bots.base import bot_rng
from troedler.cli.demo import write_scores
from troedler.cli.render import render_moves, render_observation
from troedler.errors import TroedlerError
from troedler.legal import apply_move
from troedler.moves import Move
from troedler.notation import parse_move
from troedler.setup import new_game
from troedler.state import GameState
from troedler.views import Recall, observe

__all__ = ["play_in_terminal"]

HELP = """Type the number of a move, or the move in notation (for example
'take 2', 'bridge Knockando +V', 'deliver AAA:6 with AAP', 'end', and over
the hand limit after 'end', 'discard ferry').
'moves' lists your moves again, 'help' shows this, 'quit' leaves the game."""


def play_in_terminal(
    players: int,
    seed: int,
    bots: Sequence[str],
    seat: int,
    recall: Recall,
    read: Callable[[str], str] = input,
    write: Callable[[str], None] = print,
) -> int:
    """Play a game with a person at ``seat`` and ``bots`` in the other seats; exit status."""
    others = [make_bot(bots[i % len(bots)]) for i in range(players - 1)]
    names = []
    seated: list[Bot | None] = []
    for s in range(players):
        if s == seat:
            names.append("you")
            seated.append(None)
        else:
            other = others.pop(0)
            names.append(f"{other.name} {s}")
            seated.append(other)
    state = new_game(players, seed=seed)
    # Seeded as in play_game, so a game can be replayed with scripted input.
    rngs = [bot_rng(seed, s) for s in range(players)]
    write(f"You are seat {seat}; {HELP}")
    while not state.is_over:
        mover = state.current_player
        assert mover is not None  # a game that is not over has a player to move
        seen = observe(state, mover, recall=recall if mover == seat else "perfect")
        bot = seated[mover]
        if bot is not None:
            move = bot.choose(seen, seen.legal_moves, rngs[mover])
            write(f"{names[mover]}: {move}")
            state = apply_move(state, move)
            continue
        write("")
        write(render_observation(seen, names))
        write("Your moves:")
        write(render_moves(seen.legal_moves))
        chosen = _ask(seen.legal_moves, state, read, write)
        if chosen is None:
            write("You left the game.")
            return 0
        state = apply_move(state, chosen)
    write("")
    write(f"Game over after round {state.round}.")
    write_scores(state, write)
    return 0


def _ask(
    moves: Sequence[Move],
    state: GameState,
    read: Callable[[str], str],
    write: Callable[[str], None],
) -> Move | None:
    while True:
        try:
            text = read("your move> ").strip()
        except EOFError:
            return None
        if text.lower() in ("quit", "q", "exit"):
            return None
        if text.lower() in ("help", "?"):
            write(HELP)
            continue
        if text.lower() == "moves":
            write(render_moves(moves))
            continue
        if text.isdecimal():
            number = int(text)
            if 1 <= number <= len(moves):
                return moves[number - 1]
            write(f"There is no move {number}: choose 1 to {len(moves)}.")
            continue
        try:
            move = parse_move(text, state)
        except TroedlerError as error:
            write(f"That is not a move: {error}")
            continue
        if move not in moves:
            write(f"{move} is not allowed now; 'moves' lists what is.")
            continue
        return move

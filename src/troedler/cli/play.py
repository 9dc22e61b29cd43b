"""``troedler play``: a person plays in the terminal against bots.

Each of the person's decisions gets one screen (80 by 24) with the position
and the moves grouped by kind. A move is typed by number or in notation,
with line editing and history where the terminal has them; a refused move
is answered with the engine's reason. Every game, finished or left, is saved
as a record that ``troedler replay`` reads.
"""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from troedler.bots import Bot, make_bot
from troedler.bots.base import bot_rng
from troedler.cli.render import group_moves, render_scores, render_screen, wants_colour
from troedler.errors import ConfigurationError, IllegalMoveError, TroedlerError
from troedler.legal import apply_move
from troedler.moves import Move
from troedler.notation import parse_move
from troedler.position import from_position_text, position_text
from troedler.records import GameRecord
from troedler.setup import new_game
from troedler.state import GameState
from troedler.svg.view import view_of
from troedler.views import Observation, Recall, observe

__all__ = ["HELP", "play_in_terminal"]

HELP = """How to play: type the number of a move, or the move in notation:
  take 2 · bridge Knockando +V · feed Rothes · extra +A · feed +A ·
  deliver AAB:5 · deliver AAB:5 with AAP · end · discard ferry
Goods: A anvil, B bottle, C chair, U cup, P pot, V vase; +V takes a vase.
A route card moves your cart along a route of its kind; on arrival you may
take one good. Deliver a goods request where the village holds no goods.
Special feed moves along any route, takes a good, or replaces one good of a
delivery; each feed used is one damage, and so is every two goods still held.
After your turn you keep at most four cards. The game ends with the round in
which someone has 5 fulfilled requests (6 with three players, 7 with two).
Whoever alone has the most damage cannot win; the most points win.
In the move list, 3)+A is move 3, taking an anvil, and 3)· takes nothing.
Commands: 'moves' lists all moves, 'help' this text, 'position' prints the
whole position as text (every hand: for a bug report), 'quit' (or Ctrl-D,
Ctrl-C) leaves; the game is saved either way."""

CLEAR = "\x1b[H\x1b[2J"


def play_in_terminal(
    players: int,
    seed: int,
    bots: Sequence[str],
    seat: int,
    recall: Recall,
    read: Callable[[str], str] = input,
    write: Callable[[str], None] = print,
    *,
    save: str | Path | None = None,
    name: str = "you",
    screen: bool | None = None,
    position: str | None = None,
) -> int:
    """Play a game with a person at ``seat`` and ``bots`` in the other seats; exit status.

    The record is written to ``save`` (default: a new file in the current
    folder) when the game ends or is left. ``screen`` clears and redraws a
    whole screen for each decision, in colour (default: when standard output
    is a terminal). ``position`` starts from a position text instead of a
    new game; such a game is not saved as a record, its last position is
    printed instead.
    """
    if screen is None:
        screen = sys.stdout.isatty()
    colour = screen and wants_colour(sys.stdout)
    if screen and read is input:
        _enable_line_editing()
    others = [make_bot(bots[i % len(bots)]) for i in range(players - 1)]
    names: list[str] = []
    seated: list[Bot | None] = []
    for s in range(players):
        if s == seat:
            names.append(name)
            seated.append(None)
        else:
            other = others.pop(0)
            names.append(f"{other.name} {s}")
            seated.append(other)
    first = new_game(players, seed=seed) if position is None else from_position_text(position)
    if first.rules.explicit_chance or first.num_players != players:
        raise ConfigurationError(f"play needs a seeded position of {players} players")
    path = Path(save) if save is not None else _default_path(seed)
    game = _Game(first, names)
    rngs = [bot_rng(seed, s) for s in range(players)]
    write(f"You are seat {seat} ({name}); type 'help' to learn the moves.")
    status = 0
    try:
        while not game.state.is_over:
            state = game.state
            mover = state.current_player
            assert mover is not None  # a game that is not over has a player to move
            bot = seated[mover]
            if bot is not None:
                seen = observe(state, mover)
                game.play(bot.choose(seen, seen.legal_moves, rngs[mover]), mover, shown=True)
                continue
            seen = observe(state, mover, recall=recall)
            chosen = _ask(game, seen, read, write, screen, colour)
            if chosen is None:
                write("You left the game.")
                break
            game.play(chosen, mover)
    except KeyboardInterrupt:
        write("\nYou left the game (Ctrl-C).")
        status = 130
    else:
        if game.state.is_over:
            write("")
            write(f"Game over after round {game.state.round}.")
            write(render_scores(game.state, names, colour))
    if position is None:
        game.save(path, write)
    else:
        write(f"A game from a position is not saved; it stopped at: {position_text(game.state)}")
    return status


class _Game:
    """The game so far: its first state, the moves made, and what others did lately."""

    def __init__(self, first: GameState, names: Sequence[str]) -> None:
        self.first = first
        self.state = first
        self.names = list(names)
        self.moves: list[Move] = []
        self.recent: list[str] = []

    def play(self, move: Move, mover: int, *, shown: bool = False) -> None:
        """Make ``move`` for seat ``mover``; ``shown`` lists it on the next screen."""
        self.state = apply_move(self.state, move)
        self.moves.append(move)
        if shown:
            self.recent.append(f"{self.names[mover]}: {move}")

    def save(self, path: Path, write: Callable[[str], None]) -> None:
        """Write the game's record to ``path`` and say where it is."""
        record = GameRecord.of_game(self.first, self.moves, seats=self.names)
        try:
            path.write_text(record.to_json(), encoding="utf-8")
        except OSError as error:
            write(f"Could not save the game to {path}: {error.strerror}")
            return
        write(f"Saved the game to {path}; watch it again with: troedler replay {path}")


def _default_path(seed: int) -> Path:
    return Path(f"troedler-game-{time.strftime('%Y%m%d-%H%M%S')}-seed{seed}.json")


def _enable_line_editing() -> None:
    """Give ``input`` line editing and history, where Python has readline."""
    with contextlib.suppress(ImportError):  # a Python built without readline
        import readline  # noqa: F401, PLC0415 (importing it is what switches editing on)


def _ask(
    game: _Game,
    seen: Observation,
    read: Callable[[str], str],
    write: Callable[[str], None],
    screen: bool,
    colour: bool,
) -> Move | None:
    """The person's move, asked for until one is legal; None if they leave."""
    moves = seen.legal_moves
    numbered = [move for _, members in group_moves(moves) for _, move in members]
    state = game.state
    names = game.names
    message = ""
    recent = "Since your last move: " + "; ".join(game.recent) if game.recent else ""
    game.recent.clear()
    while True:
        page = render_screen(
            view_of(seen),
            names,
            colour=colour,
            you=seen.seat,
            moves=numbered,
            recent=recent,
            message=message,
        )
        write((CLEAR if screen else "") + page)
        message = ""
        try:
            text = read("your move> ").strip()
        except EOFError:
            return None
        lowered = text.lower()
        if lowered in ("quit", "q", "exit"):
            return None
        if lowered in ("help", "?", "h"):
            write(HELP)
            if screen:
                try:
                    read("(Enter: back to the game) ")
                except EOFError:
                    return None
            continue
        if lowered == "position":
            write(position_text(state))
            if screen:
                with contextlib.suppress(EOFError):
                    read("(Enter: back to the game) ")
            continue
        if lowered == "moves":
            for label, members in group_moves(moves):
                write(f"{label}: " + ", ".join(f"{n} {m}" for n, m in members))
            if screen:
                try:
                    read("(Enter: back to the game) ")
                except EOFError:
                    return None
            continue
        if not text:
            continue
        if text.isdecimal():
            number = int(text)
            if 1 <= number <= len(numbered):
                return numbered[number - 1]
            message = f"There is no move {number}: choose 1 to {len(numbered)}."
            continue
        try:
            move = parse_move(text, state)
        except TroedlerError as error:
            message = f"That is not a move: {error}"
            continue
        if move in moves:
            return move
        try:
            apply_move(state, move)
        except IllegalMoveError as error:
            message = f"Not allowed: {error}"
        else:  # pragma: no cover - legal_moves and apply_move always agree
            message = f"{move} is not allowed now."

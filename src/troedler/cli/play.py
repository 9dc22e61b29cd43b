"""``troedler play``: a person plays in the terminal against bots.

Each of the person's decisions gets one screen (80 by 24) with the position
and the moves grouped by kind. A move is typed by number or in notation,
with line editing and history where the terminal has them; a refused move
is answered with the engine's reason. Every game, finished or left, is saved
as a record that ``troedler replay`` reads.
"""

from __future__ import annotations

import contextlib
import os
import random
import secrets
import shutil
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from troedler.bots import BOTS, Bot
from troedler.bots.base import bot_rng, check_players, limit_move_times, tell_game_over
from troedler.bots.failure import BotFailure, ask_bot, failure_message, resume_advice
from troedler.cli.replay import broken_json
from troedler.core.chance import new_game, seed_answers
from troedler.core.errors import ConfigurationError, FormatError, IllegalMoveError, TroedlerError
from troedler.core.legal import apply_move, legal_moves
from troedler.core.moves import Move
from troedler.core.scoring import outcome
from troedler.core.state import GameState
from troedler.io.notation import parse_move
from troedler.io.position_text import from_position_text, position_text
from troedler.io.records import GameRecord, replay
from troedler.seat import Observation, Recall, observe
from troedler.simulation.lineup import bot_from_text
from troedler.text.render import (
    HEIGHT,
    WIDTH,
    command_lines,
    group_moves,
    pile_numbers,
    plural,
    render_scores,
    render_screen,
    wants_colour,
    wrap,
)

__all__ = ["HELP", "SEEDS", "play_in_terminal", "too_small", "whole_position_wanted"]

SEEDS = 10**9
"""A new game's seed is drawn from 0 to ``SEEDS - 1`` unless one is given."""

HELP = """How to play: type the number of a move, or the move in notation:
  take 2 · bridge Knockando +V · feed Rothes · extra +A · feed +A ·
  deliver AAB:5 · deliver AAB:5 with AAP · end · discard ferry
Goods: A anvil, B bottle, C chair, U cup, P pot, V vase; +V takes a vase.
A route card moves your cart along a route of its kind; on arrival you may
take one good. Deliver a goods request where the village holds no goods.
Special feed moves along any route, takes a good, or replaces one good of a
delivery. Damage is one per feed used, plus half the goods still held,
rounded up (E2). After your turn you keep at most four cards, discarding in
hand order (T7). The game ends with the round in which someone has 5
fulfilled requests (6 with three players, 7 with two). With three or four
players, whoever alone has the most damage cannot win (E3); with two, only a
player with 3 or more damage above the other's (E4). The most points win.
In the move list, 3)+A is move 3, taking an anvil, and 3)· takes nothing;
dealer piles go by their own numbers: 1 takes pile 1.
Commands: 'moves' lists all moves, 'history' (or 'log') the whole game so
far, 'help' this text, 'position' prints the whole position as text for a
bug report (it asks first: it shows every hand and the cards to come),
'quit' (or Ctrl-D, Ctrl-C) leaves; the game is saved as it goes, and
'troedler play --resume FILE' continues it."""

CLEAR = "\x1b[H\x1b[2J"

POSITION_WARNING = (
    "The whole position shows the seed, every hand and the face-down game-round pile in "
    "order: the rest of this game. Show it anyway? (yes/no) "
)
"""The question before the whole position of a game that is not over is shown."""


def whole_position_wanted(read: Callable[[str], str]) -> bool:
    """Whether the person, warned that it shows what their seat may not know,
    still wants the whole position of a game that is not over."""
    try:
        return read(POSITION_WARNING).strip().lower() in ("yes", "y")
    except EOFError:
        return False


def play_in_terminal(
    players: int,
    seed: int | None,
    bots: Sequence[str] | None,
    seat: int,
    recall: Recall,
    read: Callable[[str], str] = input,
    write: Callable[[str], None] = print,
    *,
    save: str | Path | None = None,
    name: str = "you",
    screen: bool | None = None,
    resume: str | Path | None = None,
    position: str | None = None,
    move_time_limit: float | None = None,
) -> int:
    """Play a game with a person at ``seat`` and ``bots`` in the other seats; exit status.

    ``bots`` are texts as ``simulate --bots`` takes them (default greedy).
    ``seed`` deals the game (None: a fresh one, drawn and shown).
    The record is written to ``save`` (default: a new file in the current
    folder; an existing file is refused) when the game starts and before
    each of the person's decisions, and when it ends or is left. ``resume``
    names a saved unfinished game to continue (saved there again unless
    ``save`` is given); its players and seed are the record's, the person's
    seat is the one named ``name`` (else ``seat``), and the bots, unless
    given, are the bundled ones the seats are named after. ``screen`` clears
    and redraws a whole screen for each decision, in colour (default: when
    standard output is a terminal). ``position`` starts from a position text
    instead of a new game; such a game is not saved as a record (a record
    starts from a new game), and its last position is printed instead.

    A bot that fails (raises, answers a move that is not legal, or takes
    longer than ``move_time_limit`` seconds, which is also a program bot's
    time for a move) stops the game: the record keeps every move before it,
    and one line says which bot failed and how, then how to go on with
    another bot in its seat.
    """
    if screen is None:
        screen = sys.stdout.isatty()
    colour = screen and wants_colour(sys.stdout)
    if resume is not None:
        game, seat, states = _resumed(Path(resume), name, seat)
        players = game.first.num_players
        seated, texts = _bots_of(game.names, seat, bots, Path(resume))
        if bots:  # other bots than the record's: the seats are named after them
            for s, bot in enumerate(seated):
                if bot is not None:
                    game.names[s] = f"{bot.name} {s}"
        path: Path | None = Path(save) if save is not None else Path(resume)
        if save is not None:
            _refuse_existing(Path(save))
    else:
        if not 0 <= seat < players:
            raise ConfigurationError(f"--seat must be 0 to {players - 1}")
        given = list(bots) if bots else ["greedy"]
        # The other seats take the given bots in order, repeated as needed.
        texts = [
            None if s == seat else given[(s - (s > seat)) % len(given)] for s in range(players)
        ]
        names: list[str] = []
        seated = []
        for s, text in enumerate(texts):
            if text is None:
                names.append(name)
                seated.append(None)
            else:
                other = bot_from_text(text)
                names.append(f"{other.name} {s}")
                seated.append(other)
        if seed is None:
            seed = secrets.randbelow(SEEDS)
        first = new_game(players, seed=seed) if position is None else from_position_text(position)
        if not seed_answers(first.rules) or first.num_players != players:
            raise ConfigurationError(f"play needs a seeded position of {players} players")
        path = None
        if position is None:
            path = Path(save) if save is not None else _default_path(seed)
            _refuse_existing(path)
        game = _Game(first, names, seat)
        # A game from a position text: the person gave the whole of it already.
        game.known = position is not None
        states = ()
    for bot in seated:
        if bot is not None:
            check_players(bot, players)  # now, not at the bot's first move
    if path is not None:
        game.save(path)  # now, so that a path that cannot be written fails before the game
    if screen and read is input:
        _enable_line_editing()
    rngs = [bot_rng(game.first.seed, s) for s in range(players)]
    playing = [bot for bot in seated if bot is not None]
    if move_time_limit is not None:
        limit_move_times(playing, move_time_limit)
    try:
        status = _play(
            game, seated, texts, rngs, states, path, read, write, recall, screen, colour,
            resume=resume, position=position, move_time_limit=move_time_limit,
        )  # fmt: skip
    finally:
        # Every bot is told, so that a program bot's program (and all it started) ends now.
        result = outcome(game.state) if game.state.is_over else None
        tell_game_over(playing, result, "finished" if result is not None else "stopped")
    return status


def _play(
    game: _Game,
    seated: Sequence[Bot | None],
    texts: Sequence[str | None],
    rngs: Sequence[random.Random],
    states: Sequence[GameState],
    path: Path | None,
    read: Callable[[str], str],
    write: Callable[[str], None],
    recall: Recall,
    screen: bool,
    colour: bool,
    *,
    resume: str | Path | None,
    position: str | None,
    move_time_limit: float | None,
) -> int:
    """The game itself, from its first (or resumed) move to its end; the exit status."""
    seat = game.you
    if resume is not None:
        # The bots choose their recorded moves again, so that their chance
        # (and anything they keep) is where it was: the game goes on as it
        # would have. What a bot does wrong here is passed over: its moves
        # are the record's.
        for number, state in enumerate(states[:-1]):
            mover = state.current_player
            assert mover is not None  # every recorded move had a mover
            bot = seated[mover]
            if bot is not None:
                ask_bot(bot, observe(state, mover), rngs[mover], move=number)
        opening = [f"Resumed the game of {resume} after {plural(len(game.moves), 'move')}."]
    elif position is None:
        seed = game.first.seed
        opening = [f"Game seed {seed} ('--seed {seed}' deals this game again)."]
    else:
        opening = []
    opening.append(f"You play seat {seat} as {game.names[seat]}; type 'help' to learn the moves.")
    # A screen is cleared for each decision: the first one says these itself.
    first_message = " ".join(opening) if screen else ""
    if not screen:
        for line in opening:
            write(line)
    status = 0
    failure: BotFailure | None = None
    try:
        while not game.state.is_over:
            state = game.state
            mover = state.current_player
            assert mover is not None  # a game that is not over has a player to move
            bot = seated[mover]
            if bot is not None:
                seen = observe(state, mover)
                answer = ask_bot(
                    bot,
                    seen,
                    rngs[mover],
                    move=len(game.moves),
                    move_time_limit=move_time_limit,
                    stop_waiting=True,
                )
                if isinstance(answer, BotFailure):
                    failure = answer
                    status = 1
                    break
                game.play(answer, mover)
                continue
            if path is not None:
                game.save(path)
            seen = observe(state, mover, recall=recall)
            chosen = _ask(game, seen, read, write, screen, colour, first_message)
            first_message = ""
            if chosen is None:
                write("You left the game.")
                break
            game.play(chosen, mover, shown=False)
    except KeyboardInterrupt:
        write("\nYou left the game (Ctrl-C).")
        status = 130
    else:
        if game.state.is_over:
            write("")
            write(f"Game over after round {game.state.round}.")
            write(render_scores(game.state, game.names, colour, you=seat))
    if failure is not None:
        write(failure_message(failure))
    if path is None:
        write(f"A game from a position is not saved; it stopped at: {position_text(game.state)}")
        return status
    try:
        game.save(path)
    except ConfigurationError as error:
        write(f"Could not save the game: {error}")
        return status or 1
    if failure is not None:
        _write_lines(write, command_lines(*resume_advice(path, texts, failure.seat)))
        return status
    _write_lines(write, saved_lines(path, finished=game.state.is_over))
    return status


def saved_lines(path: Path, *, finished: bool) -> list[str]:
    """Where the game was saved and how to watch it or go on with it, in
    lines of the screen's width, broken between words: a file name is never
    cut, and each command can be copied as it stands.

    >>> for line in saved_lines(Path("game.json"), finished=False):
    ...     print(line)
    Saved the game to game.json
    Watch it again with: troedler replay game.json
    Continue it with: troedler play --resume game.json
    """
    lines = wrap(f"Saved the game to {path}", indent=0)  # no full stop: a name may fill the line
    lines += command_lines("Watch it again with:", ["troedler", "replay", str(path)])
    if not finished:
        lines += command_lines("Continue it with:", ["troedler", "play", "--resume", str(path)])
    return lines


def _write_lines(write: Callable[[str], None], lines: list[str]) -> None:
    for line in lines:
        write(line)


def _refuse_existing(path: Path) -> None:
    if not path.exists():
        return
    if _finished(path):
        raise ConfigurationError(
            f"--save: {path} already exists and holds a finished game; watch it with "
            f"'troedler replay {path}', or choose another file with --save"
        )
    raise ConfigurationError(
        f"--save: {path} already exists; continue its game with "
        f"'troedler play --resume {path}', or choose another file with --save"
    )


def _finished(path: Path) -> bool:
    """Whether ``path`` holds the record of a finished game (which
    ``--resume`` refuses); False for anything else it may hold."""
    try:
        record = GameRecord.from_json(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, TroedlerError, ValueError):
        return False
    return record.result is not None


def _resumed(path: Path, name: str, seat: int) -> tuple[_Game, int, tuple[GameState, ...]]:
    """The game saved in ``path`` and the person's seat in it."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise FormatError(str(path), "", f"cannot be read ({error})") from None
    problem = broken_json(str(path), text)
    if problem is not None:
        raise problem
    try:
        record = GameRecord.from_json(text)
        states = replay(record)
    except TroedlerError as error:
        raise FormatError(str(path), "", f"is not a saved game: {error}") from None
    if states[-1].is_over:
        raise ConfigurationError(
            f"--resume: {path} holds a finished game; watch it with: troedler replay {path}"
        )
    names = list(record.seats)
    if names.count(name) == 1:
        seat = names.index(name)
    elif not 0 <= seat < len(names):
        raise ConfigurationError(f"--seat must be 0 to {len(names) - 1}")
    game = _Game(states[0], names, seat)
    for state, text in zip(states, record.moves, strict=False):
        mover = state.current_player
        assert mover is not None  # every recorded move had a mover
        game.play(parse_move(text, state), mover, shown=mover != seat)
    return game, seat, states


def _bots_of(
    names: Sequence[str], seat: int, bots: Sequence[str] | None, path: Path
) -> tuple[list[Bot | None], list[str | None]]:
    """The bots of a resumed game's other seats and their texts: ``bots`` in
    order (replacing the record's), else the bundled bots their seats are
    named after (``greedy 1``)."""
    seated: list[Bot | None] = []
    texts: list[str | None] = []
    others = 0
    for s, seat_name in enumerate(names):
        if s == seat:
            seated.append(None)
            texts.append(None)
            continue
        if bots:
            text = bots[others % len(bots)]
        else:
            text = seat_name.rsplit(" ", 1)[0].lower()
            if text not in BOTS:
                raise ConfigurationError(
                    f"--resume: seat {s} of {path} is {seat_name!r:.40}, not a bundled bot; "
                    "name the other seats' bots with --bots"
                )
        others += 1
        seated.append(bot_from_text(text))
        texts.append(text)
    return seated, texts


class _Game:
    """The game so far: its first state, the moves made, who made them, and
    the others' moves since the person's last one."""

    def __init__(self, first: GameState, names: Sequence[str], you: int) -> None:
        self.first = first
        self.you = you
        self.state = first
        self.names = list(names)
        self.moves: list[Move] = []
        self.movers: list[int] = []
        self.rounds: list[tuple[int, int]] = []
        self.recent: list[tuple[int, list[Move]]] = []
        self.saved = 0
        self.known = False
        """Whether the person knows the whole position (they gave it): then
        ``position`` shows it without asking."""

    def play(self, move: Move, mover: int, *, shown: bool = True) -> None:
        """Make ``move`` for seat ``mover``; ``shown`` lists it as another's move
        on the person's next screen."""
        self.rounds.append((self.state.round, self.state.dealer))
        self.state = apply_move(self.state, move)
        self.moves.append(move)
        self.movers.append(mover)
        if not shown or mover == self.you:
            self.recent.clear()
        elif self.recent and self.recent[-1][0] == mover:
            self.recent[-1][1].append(move)
        else:
            self.recent.append((mover, [move]))

    def recent_lines(self) -> list[str]:
        """Every move of the others since the person's last, a turn a paragraph."""
        lines = []
        for seat, moves in self.recent:
            texts = [str(move) for move in moves]
            lines.extend(_flow([f"  {self.names[seat]}: {texts[0]}", *texts[1:]], 4))
        return lines

    def recent_text(self) -> str:
        """Every move of the others since the person's last, turn by turn."""
        return "; ".join(
            f"{self.names[seat]}: " + ", ".join(str(m) for m in moves)
            for seat, moves in self.recent
        )

    def history(self) -> list[str]:
        """The whole game so far, a line per round's heading and per turn."""
        lines: list[str] = []
        shown_round = 0
        turn: list[str] = []
        last = -1
        for number, (move, mover, (round_, dealer)) in enumerate(
            zip(self.moves, self.movers, self.rounds, strict=True), 1
        ):
            if round_ != shown_round or mover != last:
                if turn:
                    lines.extend(_flow(turn, 6))
                turn = []
            if round_ != shown_round:
                shown_round = round_
                dealt = "you" if dealer == self.you else self.names[dealer]
                lines.append(f"Round {round_} (dealer {dealt})")
            who = "you" if mover == self.you else self.names[mover]
            turn.append(f"{number}.{move}" if turn else f"  {who}: {number}.{move}")
            last = mover
        if turn:
            lines.extend(_flow(turn, 6))
        return lines or ["No moves yet."]

    def save(self, path: Path) -> None:
        """Write the game's record to ``path`` if it changed, replacing it at once."""
        if path.exists() and self.saved == len(self.moves) and len(self.moves):
            return
        record = GameRecord.of_game(self.first, self.moves, seats=self.names)
        temporary = path.with_name(f".{path.name}.saving")
        try:
            temporary.write_text(record.to_json(), encoding="utf-8")
            os.replace(temporary, path)
        except OSError as error:
            with contextlib.suppress(OSError):
                temporary.unlink()
            raise ConfigurationError(
                f"--save: cannot write {path}: {error.strerror or error}"
            ) from None
        self.saved = len(self.moves)


def _default_path(seed: int) -> Path:
    return Path(f"troedler-game-{time.strftime('%Y%m%d-%H%M%S')}-seed{seed}.json")


def _enable_line_editing() -> None:
    """Give ``input`` line editing and history, where Python has readline."""
    with contextlib.suppress(ImportError):  # a Python built without readline
        import readline  # noqa: F401, PLC0415 (importing it is what switches editing on)


def _flow(items: Sequence[str], indent: int) -> list[str]:
    """``items`` joined by commas in lines of at most :data:`WIDTH`, broken
    between items only (an item longer than a line has one to itself)."""
    lines: list[str] = []
    line = ""
    for item in items:
        if line and len(line) + 2 + len(item) > WIDTH:
            lines.append(line + ",")
            line = " " * indent + item
        else:
            line = f"{line}, {item}" if line else item
    if line:
        lines.append(line)
    return lines


def too_small() -> str | None:
    """What to say instead of a screen when the terminal is below 80 by 24; None if it fits."""
    columns, rows = _screen_size()
    if columns >= WIDTH and rows >= HEIGHT + 1:
        return None
    text = (
        f"The screen is too small: {columns}x{rows}; the game needs "
        f"{WIDTH}x{HEIGHT + 1}. Make the window larger, then press Enter."
    )
    return "\n".join(wrap(text, 0, max(20, columns)))


def _screen_size() -> tuple[int, int]:
    """The terminal's columns and lines now (the window may have been resized).

    A terminal that reports no size (0 by 0, as some serial lines and
    containers do) is taken to be 80 by 24.
    """
    try:
        size = os.get_terminal_size(sys.stdout.fileno())
    except (OSError, ValueError):  # not a terminal: the environment's word, or 80x24
        size = shutil.get_terminal_size((WIDTH, HEIGHT + 1))
    return size.columns or WIDTH, size.lines or HEIGHT + 1


def _pause(read: Callable[[str], str], prompt: str = "(Enter: back to the game) ") -> bool:
    """Wait for Enter; False if the person ends the input (Ctrl-D)."""
    try:
        read(prompt)
    except EOFError:
        return False
    return True


def _pages(
    lines: Sequence[str],
    read: Callable[[str], str],
    write: Callable[[str], None],
    screen: bool,
    last: str = "(Enter: back to the game) ",
) -> bool:
    """Write ``lines``, a screenful at a time on a terminal; False on Ctrl-D."""
    if not screen:
        for line in lines:
            write(line)
        return True
    size = max(1, _screen_size()[1] - 1)
    for start in range(0, len(lines), size):
        write(CLEAR + "\n".join(lines[start : start + size]))
        more = start + size < len(lines)
        if not _pause(read, "(Enter: more) " if more else last):
            return False
    return True


def _ask(
    game: _Game,
    seen: Observation,
    read: Callable[[str], str],
    write: Callable[[str], None],
    screen: bool,
    colour: bool,
    message: str = "",
) -> Move | None:
    """The person's move, asked for until one is legal; None if they leave.
    ``message`` is the first screen's last line."""
    moves = legal_moves(seen)
    numbered = {number: move for _, members in group_moves(moves) for number, move in members}
    state = game.state
    names = game.names
    recent = "Since your last move: " + game.recent_text() if game.recent else ""
    if len(wrap(recent)) > 2:  # too many for the screen: every one of them first
        lines = ["Since your last move:", *game.recent_lines()]
        if not _pages(lines, read, write, screen, "(Enter: to your move) "):
            return None
        recent = "Since your last move: see above, or type 'history'"
    game.recent.clear()
    while True:
        small = too_small() if screen else None
        if small is not None:
            page = small
        else:
            page = render_screen(
                seen,
                names,
                colour=colour,
                you=seen.seat,
                moves=moves,
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
            if not _pages(HELP.splitlines(), read, write, screen):
                return None
            continue
        if lowered in ("history", "log"):
            if not _pages(game.history(), read, write, screen):
                return None
            continue
        if lowered == "position":
            if not game.known and not whole_position_wanted(read):
                message = "The whole position was not shown."
                continue
            write(position_text(game.state))
            if screen:
                with contextlib.suppress(EOFError):
                    read("(Enter: back to the game) ")
            continue
        if lowered == "moves":
            lines = []
            for label, members in group_moves(moves):
                lines.extend(wrap(f"{label}: " + ", ".join(f"{n} {m}" for n, m in members)))
            if not _pages(lines, read, write, screen):
                return None
            continue
        if not text:
            continue
        if text.isdecimal():
            number = int(text)
            if number in numbered:
                return numbered[number]
            first, last = min(numbered), max(numbered)
            what = "pile" if pile_numbers(moves) else "move"
            message = f"There is no {what} {number}: choose {first} to {last}."
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

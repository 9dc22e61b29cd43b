"""``troedler replay FILE``: step through a recorded game in the terminal."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from troedler.cli.demo import write_log
from troedler.core.errors import FormatError
from troedler.io.records import GameRecord

__all__ = ["broken_json", "read_records", "record_of", "replay_in_terminal"]

MAX_FILE_CHARS = 200_000_000


def broken_json(path: str, text: str) -> FormatError | None:
    """What is wrong with ``text`` as one JSON document, where (line and
    column), in words that are not cut; None if it reads."""
    try:
        json.loads(text)
    except json.JSONDecodeError as error:
        what = error.msg.removesuffix(" starting at")
        what = what[:1].lower() + what[1:]
        if error.msg.startswith("Unterminated"):  # the position is where the string began
            what += " (it runs to the end of the file: is the file cut short?)"
        elif not error.msg.startswith("Extra") and "\n" not in text[error.pos :].rstrip():
            what += " on the file's last line: is it cut short?"
        return FormatError(
            path, f"line {error.lineno}, column {error.colno}", f"not valid JSON: {what}"
        )
    except (ValueError, RecursionError) as error:  # integers too long, nesting too deep
        return FormatError(path, "", f"is not valid JSON ({type(error).__name__})")
    return None


def read_records(path: str) -> list[str]:
    """The record texts in a file: one record, or one per line (``simulate --out``).

    A file that is neither (a record cut short, say) is a
    :class:`FormatError` naming the line and column where it breaks.
    """
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise FormatError(path, "", f"cannot be read ({error})") from None
    if len(text) > MAX_FILE_CHARS:
        raise FormatError(path, "", "is too large")
    problem = broken_json(path, text)
    if problem is None:
        return [text]
    lines = [line for line in text.splitlines() if line.strip()]
    # A file of records has a whole object on its first line; a record
    # written over many lines (troedler play's) does not.
    if broken_json(path, lines[0]) is not None if lines else True:
        raise problem
    return lines


def record_of(path: str, game: int) -> GameRecord:
    """Game ``game`` (from 0) of the record file ``path``; a bad one is a
    :class:`FormatError` naming the file and, in a file of many, the line."""
    texts = read_records(path)
    if not 0 <= game < len(texts):
        held = "1 game" if len(texts) == 1 else f"{len(texts)} games"
        raise FormatError(path, "", f"holds {held}; there is no game {game}")
    try:
        return GameRecord.from_json(texts[game])
    except FormatError as error:
        where = f"line {game + 1}" if len(texts) > 1 else ""
        raise FormatError(path, where, str(error)) from None


def replay_in_terminal(
    path: str,
    game: int,
    step: bool,
    read: Callable[[str], str] = input,
    write: Callable[[str], None] = print,
) -> int:
    """Show game ``game`` (from 0) of the record file ``path``; exit status."""
    record = record_of(path, game)

    def pause() -> bool:
        try:
            return read("(Enter: next move, q: stop) ").strip().lower() != "q"
        except EOFError:
            return False

    write(f"Game {game} of {path}: seed {record.seed}, {len(record.moves)} moves")
    write_log(record, write, pause if step else None)
    return 0

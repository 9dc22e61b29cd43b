"""``troedler replay FILE``: step through a recorded game in the terminal."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from troedler.cli.demo import write_log
from troedler.errors import FormatError
from troedler.records import GameRecord

__all__ = ["read_records", "record_of", "replay_in_terminal"]

MAX_FILE_CHARS = 200_000_000


def read_records(path: str) -> list[str]:
    """The record texts in a file: one record, or one per line (``simulate --out``)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise FormatError(path, "", f"cannot be read ({error})") from None
    if len(text) > MAX_FILE_CHARS:
        raise FormatError(path, "", "is too large")
    try:
        json.loads(text)
    except (ValueError, RecursionError):
        return [line for line in text.splitlines() if line.strip()]
    return [text]


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

"""``troedler simulate``: many games between bots, kept as they finish.

The games themselves are :mod:`troedler.simulation`'s. This module adds what
a command line needs: the ``--out`` file, written game by game with a
journal beside it so that Ctrl-C loses nothing and ``--resume`` continues;
a progress bar; and the summary as a table.

``--out FILE`` holds one game record per line, which ``troedler replay``
reads. ``FILE.journal`` holds the run's settings on its first line, then
what each game gave, a line per game in the same order as ``FILE``. Games
are written in the order they finish; once a run is complete both files are
put in game order, so that ``replay FILE --game N`` shows game ``N``.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TextIO

import attrs

from troedler.bots.base import BotFailure
from troedler.core.errors import ConfigurationError, FormatError
from troedler.simulation.games import GameReport, game_seed
from troedler.simulation.lineup import bot_from_text
from troedler.simulation.processes import sigint_blocked
from troedler.simulation.summary import Summary

__all__ = [
    "JOURNAL_FORMAT",
    "Output",
    "bots_option",
    "parse_bots",
    "progress_bar",
    "write_summary",
]

JOURNAL_FORMAT = "troedler-simulate-journal"
JOURNAL_VERSION = 1
SETTINGS = ("bots", "players", "seed", "max_rounds", "move_time_limit", "games")
"""What a run is, as kept in its journal: a resumed run must have the same."""

DASH = "\u2013"
SHOWN_FAILURES = 10


def parse_bots(text: str) -> list[str]:
    """The bot texts of ``--bots``: comma-separated, none of them empty."""
    names = [name.strip() for name in text.split(",")]
    if not any(names):
        raise ConfigurationError("--bots: no bots given")
    for position, name in enumerate(names, 1):
        if not name:
            raise ConfigurationError(f"--bots: bot {position} of {len(names)} is empty")
    return names


def bots_option(text: str) -> list[str]:
    """The bots of ``--bots``, each made once to check it, for ``simulate`` and ``play``.

    ``module:Class`` is looked for in the current directory too; a bot that
    cannot be made is a :class:`ConfigurationError` starting ``--bots:``.
    """
    names = parse_bots(text)
    add_working_directory()
    for name in names:
        try:
            bot_from_text(name)
        except ConfigurationError as error:
            raise ConfigurationError(f"--bots: {error}") from None
    return names


# --- the summary for people ------------------------------------------------


def _share(value: float | None) -> str:
    return DASH if value is None else f"{value:.1%}"


def _number(value: float | None) -> str:
    return DASH if value is None else f"{value:.1f}"


def write_summary(summary: Summary, out: TextIO | None = None) -> None:
    """The summary as a table for people (on standard output by default)."""
    out = sys.stdout if out is None else out
    capped = f"{summary.capped} capped"
    if summary.max_rounds is not None:
        capped += f" at round {summary.max_rounds}"
    games = "1 game" if summary.games == 1 else f"{summary.games} games"
    out.write(
        f"{games} of {summary.players} players: {summary.finished} finished, "
        f"{capped}, {summary.forfeited} forfeited\n"
    )
    finished = "game" if summary.finished == 1 else "games"
    out.write(
        f"over the {summary.finished} finished {finished}: "
        f"mean rounds {_number(summary.mean_rounds)}\n"
    )
    width = max([10, *(len(row.name) for row in summary.bots)])
    out.write(
        f"{'bot':<{width}} {'seat-games':>10} {'win share':>10} {'95% interval':>15} "
        f"{'points':>7} {'damage':>7} {'total dmg':>9} {'forfeits':>8}\n"
    )
    for row in summary.bots:
        interval = DASH
        if row.win_share_95 is not None:
            low, high = row.win_share_95
            interval = f"{low:.1%}{DASH}{high:.1%}"
        out.write(
            f"{row.name:<{width}} {row.seat_games:>10} {_share(row.win_share):>10} "
            f"{interval:>15} {_number(row.mean_points):>7} {_number(row.mean_damage):>7} "
            f"{_share(row.total_damage_rate):>9} {row.forfeits:>8}\n"
        )
    shares = "  ".join(
        f"seat {i}: {_share(share)}" for i, share in enumerate(summary.seat_win_share)
    )
    out.write(f"win share per seat: {shares}\n")
    if summary.forfeited:
        counted = "  ".join(
            f"{row.name}: {_share(row.win_share_with_forfeits)}" for row in summary.bots
        )
        out.write(f"win share, each forfeit a loss: {counted}\n")
    for failure in summary.failures[:SHOWN_FAILURES]:
        out.write(f"forfeit: {failure}\n")
    if len(summary.failures) > SHOWN_FAILURES:
        out.write(f"... and {len(summary.failures) - SHOWN_FAILURES} more forfeits (see --json)\n")


def progress_bar(stream: TextIO | None = None) -> Callable[[int, int], None]:
    """A one-line progress bar on a terminal; a line per tenth of the games elsewhere
    (on standard error by default)."""
    stream = sys.stderr if stream is None else stream
    width = 30
    terminal = stream.isatty()
    shown = -1

    def show(done: int, total: int) -> None:
        nonlocal shown
        steps = width if terminal else 10
        reached = steps * done // total if total else steps
        if reached == shown and done != total:
            return
        shown = reached
        if terminal:
            filled = width * done // total if total else width
            bar = f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} games"
            stream.write(bar + ("\n" if done == total else ""))
        else:
            stream.write(f"{done}/{total} games\n")
        stream.flush()

    return show


# --- the out file and its journal -------------------------------------------


def _report_data(report: GameReport) -> dict[str, Any]:
    data = attrs.asdict(report, recurse=True)
    del data["record"]
    return data


def _report_from(data: Any, where: Callable[[str], FormatError]) -> GameReport:
    """A journal line's game report, checked field by field."""
    if not isinstance(data, dict):
        raise where("expected an object")
    fields = {field.name for field in attrs.fields(GameReport)} - {"record"}
    if set(data) != fields:
        raise where(f"expected the fields {', '.join(sorted(fields))}")
    for name in ("index", "seed", "rounds"):
        if type(data[name]) is not int:
            raise where(f"{name}: expected a whole number")
    for name in ("points", "damage", "totally_damaged", "winners"):
        if not isinstance(data[name], list) or any(type(v) is not int for v in data[name]):
            raise where(f"{name}: expected a list of whole numbers")
    seats = data["seats"]
    if not isinstance(seats, list) or not all(isinstance(s, str) for s in seats):
        raise where("seats: expected a list of texts")
    if data["ending"] not in ("finished", "capped", "forfeited"):
        raise where("ending: expected finished, capped or forfeited")
    failure = data["failure"]
    if failure is not None:
        try:
            failure = BotFailure(**failure)
        except TypeError:
            raise where("failure: expected seat, bot, move, round, kind, detail") from None
        if not 0 <= failure.seat < len(seats):
            raise where("failure.seat: out of range")
    if (failure is None) == (data["ending"] == "forfeited"):
        raise where("failure: a game has one exactly when it was forfeited")
    return GameReport(
        index=data["index"],
        seed=data["seed"],
        seats=tuple(seats),
        ending=data["ending"],
        rounds=data["rounds"],
        points=tuple(data["points"]),
        damage=tuple(data["damage"]),
        totally_damaged=tuple(data["totally_damaged"]),
        winners=tuple(data["winners"]),
        failure=failure,
    )


def _complete_lines(path: Path) -> list[bytes]:
    """The lines of ``path`` that end in a newline (a last one cut short is dropped)."""
    lines = path.read_bytes().split(b"\n")
    return lines[:-1]


def _games_in(path: Path) -> int:
    """How many lines (games) ``path`` holds; 0 when it does not exist."""
    try:
        with path.open("rb") as file:
            return sum(1 for line in file if line.strip())
    except FileNotFoundError:
        return 0
    except OSError as error:
        raise ConfigurationError(f"--out: cannot read {path}: {error.strerror or error}") from None


def _same_game(line: bytes, seed: int) -> bool:
    """Whether the record ``line`` is a whole record of the game seeded ``seed``."""
    try:
        data = json.loads(line)
    except ValueError:
        return False
    return isinstance(data, dict) and data.get("seed") == seed


class Output:
    """The ``--out`` file and its journal, opened (and checked) before the first game.

    ``settings`` describe the run. A file that already holds games is
    refused unless ``resume`` or ``overwrite``. With ``resume`` the journal
    must describe the same run; its games are :attr:`done`, and lines written
    after the last complete game (cut short by a crash) are dropped. A last
    game whose record was cut short while its journal line was written whole
    is refused with how to recover, or with ``drop_broken`` dropped (it is
    played again).
    """

    def __init__(
        self,
        path: str,
        settings: dict[str, Any],
        resume: bool,
        *,
        overwrite: bool = False,
        drop_broken: bool = False,
    ) -> None:
        self.path = Path(path)
        self.journal_path = Path(path + ".journal")
        self.settings = settings
        self.done: list[GameReport] = []
        if not resume and not overwrite:
            held = _games_in(self.path)
            if held:
                raise ConfigurationError(
                    f"--out: {path} already holds {held} game{'' if held == 1 else 's'}; "
                    "continue that run with --resume, replace it with --overwrite, "
                    "or choose another file"
                )
        try:
            if resume:
                self._resume(drop_broken)
                self._records = self.path.open("a", encoding="utf-8")
                self._journal = self.journal_path.open("a", encoding="utf-8")
            else:
                self._records = self.path.open("w", encoding="utf-8")
                self._journal = self.journal_path.open("w", encoding="utf-8")
                header = {"format": JOURNAL_FORMAT, "version": JOURNAL_VERSION, **settings}
                self._journal.write(json.dumps(header) + "\n")
                self._journal.flush()
        except OSError as error:
            raise ConfigurationError(
                f"--out: cannot write {error.filename or path}: {error.strerror or error}"
            ) from None
        self._order = [report.index for report in self.done]

    @staticmethod
    def read_settings(path: str) -> dict[str, Any]:
        """The settings of the run whose ``--out`` file is ``path``, from its journal."""
        journal = Path(path + ".journal")
        try:
            with journal.open("rb") as file:
                first = file.readline(100_000)
        except OSError as error:
            raise ConfigurationError(
                f"--resume: cannot read the journal {journal}: {error.strerror or error}"
            ) from None
        try:
            header = json.loads(first)
        except ValueError:
            header = None
        if (
            not isinstance(header, dict)
            or header.get("format") != JOURNAL_FORMAT
            or header.get("version") != JOURNAL_VERSION
            or set(header) != {"format", "version", *SETTINGS}
        ):
            raise FormatError(str(journal), "line 1", f"is not a {JOURNAL_FORMAT} header")
        return {name: header[name] for name in SETTINGS}

    def _resume(self, drop_broken: bool) -> None:
        journal = str(self.journal_path)
        lines = _complete_lines(self.journal_path)[1:]
        try:
            records = _complete_lines(self.path)
        except OSError as error:
            raise ConfigurationError(
                f"--resume: cannot read {self.path}: {error.strerror or error}"
            ) from None
        if lines and len(records) >= len(lines) - 1 and self._broken_last(lines, records):
            if not drop_broken:
                raise FormatError(
                    str(self.path),
                    f"line {len(lines)}",
                    f"the last game is cut short, though {journal} holds it (a crash while "
                    "writing); run again with --resume --drop-broken to drop that game and "
                    "play it again, or keep a copy of both files first",
                )
            lines = lines[:-1]
            records = records[: len(lines)]
        if len(records) < len(lines):
            raise FormatError(
                str(self.path),
                "",
                f"holds {len(records)} games but its journal {journal} names {len(lines)}: "
                "they are not of one run",
            )
        seen: set[int] = set()
        for number, line in enumerate(lines, 2):

            def where(message: str, number: int = number) -> FormatError:
                return FormatError(journal, f"line {number}", message)

            try:
                data = json.loads(line)
            except ValueError:
                raise where("is not JSON") from None
            report = _report_from(data, where)
            if not 0 <= report.index < self.settings["games"] or report.index in seen:
                raise where(f"game {report.index} is not a game of this run, or twice")
            if report.seed != game_seed(self.settings["seed"], report.index):
                raise where(f"game {report.index} has another seed than this run gives it")
            try:
                stored = json.loads(records[number - 2])["seed"]
            except (ValueError, KeyError, TypeError):
                stored = None
            if stored != report.seed:
                raise FormatError(
                    str(self.path), f"line {number - 1}", "is not the game its journal names"
                )
            seen.add(report.index)
            self.done.append(report)
        # Drop what was written after the last game the journal holds.
        for path, keep in ((self.path, len(lines)), (self.journal_path, len(lines) + 1)):
            data = path.read_bytes()
            cut = 0
            for _ in range(keep):
                cut = data.index(b"\n", cut) + 1
            if cut != len(data):
                with path.open("r+b") as file:
                    file.truncate(cut)

    def _broken_last(self, lines: list[bytes], records: list[bytes]) -> bool:
        """Whether the journal's last game has no whole record at its line."""
        if len(records) < len(lines):
            return True
        try:
            seed = json.loads(lines[-1])["seed"]
        except (ValueError, KeyError, TypeError):
            return False  # the journal line itself is bad: the check below names it
        return not _same_game(records[len(lines) - 1], seed)

    def write(self, report: GameReport) -> None:
        """Add a finished game to both files, at once."""
        self._records.write((report.record or "") + "\n")
        self._records.flush()
        self._journal.write(json.dumps(_report_data(report)) + "\n")
        self._journal.flush()
        self._order.append(report.index)

    def close(self, complete: bool) -> None:
        """Close both files; a ``complete`` run's are put in game order."""
        self._records.close()
        self._journal.close()
        if not complete or self._order == sorted(self._order):
            return
        place = {index: line for line, index in enumerate(self._order)}
        ranks = sorted(self._order)
        for path, skip in ((self.path, 0), (self.journal_path, 1)):
            lines = _complete_lines(path)
            ordered = lines[:skip] + [lines[skip + place[index]] for index in ranks]
            temporary = path.with_name(path.name + ".sorting")
            temporary.write_bytes(b"".join(line + b"\n" for line in ordered))
            os.replace(temporary, path)


def run_settings(
    args_settings: dict[str, Any], out: str | None, resume: bool, defaults: dict[str, Any]
) -> dict[str, Any]:
    """The settings of this run: those given, else (with ``resume``) the
    journal's, else the defaults. A resumed run must not change any."""
    if not resume:
        return {name: defaults[name] if args_settings[name] is None else args_settings[name]
                for name in SETTINGS}  # fmt: skip
    if out is None:
        raise ConfigurationError("--resume needs --out FILE: the file of the run to continue")
    stored = Output.read_settings(out)
    for name in SETTINGS:
        given = args_settings[name]
        if given is not None and given != stored[name]:
            flag = "--" + name.replace("_", "-")
            shown = ",".join(given) if name == "bots" else given
            kept = ",".join(stored[name]) if name == "bots" else stored[name]
            raise ConfigurationError(
                f"--resume: {flag} {shown} differs from the run in {out} ({kept}); "
                "leave it out to continue that run"
            )
    return stored


def unfinished(done: Sequence[GameReport], games: int) -> list[int]:
    """The games of ``range(games)`` that ``done`` does not hold."""
    have = {report.index for report in done}
    return [i for i in range(games) if i not in have]


def add_working_directory() -> None:
    """Let ``--bots mybots:MyBot`` find ``mybots.py`` in the current directory,
    as ``python -m`` would (after the installed modules, which it cannot shadow)."""
    here = os.getcwd()
    if here not in sys.path:
        sys.path.append(here)


def play_and_keep(
    games: Any,
    done: list[GameReport],
    output: Output | None,
    progress: Callable[[int, int], None] | None,
    total: int,
) -> None:
    """Take each report of ``games`` as it comes: into ``done`` and ``output``.

    Ctrl-C is held back while a report is kept, so that the file, the
    journal and ``done`` always agree.
    """
    for report in games:
        with sigint_blocked():
            if output is not None:
                output.write(report)
            done.append(report)
            if progress is not None:
                progress(len(done), total)

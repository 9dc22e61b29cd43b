"""Play troedler in a browser against bots, on a server of your own machine.

:func:`play_in_browser` starts a web server on 127.0.0.1 at a free port,
prints its address (with a random token that every request must carry) and
opens it in a browser: the board of your seat, your hand as cards, the legal
moves grouped by kind, the opponents' moves one at a time. Every move is
saved as a :class:`~troedler.GameRecord` at once, so a game left unfinished
can be resumed. ``troedler play --browser`` is the same from the command
line.

This package needs the ``web`` extra (Starlette and uvicorn).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path

from troedler.seat import Recall
from troedler.web.game import BrowserGame, Refused

__all__ = ["BrowserGame", "Refused", "play_in_browser"]


def _default_save_path() -> Path:
    """A new file name in the current folder for a new game.

    It does not name the seed: the page shows the file's name, and the seed
    would tell every card still face down.
    """
    return Path(f"troedler-game-{time.strftime('%Y%m%d-%H%M%S')}.json")


def play_in_browser(
    players: int,
    seed: int,
    bots: Sequence[str],
    seat: int,
    recall: Recall = "perfect",
    *,
    save: str | Path | None = None,
    name: str = "you",
    resume: str | Path | None = None,
    open_browser: bool = True,
    write: Callable[[str], None] = print,
    move_time_limit: float | None = None,
) -> int:
    """Play one game in the browser; the exit status.

    A new game of ``players`` and ``seed`` is saved to ``save`` (default: a
    new file in the current folder), which must not exist yet; ``resume``
    instead goes on with the unfinished game saved in that file, and saves
    to it. A bot that takes longer than ``move_time_limit`` seconds for a
    move (a program bot: default its own limit) fails, and the game stops.
    :class:`~troedler.TroedlerError` for bad settings, before any server
    starts.
    """
    # Imported here: the server stack is needed only once a game is served.
    from troedler.web.server import serve  # noqa: PLC0415

    if resume is not None:
        game = BrowserGame.resume(
            Path(resume), bots, seat, recall=recall, move_time_limit=move_time_limit
        )
    else:
        path = Path(save) if save is not None else _default_save_path()
        game = BrowserGame.new(
            players,
            seed,
            bots,
            seat,
            recall=recall,
            name=name,
            save=path,
            move_time_limit=move_time_limit,
        )
    return serve(game, open_browser=open_browser, write=write)

"""``troedler replay FILE --step``: a recorded game, position by position.

Each step shows the whole position after one move (every hand included) on
one 80 by 24 screen. Enter goes on, ``b`` goes back, ``j N`` (or just a
number) jumps to step N, ``f`` and ``l`` go to the first and last step,
``position`` prints the position text of the step (of a game that is not
over, only when asked again: it holds the cards to come), ``q`` stops.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable

from troedler.cli.play import too_small, whole_position_wanted
from troedler.cli.replay import record_of
from troedler.io.position_text import position_text
from troedler.io.records import replay
from troedler.text.render import render_scores, render_screen, wants_colour

__all__ = ["PROMPT", "step_in_terminal"]

PROMPT = "[Enter] next · b back · j N jump · f first · l last · q quit> "
CLEAR = "\x1b[H\x1b[2J"


def step_in_terminal(
    path: str,
    game: int,
    read: Callable[[str], str] = input,
    write: Callable[[str], None] = print,
    *,
    screen: bool | None = None,
) -> int:
    """Step through game ``game`` (from 0) of the record file ``path``; exit status."""
    record = record_of(path, game)
    states = replay(record)
    if screen is None:
        screen = sys.stdout.isatty()
    colour = screen and wants_colour(sys.stdout)
    names = record.seats
    last = len(states) - 1
    step = 0
    message = ""
    while True:
        state = states[step]
        if step == 0:
            done = "the start of the game"
        else:
            mover = states[step - 1].current_player
            who = names[mover] if mover is not None else ""
            done = f"{who}: {record.moves[step - 1]}"
        small = too_small() if screen else None
        page = small or render_screen(
            state,
            names,
            colour=colour,
            heading=f"Step {step}/{last}",
            recent=f"After {done}",
            message=message,
        )
        write((CLEAR if screen else "") + page)
        if state.is_over:
            write(render_scores(state, names, colour))
        message = ""
        try:
            answer = read(PROMPT).strip().lower()
        except (EOFError, KeyboardInterrupt):
            write("")
            return 0
        words = answer.split()
        if not words:
            if step == last:
                message = "This is the last step: b goes back, q stops."
            step = min(last, step + 1)
        elif words[0] == "position":
            if not states[-1].is_over and not whole_position_wanted(read):
                message = "The whole position was not shown."
                continue
            write(position_text(state))
            if screen:
                with contextlib.suppress(EOFError, KeyboardInterrupt):
                    read("(Enter: back) ")
        elif words[0] in ("q", "quit"):
            return 0
        elif words[0] in ("b", "back", "p"):
            step = max(0, step - 1)
        elif words[0] in ("f", "first"):
            step = 0
        elif words[0] in ("l", "last"):
            step = last
        elif words[0] in ("n", "next"):
            step = min(last, step + 1)
        elif words[0] in ("j", "jump") and len(words) == 2 and words[1].isdecimal():
            step = min(last, int(words[1]))
        elif len(words) == 1 and words[0].isdecimal():
            step = min(last, int(words[0]))
        else:
            message = f"Not a command: {answer[:30]!r}. Enter, b, j N, f, l or q."

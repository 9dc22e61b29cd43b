"""A recorded game as one self-contained HTML page that replays it in a browser.

The page holds every position's picture, the move list and the final
scoring table; its script and styles are inline, it names no font, and its
content security policy forbids loading anything at all, so it works
offline and from an attachment. Pictures are stored as their distinct parts,
each once (see :mod:`troedler.svg.drawing`), and put together as the reader
steps: a whole game stays a few megabytes.
"""

from __future__ import annotations

import html
import json
from collections.abc import Sequence
from pathlib import Path

import attrs

from troedler.core.board import Board
from troedler.core.cards import CardCatalogue
from troedler.core.scoring import outcome
from troedler.core.state import GameState, Phase
from troedler.io.notation import parse_move
from troedler.io.records import GameRecord, replay
from troedler.svg.drawing import Picture, picture
from troedler.svg.map import last_move_marks
from troedler.svg.panel_html import panel_css, panel_html
from troedler.svg.style import FONT, PHONE_BOARD_SCALE

__all__ = ["replay_html", "scoring_html", "write_replay_html"]


def replay_html(
    record: GameRecord,
    *,
    board: Board | None = None,
    cards: CardCatalogue | None = None,
    title: str | None = None,
) -> str:
    """The page replaying ``record``, as HTML text.

    ``board`` and ``cards`` are those the game was played with (troedler's
    own by default); :class:`~troedler.FormatError` if the record does not
    replay with them.
    """
    states = replay(record, board=board, cards=cards)
    names = record.seats
    moves = [parse_move(text, state) for text, state in zip(record.moves, states, strict=False)]
    pictures: list[Picture] = []
    panels: list[tuple[str, ...]] = []
    for k, state in enumerate(states):
        before = states[k - 1] if k else None
        move = moves[k - 1] if k else None
        pictures.append(picture(state, names=names, last_move=move, before=before, panel=False))
        caption = last_move_marks(state, before, move, names).caption
        panels.append(panel_html(state, names, caption=caption))
    height = max(p.height for p in pictures)
    open_tag = attrs.evolve(pictures[0], height=height).open_tag(None)
    index: dict[str, int] = {}
    steps = [[index.setdefault(part, len(index)) for part in p.parts] for p in pictures]
    panel_index: dict[str, int] = {}
    panel_steps = [[panel_index.setdefault(part, len(panel_index)) for part in p] for p in panels]
    data = {
        "open": open_tag,
        "parts": list(index),
        "steps": steps,
        "panelParts": list(panel_index),
        "panels": panel_steps,
        "movers": [s.current_player for s in states[:-1]],
    }
    heading = title or f"troedler: game of seed {record.seed}, {len(names)} players"
    return _PAGE.format(
        title=html.escape(heading),
        font=html.escape(FONT),
        board_scale=PHONE_BOARD_SCALE,
        panel_css=panel_css(),
        moves=_move_list(record, states),
        scores=scoring_html(record.seats, states[-1]),
        last=len(states) - 1,
        data=_script_json(data),
    )


def write_replay_html(
    record: GameRecord,
    path: str | Path,
    *,
    board: Board | None = None,
    cards: CardCatalogue | None = None,
) -> None:
    """Write :func:`replay_html` of ``record`` to ``path`` (UTF-8)."""
    Path(path).write_text(replay_html(record, board=board, cards=cards), encoding="utf-8")


def _script_json(data: object) -> str:
    """JSON safe inside a script element: no ``</script>`` can end it early."""
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    # Only "</" (which could close the element) and "<!--" (which changes how
    # the rest is read) matter inside a script; escaping every "<" would cost
    # five bytes per tag of the pictures.
    return text.replace("</", "<\\/").replace("<!--", "\\u003c!--")


def _move_list(record: GameRecord, states: tuple[GameState, ...]) -> str:
    names = record.seats
    items = ['<li class="move current" data-step="0">start of the game</li>']
    shown_round = 0
    for k, text in enumerate(record.moves):
        state = states[k]
        if state.round != shown_round:
            shown_round = state.round
            dealer = html.escape(names[state.dealer])
            items.append(f'<li class="round">Round {state.round} · dealer {dealer}</li>')
        seat = state.current_player
        who = html.escape(names[seat]) if seat is not None else ""
        items.append(
            f'<li class="move" data-step="{k + 1}"><span class="who seat-{seat}">{who}</span> '
            f"{html.escape(text)}</li>"
        )
    return "\n".join(items)


def scoring_html(names: Sequence[str], final: GameState) -> str:
    """The final scoring of ``final`` as an HTML table, or a note that the game did not end."""
    if final.phase is not Phase.GAME_OVER:
        return (
            f"<p>The record stops in round {final.round}: the game did not end, "
            "so it has no final scoring.</p>"
        )
    result = outcome(final)
    rows = []
    for seat, tally in enumerate(result.tallies):
        requests = " + ".join(str(p) for p in tally.request_points) or "none"
        rows.append(
            "<tr>"
            f'<td class="who seat-{seat}">{html.escape(names[seat])}</td>'
            f"<td>{tally.feed_used}</td><td>{tally.goods_held}</td><td>{requests}</td>"
            f"<td>{result.damage[seat]}</td>"
            f"<td>{'yes' if seat in result.totally_damaged else ''}</td>"
            f"<td>{result.points[seat]}</td>"
            f"<td>{'winner' if seat in result.winners else ''}</td>"
            "</tr>"
        )
    return (
        '<table id="scores"><thead><tr><th>player</th><th>feed used</th>'
        "<th>goods held</th><th>requests fulfilled (points)</th><th>damage</th>"
        "<th>total damage</th><th>points</th><th></th></tr></thead><tbody>"
        + "".join(rows)
        + '</tbody></table><p class="note">Damage is the special feed used plus half the '
        "goods still held, rounded up. The player who alone has the most damage suffers "
        "total damage and cannot win (with two players: 3 more than the other). Points are "
        "the fulfilled requests' points plus one per good held; the most points win, a tie "
        "going to fewer goods held.</p>"
    )


_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy"
 content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>
* {{ box-sizing: border-box; }}
body {{ margin: 0; font-family: {font}; color: #2b2b2b; background: #ece6d6; }}
header {{ padding: 8px 12px 4px; }}
h1 {{ font-size: 18px; margin: 0 0 4px; }}
h2 {{ font-size: 17px; margin: 0 0 6px; }}
main {{ display: grid; gap: 10px; padding: 0 12px 12px; align-items: start;
  grid-template-columns: minmax(0, 1fr) minmax(330px, 370px) 220px;
  grid-template-areas: "stage panel moves" "result result result"; }}
#stage {{ grid-area: stage; min-width: 0; }}
#panel {{ grid-area: panel; min-width: 0; }}
#moves-box {{ grid-area: moves; min-width: 0; }}
#result {{ grid-area: result; min-width: 0; }}
.box {{ background: #fffaf0; border-radius: 8px; padding: 6px 10px;
  box-shadow: 0 1px 4px rgba(0, 0, 0, .25); }}
#board svg {{ width: 100%; height: auto; max-height: calc(100vh - 100px); display: block;
  border-radius: 8px; box-shadow: 0 1px 4px rgba(0, 0, 0, .25); }}
#controls {{ display: flex; flex-wrap: wrap; gap: 6px; align-items: center; margin: 0 0 8px; }}
button {{ font: inherit; font-size: 15px; padding: 4px 10px; border-radius: 6px;
  border: 1px solid #8a8478; background: #fffaf0; cursor: pointer; }}
button:hover {{ background: #ffe7a3; }}
#slider {{ flex: 1 1 120px; min-width: 80px; }}
#zoom {{ display: none; }}
#step {{ min-width: 110px; text-align: right; font-variant-numeric: tabular-nums; }}
#moves {{ list-style: none; margin: 0; padding: 0; max-height: calc(100vh - 90px);
  overflow-y: auto; font-size: 14px; }}
#moves li {{ padding: 2px 10px; }}
#moves li.move {{ cursor: pointer; }}
#moves li.move:hover {{ background: #f3ead2; }}
#moves li.round {{ font-weight: bold; background: #e4dcc6; padding-top: 5px; }}
#moves li.current {{ background: #ffc61a; }}
.who {{ font-weight: bold; }}
.seat-0 .who, .who.seat-0 {{ color: #b34700; }} .who.seat-1 {{ color: #005a8c; }}
.who.seat-2 {{ color: #007a59; }} .who.seat-3 {{ color: #a3507f; }}
#result-wrap {{ overflow-x: auto; }}
#scores {{ border-collapse: collapse; margin-top: 6px; background: #fffaf0; font-size: 14px; }}
#scores th, #scores td {{ padding: 4px 8px; border-bottom: 1px solid #d8cfb8;
  text-align: center; }}
#scores td:first-child {{ text-align: left; }}
.note {{ font-size: 13px; max-width: 60em; }}
kbd {{ border: 1px solid #8a8478; border-radius: 3px; padding: 0 4px; background: #fff; }}
[hidden] {{ display: none !important; }}
{panel_css}
/* Narrower: the move list goes under the panel, beside the board. */
@media (max-width: 1180px) {{
  main {{ grid-template-columns: minmax(0, 1fr) 350px;
    grid-template-areas: "stage panel" "stage moves" "result result"; }}
  #moves {{ max-height: 40vh; }}
}}
/* Narrower still: the board takes the whole width, the panel and the moves share the row below. */
@media (max-width: 860px) {{
  main {{ grid-template-columns: minmax(0, 1fr) 230px;
    grid-template-areas: "stage stage" "panel moves" "result result"; }}
  #moves {{ max-height: 60vh; }}
}}
/* A phone: one column. */
@media (max-width: 620px) {{
  main {{ grid-template-columns: minmax(0, 1fr); padding: 0 6px 8px;
    grid-template-areas: "stage" "panel" "moves" "result"; }}
  #moves {{ max-height: 40vh; }}
  /* The board at a size whose village names read, panned with a finger,
     or the whole of it at a tap, as on the game's page. */
  #board {{ overflow: auto; max-height: 70vh; border-radius: 8px; }}
  #board svg {{ width: var(--board-w, 100%); max-width: none; max-height: none; }}
  #board.whole svg {{ width: 100%; }}
  #zoom {{ display: inline-block; }}
  header .note {{ display: none; }}
}}
</style>
</head>
<body>
<header><h1>{title}</h1>
<div class="note">Step with <kbd>←</kbd> <kbd>→</kbd>, <kbd>Home</kbd> <kbd>End</kbd>,
<kbd>Space</kbd> to play or pause; click a move to jump to it.</div></header>
<main>
<div id="stage">
<div id="controls">
<button id="first" title="first (Home)">|◀</button>
<button id="prev" title="previous (←)">◀</button>
<button id="play" title="play / pause (Space)">▶ play</button>
<button id="next" title="next (→)">▶</button>
<button id="last" title="last (End)">▶|</button>
<input id="slider" type="range" min="0" max="{last}" value="0" aria-label="step">
<span id="step" data-step="0">step 0 / {last}</span>
<button id="zoom">whole board</button>
</div>
<div id="board"></div>
</div>
<div id="panel" class="panel box"></div>
<div id="moves-box" class="box"><ol id="moves">
{moves}
</ol></div>
<section id="result" class="box">
<h2>Final scoring</h2>
<button id="show-result">show result</button>
<div id="result-wrap" hidden>
{scores}
</div>
</section>
</main>
<script type="application/json" id="replay-data">{data}</script>
<script>
"use strict";
const data = JSON.parse(document.getElementById("replay-data").textContent);
const last = data.steps.length - 1;
const board = document.getElementById("board");
const panel = document.getElementById("panel");
const slider = document.getElementById("slider");
const stepLabel = document.getElementById("step");
const playButton = document.getElementById("play");
const resultWrap = document.getElementById("result-wrap");
const showResult = document.getElementById("show-result");
const items = new Map();
for (const li of document.querySelectorAll("#moves li.move")) {{
  items.set(Number(li.dataset.step), li);
  li.addEventListener("click", () => show(Number(li.dataset.step)));
}}
let current = 0;
let timer = null;
let asked = false;  // the reader clicked "show result"
function reveal() {{
  const shown = asked || current === last;
  resultWrap.hidden = !shown;
  showResult.hidden = shown;
}}
function show(step) {{
  step = Math.max(0, Math.min(last, step));
  board.innerHTML = data.open + data.steps[step].map((i) => data.parts[i]).join("") + "</svg>";
  panel.innerHTML = data.panels[step].map((i) => data.panelParts[i]).join("");
  items.get(current)?.classList.remove("current");
  const item = items.get(step);
  item?.classList.add("current");
  // Scroll the list alone, never the page.
  if (item) {{
    const list = item.parentElement;
    const top = item.offsetTop - list.offsetTop;
    if (top < list.scrollTop) list.scrollTop = top;
    else if (top + item.offsetHeight > list.scrollTop + list.clientHeight) {{
      list.scrollTop = top + item.offsetHeight - list.clientHeight;
    }}
  }}
  current = step;
  slider.value = String(step);
  stepLabel.dataset.step = String(step);
  stepLabel.textContent = "step " + step + " / " + last;
  reveal();
  if (step === last) stop();
}}
function stop() {{
  if (timer !== null) clearInterval(timer);
  timer = null;
  playButton.textContent = "▶ play";
}}
function play() {{
  if (timer !== null) {{ stop(); return; }}
  if (current === last) show(0);
  timer = setInterval(() => show(current + 1), 700);
  playButton.textContent = "⏸ pause";
}}
document.getElementById("first").addEventListener("click", () => show(0));
document.getElementById("prev").addEventListener("click", () => show(current - 1));
document.getElementById("next").addEventListener("click", () => show(current + 1));
document.getElementById("last").addEventListener("click", () => show(last));
showResult.addEventListener("click", () => {{ asked = true; reveal(); }});
playButton.addEventListener("click", play);
slider.addEventListener("input", () => show(Number(slider.value)));
document.addEventListener("keydown", (event) => {{
  if (event.altKey || event.ctrlKey || event.metaKey) return;
  if (event.key === "ArrowRight") show(current + 1);
  else if (event.key === "ArrowLeft") show(current - 1);
  else if (event.key === "Home") show(0);
  else if (event.key === "End") show(last);
  else if (event.key === " ") play();
  else return;
  // The keys step the replay and do nothing else: no scrolling, no slider move.
  event.preventDefault();
}});
document.getElementById("zoom").addEventListener("click", (event) => {{
  const whole = board.classList.toggle("whole");
  event.target.textContent = whole ? "readable board" : "whole board";
}});
show(0);
// Where the board is drawn to its width (a phone), this is the width it reads at.
board.style.setProperty("--board-w",
  Math.round(board.querySelector("svg").viewBox.baseVal.width * {board_scale}) + "px");
</script>
</body>
</html>
"""

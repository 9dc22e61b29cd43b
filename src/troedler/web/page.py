"""The page of a browser game: one document with its styles and script inline.

The script and the style element carry the nonce the content security
policy names, and nothing else may run or style the page; the board, the
panel and the move lists arrive from the server as markup made by
:mod:`troedler.svg` and are only ever put in place, never run.
"""

from __future__ import annotations

import html

from troedler.svg.panel_html import panel_css
from troedler.svg.style import FONT

__all__ = ["page_html"]


def page_html(nonce: str, name: str, *, pause_ms: int = 700) -> str:
    """The game's page, its script and styles marked with ``nonce``.

    ``pause_ms`` is the pause before each opponent's move is shown.
    """
    return _PAGE.format(
        pause=max(0, int(pause_ms)),
        nonce=html.escape(nonce, quote=True),
        title=html.escape(f"troedler: {name} against the bots"),
        font=html.escape(FONT),
        panel_css=panel_css(),
    )


_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>{title}</title>
<style nonce="{nonce}">
* {{ box-sizing: border-box; }}
body {{ margin: 0; font-family: {font}; color: #2b2b2b; background: #ece6d6; }}
header {{ padding: 8px 12px 4px; display: flex; flex-wrap: wrap; gap: 6px 16px;
  align-items: baseline; }}
h1 {{ font-size: 18px; margin: 0; }}
h2 {{ font-size: 16px; margin: 0 0 6px; }}
main {{ display: grid; gap: 10px; padding: 0 12px 12px; align-items: start;
  grid-template-columns: minmax(0, 1fr) minmax(320px, 380px);
  grid-template-areas: "result result" "board side"; }}
#board-box {{ grid-area: board; min-width: 0; }}
#side {{ grid-area: side; min-width: 0; display: flex; flex-direction: column; gap: 10px; }}
#result {{ grid-area: result; }}
.box {{ background: #fffaf0; border-radius: 8px; padding: 8px 10px;
  box-shadow: 0 1px 4px rgba(0, 0, 0, .25); }}
#board svg {{ width: 100%; height: auto; max-height: calc(100vh - 60px); display: block;
  border-radius: 8px; box-shadow: 0 1px 4px rgba(0, 0, 0, .25); }}
#board .village {{ cursor: pointer; }}
#board .village.can-go rect {{ stroke-width: 4; }}
#message {{ font-size: 14px; min-height: 1.4em; }}
#message.error {{ color: #a40000; font-weight: bold; }}
#message.error::before {{ content: "Refused: "; }}
button {{ font: inherit; font-size: 14px; padding: 3px 8px; border-radius: 6px;
  border: 1px solid #8a8478; background: #fffaf0; cursor: pointer; margin: 2px; }}
button:hover {{ background: #ffe7a3; }}
button:disabled {{ opacity: .5; cursor: default; }}
#hand {{ display: flex; flex-wrap: wrap; gap: 4px; }}
#hand button {{ padding: 2px; margin: 0; border-width: 2px; border-color: transparent;
  background: transparent; }}
#hand button.usable {{ border-color: #ffc61a; }}
#hand button.kept {{ opacity: .45; }}
#hand .why {{ font-size: 12px; }}
#discard-note {{ font-size: 13px; background: #fff3c4; border-radius: 5px; padding: 4px 6px; }}
#moves h3 {{ font-size: 13px; margin: 6px 0 2px; color: #6b665c; font-weight: normal; }}
#choices {{ background: #ffe7a3; border-radius: 5px; padding: 4px; }}
#log {{ list-style: none; margin: 0; padding: 0; max-height: 30vh; overflow-y: auto;
  font-size: 13px; }}
#log li {{ padding: 1px 4px; }}
#log li.round {{ font-weight: bold; background: #e4dcc6; }}
#log li.new {{ background: #ffe7a3; }}
#scores {{ border-collapse: collapse; background: #fffaf0; font-size: 14px; }}
#scores th, #scores td {{ padding: 4px 8px; border-bottom: 1px solid #d8cfb8; text-align: center; }}
#scores td:first-child {{ text-align: left; }}
#result-wrap {{ overflow-x: auto; }}
.note {{ font-size: 13px; }}
.faint {{ color: #6b665c; font-size: 12px; }}
[hidden] {{ display: none !important; }}
{panel_css}
@media (max-width: 900px) {{
  main {{ grid-template-columns: minmax(0, 1fr);
    grid-template-areas: "result" "board" "side"; }}
  #board svg {{ max-height: 75vh; }}
}}
</style>
</head>
<body>
<header><h1>{title}</h1><span id="status" class="note"></span></header>
<main>
<section class="box" id="result" hidden><h2>Final scoring</h2><div id="result-wrap"></div>
</section>
<div id="board-box">
<p id="message" role="status"></p>
<div id="board"></div>
</div>
<div id="side">
<section class="box" id="you">
<h2>Your hand</h2>
<p id="discard-note" hidden></p>
<div id="hand"></div>
<p class="faint">Click a village to move there, a card to play it, a dealer pile to take it,
or choose from the list.</p>
<div id="choices" hidden></div>
<div id="moves"></div>
</section>
<section class="box" id="others">
<h2>Opponents</h2>
<button id="pause">pause</button><button id="step">next move</button>
<span id="waiting" class="note"></span>
</section>
<section class="box panel" id="panel"></section>
<section class="box"><h2>Moves</h2><ol id="log"></ol></section>
</div>
</main>
<script nonce="{nonce}">
"use strict";
const base = location.pathname.endsWith("/") ? location.pathname : location.pathname + "/";
const el = (id) => document.getElementById(id);
let view = null;
let paused = false;
let busy = false;
let timer = null;
let seen = 0;  // moves of the log already shown

function say(text, error) {{
  el("message").textContent = text;
  el("message").className = error ? "error" : "";
}}

async function call(path, body) {{
  busy = true;
  try {{
    const init = body === undefined ? {{}} : {{
      method: "POST",
      headers: {{"Content-Type": "application/json"}},
      body: JSON.stringify(body),
    }};
    const response = await fetch(base + path, init);
    const data = await response.json();
    if (!response.ok) {{
      if (response.status === 409) {{
        // The game moved on (another tab, a repeated click): show it as it is.
        const fresh = await fetch(base + "state");
        if (fresh.ok) show(await fresh.json());
      }}
      say(data.error, true);
      el("message").dataset.rule = data.rule || "";
      return null;
    }}
    el("message").dataset.rule = "";
    if (data.choices) {{
      showChoices(data.about, data.choices);
      return null;
    }}
    show(data);
    return data;
  }} catch (error) {{
    say("The game's server did not answer: " + error, true);
    return null;
  }} finally {{
    busy = false;
  }}
}}

function moveButton(text) {{
  const b = document.createElement("button");
  b.textContent = text;
  b.className = "move";
  b.dataset.move = text;
  b.addEventListener("click", () => play(text));
  return b;
}}

function play(text) {{
  if (busy || !view) return;
  say("", false);
  call("move", {{seq: view.seq, move: text}});
}}

function click(what) {{
  if (busy || !view) return;
  say("", false);
  el("choices").hidden = true;
  call("click", Object.assign({{seq: view.seq}}, what));
}}

function showChoices(about, choices) {{
  const box = el("choices");
  box.replaceChildren();
  const label = document.createElement("div");
  label.textContent = "Moves with " + about + ":";
  box.append(label);
  for (const text of choices) box.append(moveButton(text));
  box.hidden = false;
}}

function show(data) {{
  view = data;
  el("board").innerHTML = data.board;
  el("panel").innerHTML = data.panel;
  el("choices").hidden = true;
  const goTo = new Set();
  for (const group of data.groups) for (const m of group.moves) if (m.village) goTo.add(m.village);
  for (const v of el("board").querySelectorAll(".village")) {{
    if (goTo.has(v.dataset.village)) v.classList.add("can-go");
  }}
  const hand = el("hand");
  hand.replaceChildren();
  for (const card of data.hand) {{
    const b = document.createElement("button");
    b.className = "card-button" + (card.usable ? " usable" : "") + (card.why ? " kept" : "");
    b.dataset.card = card.card;
    b.title = card.why || card.card;
    b.innerHTML = card.html;
    b.addEventListener("click", () => click({{card: card.card}}));
    hand.append(b);
    if (card.why) {{
      const why = document.createElement("span");
      why.className = "why faint";
      why.textContent = card.card + ": " + card.why;
      hand.append(why);
    }}
  }}
  if (!data.hand.length) hand.textContent = "no cards";
  el("discard-note").textContent = data.discard;
  el("discard-note").hidden = !data.discard;
  const moves = el("moves");
  moves.replaceChildren();
  for (const group of data.groups) {{
    const h = document.createElement("h3");
    h.textContent = group.label;
    moves.append(h);
    for (const m of group.moves) moves.append(moveButton(m.text));
  }}
  const log = el("log");
  log.replaceChildren();
  let round = 0;
  data.log.forEach((entry, k) => {{
    if (entry.round !== round) {{
      round = entry.round;
      const r = document.createElement("li");
      r.className = "round";
      r.textContent = "Round " + round;
      log.append(r);
    }}
    const li = document.createElement("li");
    li.className = "logged seat-" + entry.seat + (k >= seen ? " new" : "");
    li.textContent = entry.who + ": " + entry.move;
    log.append(li);
  }});
  log.scrollTop = log.scrollHeight;
  if (data.yours) seen = data.log.length;
  el("status").textContent = data.over ? "The game is over." :
    data.yours ? "Your move." : data.mover + " is to move.";
  el("status").dataset.seq = String(data.seq);
  el("waiting").textContent = data.waiting ? data.mover + " is to move" : "";
  el("step").disabled = !data.waiting;
  el("result").hidden = !data.over;
  el("result-wrap").innerHTML = data.result;
  if (data.over) say("The game is over; it is saved in " + data.save + ".", false);
  schedule();
}}

function schedule() {{
  if (timer !== null) clearTimeout(timer);
  timer = null;
  if (view && view.waiting && !paused) {{
    timer = setTimeout(() => {{ timer = null; stepOnce(); }}, {pause});
  }}
}}

function stepOnce() {{
  if (busy || !view || !view.waiting) return;
  call("step", {{seq: view.seq}});
}}

el("board").addEventListener("click", (event) => {{
  const village = event.target.closest(".village");
  if (village) click({{village: village.dataset.village}});
}});
el("panel").addEventListener("click", (event) => {{
  const pile = event.target.closest(".dealer-pile");
  if (pile) click({{pile: Number(pile.dataset.pile)}});
}});
el("pause").addEventListener("click", () => {{
  paused = !paused;
  el("pause").textContent = paused ? "go on" : "pause";
  schedule();
}});
el("step").addEventListener("click", stepOnce);
call("state");
</script>
</body>
</html>
"""

"""The page of a browser game: one document with its styles and script inline.

The script and the style element carry the nonce the content security
policy names, and nothing else may run or style the page; the board, the
panel and the move lists arrive from the server as markup made by
:mod:`troedler.svg` and are only ever put in place, never run.
"""

from __future__ import annotations

import html

from troedler.svg.panel_html import panel_css
from troedler.svg.style import FONT, PHONE_BOARD_SCALE

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
        board_scale=PHONE_BOARD_SCALE,
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
header {{ padding: 6px 12px 4px; display: flex; flex-wrap: wrap; gap: 2px 16px;
  align-items: baseline; }}
h1 {{ font-size: 17px; margin: 0; }}
h2 {{ font-size: 16px; margin: 0 0 6px; }}
main {{ display: grid; gap: 10px; padding: 0 12px 12px; align-items: start;
  grid-template-columns: minmax(0, 1fr) minmax(300px, 370px);
  grid-template-areas: "result result" "board side"; }}
#board-box {{ grid-area: board; min-width: 0; }}
#side {{ grid-area: side; min-width: 0; display: flex; flex-direction: column; gap: 10px; }}
#result {{ grid-area: result; min-width: 0; }}
.box {{ background: #fffaf0; border-radius: 8px; padding: 8px 10px;
  box-shadow: 0 1px 4px rgba(0, 0, 0, .25); }}
#board svg {{ width: 100%; height: auto; max-height: calc(100vh - 50px); display: block;
  border-radius: 8px; box-shadow: 0 1px 4px rgba(0, 0, 0, .25); }}
#board .village {{ cursor: pointer; }}
#board .village.can-go rect {{ stroke-width: 4; }}
#board-tools {{ display: none; }}
button {{ font: inherit; font-size: 14px; min-height: 32px; padding: 3px 8px;
  border-radius: 6px; border: 1px solid #8a8478; background: #fffaf0; cursor: pointer;
  margin: 2px; }}
@media (hover: hover) {{ button:hover {{ background: #ffe7a3; }} }}
button:disabled {{ opacity: .5; cursor: default; }}
button.feed {{ border-color: #d55e00; border-width: 2px; }}
#hand {{ display: flex; flex-wrap: wrap; gap: 4px; align-items: center; }}
#hand button {{ padding: 2px; margin: 0; border-width: 2px; border-color: transparent;
  background: transparent; }}
#hand button.usable {{ border-color: #ffc61a; }}
#hand button.kept {{ opacity: .45; }}
#hand .why {{ font-size: 12px; }}
#discard-note {{ font-size: 13px; background: #fff3c4; border-radius: 5px; padding: 4px 6px; }}
#moves h3, #choices h3 {{ font-size: 13px; margin: 6px 0 2px; color: #6b665c;
  font-weight: normal; }}
#moves .pile-cards {{ display: flex; flex-wrap: wrap; gap: 3px; margin-top: 3px; }}
#choices {{ background: #ffe7a3; border-radius: 5px; padding: 4px; margin-top: 6px; }}
#choices .warning {{ color: #a40000; font-weight: bold; font-size: 14px; margin: 2px 0; }}
#log {{ list-style: none; margin: 0; padding: 0; max-height: 30vh; overflow-y: auto;
  font-size: 13px; }}
#log li {{ padding: 1px 4px; }}
#log li.round {{ font-weight: bold; background: #e4dcc6; }}
#log li.new {{ background: #ffe7a3; }}
#scores {{ border-collapse: collapse; background: #fffaf0; font-size: 14px; }}
#scores th, #scores td {{ padding: 4px 8px; border-bottom: 1px solid #d8cfb8; text-align: center; }}
#scores td:first-child {{ text-align: left; }}
#result-wrap {{ overflow-x: auto; }}
#notice {{ position: fixed; z-index: 10; left: 0; right: 0; bottom: 10px; margin: 0 auto;
  width: min(600px, calc(100vw - 20px)); background: #fff; border: 3px solid #a40000;
  border-radius: 8px; padding: 6px 10px; box-shadow: 0 2px 10px rgba(0, 0, 0, .4);
  font-size: 15px; display: flex; flex-wrap: wrap; align-items: center; gap: 4px 10px; }}
#notice p {{ margin: 0; flex: 1 1 240px; }}
#message {{ font-weight: bold; color: #a40000; }}
#notice.refused #message::before {{ content: "Refused: "; }}
#notice.failure {{ border-color: #6b3fa0; }}
#notice.failure #message {{ color: #4b2a78; }}
#notice.failure #message::before {{ content: "Bot failure: "; }}
#notice.info {{ border-color: #8a8478; }}
#notice.info #message {{ color: #2b2b2b; font-weight: normal; }}
#way-on {{ flex-basis: 100%; font-size: 14px; }}
#way-on code {{ display: block; user-select: all; overflow-wrap: anywhere;
  background: #f1ede4; padding: 3px 5px; border-radius: 4px; margin-top: 3px; }}
.note {{ font-size: 13px; }}
.faint {{ color: #6b665c; font-size: 12px; }}
[hidden] {{ display: none !important; }}
{panel_css}
@media (max-width: 1023px) {{
  main {{ grid-template-columns: minmax(0, 1fr) 330px; }}
}}
@media (max-width: 799px) {{
  /* A phone: the decision first, the board beneath at a size that reads,
     panned with a finger; every button a thumb's width. */
  main {{ display: flex; flex-direction: column; padding: 0 6px 90px; gap: 8px; }}
  main > *, #side > * {{ width: 100%; }}
  #side {{ display: contents; }}
  #result {{ order: 0; }}
  #you {{ order: 1; }}
  #others {{ order: 2; }}
  #board-box {{ order: 3; }}
  #panel {{ order: 4; }}
  #log-box {{ order: 5; }}
  #board {{ overflow: auto; max-height: 70vh; background: #f7f1e3; border-radius: 8px;
    box-shadow: 0 1px 4px rgba(0, 0, 0, .25); }}
  #board svg {{ width: var(--board-w, 100%); max-width: none; max-height: none;
    box-shadow: none; }}
  #board-box.whole #board svg {{ width: 100%; }}
  #board-tools {{ display: flex; align-items: center; gap: 8px; margin-bottom: 4px; }}
  button {{ min-height: 44px; min-width: 44px; font-size: 15px; }}
  #panel .dealer-pile {{ min-height: 44px; }}
  #scores {{ width: 100%; font-size: 12px; }}
  #result {{ padding: 8px 5px; }}
  #scores th, #scores td {{ padding: 3px 1px; }}
  #scores th {{ font-weight: normal; color: #6b665c; }}
}}
</style>
</head>
<body>
<header><h1>{title}</h1><span id="status" class="note"></span></header>
<main>
<section class="box" id="result" hidden><h2>Final scoring</h2><div id="result-wrap"></div>
<p id="end-note" class="note"></p></section>
<div id="board-box">
<div id="board-tools"><button id="zoom">whole board</button>
<span class="faint">drag to see the rest of the board</span></div>
<div id="board"></div>
</div>
<div id="side">
<section class="box" id="you">
<h2>Your hand</h2>
<p id="discard-note" hidden></p>
<div id="hand"></div>
<div id="choices" hidden></div>
<div id="moves"></div>
<p class="faint">Tap a village to move there, a card to play it, a dealer pile to take it,
or a move here.</p>
</section>
<section class="box" id="others">
<h2>Opponents</h2>
<button id="pause">pause</button><button id="step">next move</button>
<span id="waiting" class="note"></span>
</section>
<section class="box panel" id="panel"></section>
<section class="box" id="log-box"><h2>Moves</h2><ol id="log"></ol></section>
</div>
</main>
<div id="notice" role="alert" hidden><p id="message"></p><button id="dismiss">close</button>
<div id="way-on" hidden><span id="saved"></span><code id="resume"></code></div></div>
<script nonce="{nonce}">
"use strict";
const base = location.pathname.endsWith("/") ? location.pathname : location.pathname + "/";
const el = (id) => document.getElementById(id);

// The one layer that talks to the game's server. Each call answers
// {{ok, status, data}}; nothing else in the page knows an address.
const server = {{
  async send(path, body) {{
    const init = body === undefined ? {{}} : {{
      method: "POST",
      headers: {{"Content-Type": "application/json"}},
      body: JSON.stringify(body),
    }};
    const response = await fetch(base + path, init);
    return {{ok: response.ok, status: response.status, data: await response.json()}};
  }},
  state: () => server.send("state"),
  move: (seq, text) => server.send("move", {{seq: seq, move: text}}),
  click: (seq, what) => server.send("click", Object.assign({{seq: seq}}, what)),
  step: (seq) => server.send("step", {{seq: seq}}),
}};

let view = null;
let paused = false;
let busy = false;
let timer = null;
let seen = 0;  // moves of the log already shown
let centredAt = -1;  // the move at which the board was last panned to your cart

// A notice that stays in view at the foot of the window: a refusal, a bot's
// failure (with the way on), or a plain note.
function notify(kind, text, failure) {{
  const notice = el("notice");
  notice.className = kind;
  el("message").textContent = text;
  el("way-on").hidden = !failure;
  if (failure) {{
    el("saved").textContent = failure.saved;
    el("resume").textContent = failure.resume;
  }}
  notice.hidden = !text;
}}

function clear() {{
  if (el("notice").className !== "failure") notify("", "", null);
}}

async function act(request) {{
  if (busy) return;
  busy = true;
  try {{
    const answer = await request();
    const data = answer.data;
    if (!answer.ok) {{
      if (answer.status === 409) {{
        // The game moved on (another tab, a repeated click): show it as it is.
        const fresh = await server.state();
        if (fresh.ok) show(fresh.data);
      }}
      el("message").dataset.rule = data.rule || "";
      if (data.failure) {{
        // The game stops here: no more steps until it is resumed.
        if (view) {{
          Object.assign(view, {{failure: data.failure, waiting: false}});
          showWaiting();
        }}
        notify("failure", data.failure.line, data.failure);
      }} else {{
        notify("refused", data.error, null);
      }}
      return;
    }}
    el("message").dataset.rule = "";
    if (data.choices) {{
      showChoices(data.about, data.choices, data.warning);
      return;
    }}
    show(data);
  }} catch (error) {{
    notify("refused", "the game's server did not answer: " + error, null);
  }} finally {{
    busy = false;
  }}
}}

function button(label, css) {{
  const b = document.createElement("button");
  b.textContent = label;
  b.className = css;
  return b;
}}

function moveButton(text, label, feed) {{
  const b = button(label, "move" + (feed ? " feed" : ""));
  b.dataset.move = text;
  if (label !== text) b.title = text;
  b.addEventListener("click", () => play(text));
  return b;
}}

function play(text) {{
  if (busy || !view) return;
  clear();
  act(() => server.move(view.seq, text));
}}

function click(what) {{
  if (busy || !view) return;
  if (!view.yours) {{
    notify("info", view.over ? "The game is over." : view.failure ? view.failure.line :
      view.mover + " is to move: wait for your turn.", view.failure);
    return;
  }}
  clear();
  hideChoices();
  act(() => server.click(view.seq, what));
}}

function hideChoices() {{
  el("choices").hidden = true;
  el("moves").hidden = false;
}}

// Several moves fit what was tapped: only those, in place of the list.
function showChoices(about, choices, warning) {{
  const box = el("choices");
  box.replaceChildren();
  const h = document.createElement("h3");
  h.textContent = "Choose: " + about;
  box.append(h);
  if (warning) {{
    const w = document.createElement("p");
    w.className = "warning";
    w.textContent = "This plays special feed: " + warning + ".";
    box.append(w);
  }}
  for (const c of choices) box.append(moveButton(c.text, c.label, c.feed));
  const back = button("back", "back");
  back.addEventListener("click", hideChoices);
  box.append(back);
  box.hidden = false;
  el("moves").hidden = true;
  // A tap on the board far below: bring the choices to where the person looks.
  box.scrollIntoView({{block: "nearest"}});
}}

function showMoves(groups) {{
  const moves = el("moves");
  moves.replaceChildren();
  for (const group of groups) {{
    const h = document.createElement("h3");
    h.textContent = group.label;
    moves.append(h);
    for (const option of group.options) {{
      if (option.choices.length === 1) {{
        const only = option.choices[0];
        const b = moveButton(only.text, only.text, only.feed);
        if (option.cards) {{
          // A dealer pile's cards on its own button: chosen where they are seen.
          const cards = document.createElement("span");
          cards.className = "pile-cards";
          cards.innerHTML = option.cards;
          b.append(cards);
        }}
        moves.append(b);
      }} else {{
        const b = button(option.label + " \u2026", "option" + (option.feed ? " feed" : ""));
        b.dataset.option = option.label;
        b.addEventListener("click", () => {{
          clear();
          showChoices(option.label, option.choices, null);
        }});
        moves.append(b);
      }}
    }}
  }}
}}

function showHand(cards) {{
  const hand = el("hand");
  hand.replaceChildren();
  for (const card of cards) {{
    const css = "card-button" + (card.usable ? " usable" : "") + (card.why ? " kept" : "");
    const b = button("", css);
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
  if (!cards.length) hand.textContent = "no cards";
}}

function showLog(entries) {{
  const log = el("log");
  log.replaceChildren();
  let round = 0;
  entries.forEach((entry, k) => {{
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
}}

// On a narrow screen the board is wider than the window: bring your cart into view
// when your turn comes, by panning the board alone, never the page.
function centreOnCart() {{
  const box = el("board");
  if (box.scrollWidth <= box.clientWidth + 1 || centredAt === view.seq) return;
  const cart = box.querySelector(".cart.seat-" + view.seat);
  if (!cart) return;
  centredAt = view.seq;
  const frame = box.getBoundingClientRect();
  const at = cart.getBoundingClientRect();
  box.scrollLeft += at.left + at.width / 2 - (frame.left + frame.width / 2);
  box.scrollTop += at.top + at.height / 2 - (frame.top + frame.height / 3);
}}

// A tap far down the page (a village on the board, a dealer pile) must not
// leave the next decision out of sight: when it is not all in the window,
// bring it to the top. Only the page moves, never the board's own panning.
function decisionIntoView() {{
  const box = el("you").getBoundingClientRect();
  if (box.top < 0 || box.bottom > innerHeight) el("you").scrollIntoView({{block: "start"}});
}}

// The status line and the opponents' box: who is to move, or that the game stopped.
function showWaiting() {{
  el("status").textContent = view.over ? "The game is over." :
    view.failure ? "The game stopped: a bot failed." :
    view.yours ? "Your move." : view.mover + " is to move.";
  const failed = view.failure;
  el("waiting").textContent = failed ? "stopped: " + failed.line :
    view.waiting ? view.mover + " is to move" : "";
  el("step").disabled = !view.waiting;
}}

function show(data) {{
  const wasYours = view !== null && view.yours;
  view = data;
  el("board").innerHTML = data.board;
  el("board").style.setProperty("--board-w", Math.round(data.boardWidth * {board_scale}) + "px");
  el("panel").innerHTML = data.panel;
  hideChoices();
  const goTo = new Set();
  for (const group of data.groups) for (const m of group.moves) if (m.village) goTo.add(m.village);
  for (const v of el("board").querySelectorAll(".village")) {{
    if (goTo.has(v.dataset.village)) v.classList.add("can-go");
  }}
  showHand(data.hand);
  el("discard-note").textContent = data.discard;
  el("discard-note").hidden = !data.discard;
  showMoves(data.groups);
  showLog(data.log);
  if (data.yours) {{
    seen = data.log.length;
    if (!wasYours) centreOnCart();
    decisionIntoView();
  }}
  el("status").dataset.seq = String(data.seq);
  showWaiting();
  el("result").hidden = !data.over;
  el("result-wrap").innerHTML = data.result;
  el("end-note").textContent = data.over ?
    "The game is saved in " + data.save + "; its seed was " + data.seed + "." : "";
  if (data.failure) notify("failure", data.failure.line, data.failure);
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
  act(() => server.step(view.seq));
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
el("dismiss").addEventListener("click", () => {{ el("notice").hidden = true; }});
el("zoom").addEventListener("click", () => {{
  const whole = el("board-box").classList.toggle("whole");
  el("zoom").textContent = whole ? "readable board" : "whole board";
}});
act(() => server.state());
</script>
</body>
</html>
"""

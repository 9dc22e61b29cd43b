"""The server's one page: the lobby, a match's waiting room with its
invitation link, and the match itself for a seat or a spectator, live over
the websocket with a reconnecting notice.

One self-contained document: its script and style carry a nonce that the
Content-Security-Policy names, it loads nothing else, and it talks only to
the server it came from. Names and moves are set as text, never as markup.
"""

from __future__ import annotations

__all__ = ["csp", "page_html"]


def csp(nonce: str) -> str:
    """The page's Content-Security-Policy: its own nonce'd script and style,
    connections to its own server only, images only from what the script
    fetched there (the map), nothing else."""
    return (
        "default-src 'none'; "
        f"script-src 'nonce-{nonce}'; style-src 'nonce-{nonce}'; "
        "connect-src 'self'; img-src blob:; base-uri 'none'; form-action 'none'; "
        "frame-ancestors 'none'"
    )


_STYLE = """
body { font: 16px/1.4 system-ui, sans-serif; margin: 0 auto; max-width: 60rem; padding: 0.5rem; }
button { font: inherit; margin: 0.15rem; padding: 0.35rem 0.6rem; min-height: 44px; }
#invite { overflow-wrap: anywhere; }
#map-box { overflow: auto; }
/* The whole map in 60% of the window's height, below the moves and the hands. */
#map { display: block; width: 100%; height: 60vh; object-fit: contain; }
#map:not([src]) { display: none; }
/* A phone: the map at a size that reads, panned with a finger. */
@media (max-width: 799px) {
  #map-box { max-height: 60vh; }
  #map { width: 250%; height: auto; max-width: none; }
}
input, select { font: inherit; }
section { border: 1px solid #bbb; border-radius: 6px; margin: 0.5rem 0; padding: 0.5rem; }
#notice { background: #fd8; padding: 0.3rem; display: none; }
#notice.shown { display: block; }
.players { display: grid; gap: 0.4rem;
  grid-template-columns: repeat(auto-fit, minmax(11rem, 1fr)); }
.player { border: 1px solid #ccc; border-radius: 4px; padding: 0.3rem; }
.turn { border-color: #07a; box-shadow: 0 0 0 2px #07a; }
.log { max-height: 12rem; overflow-y: auto; font-family: monospace; }
"""

_SCRIPT = r"""
"use strict";
const $ = (id) => document.getElementById(id);
const el = (tag, text, parent) => {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = String(text);
  if (parent) parent.appendChild(node);
  return node;
};
const api = async (method, path, body, token) => {
  const headers = {};
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (token) headers["Authorization"] = "Bearer " + token;
  const answer = await fetch(path, {method, headers,
    body: body === undefined ? undefined : JSON.stringify(body)});
  const data = await answer.json();
  if (!answer.ok) throw new Error(data.error || answer.status);
  return data;
};
const tokens = () => JSON.parse(localStorage.getItem("troedler-tokens") || "{}");
const keep = (match, token) => {
  const all = tokens(); all[match] = token;
  localStorage.setItem("troedler-tokens", JSON.stringify(all));
};
let socket = null, version = 0, moveCount = 0, retry = 0, current = null;
let drawn = -1, mapUrl = null;  // the version whose map is shown, and its object URL

function show(id) {
  for (const view of ["lobby", "match"]) $(view).hidden = view !== id;
}

async function lobby() {
  show("lobby");
  if (socket) { socket.onclose = null; socket.close(); socket = null; }
  const list = $("open-matches");
  list.textContent = "";
  try {
    const data = await api("GET", "/api/matches?status=waiting");
    if (!data.matches.length) el("p", "No match is waiting for players.", list);
    for (const match of data.matches) {
      const row = el("div", null, list);
      const who = match.seats.map((s) => s.bot || s.name || "(open)").join(", ");
      el("span", match.settings.players + " players: " + who + " ", row);
      const go = el("button", "open", row);
      go.dataset.match = match.match;
      go.addEventListener("click", () => { location.hash = "match=" + match.match; });
    }
  } catch (error) { el("p", "The lobby could not be read: " + error.message, list); }
}

async function create() {
  const players = Number($("players").value);
  const bot = $("bot").value;
  const bots = [null];
  for (let seat = 1; seat < players; seat++) bots.push(bot === "person" ? null : bot);
  try {
    const match = await api("POST", "/api/matches",
      {players, bots, public: $("public").checked});
    location.hash = "match=" + match.match;
  } catch (error) { $("create-error").textContent = error.message; }
}

async function join(match) {
  const name = $("name").value.trim() || "player";
  try {
    const seat = await api("POST", "/api/matches/" + match + "/join", {name});
    keep(match, seat.token);
    connect(match);
  } catch (error) { $("match-error").textContent = error.message; }
}

function connect(match) {
  current = match;
  if (socket) { socket.onclose = null; socket.close(); }
  const token = tokens()[match];
  const url = (location.protocol === "https:" ? "wss://" : "ws://") + location.host +
    "/api/matches/" + match + "/play";
  socket = new WebSocket(url);
  socket.onopen = () => {
    const hello = {type: "hello", protocol: 1, since: version};
    if (token) hello.token = token;
    socket.send(JSON.stringify(hello));
  };
  socket.onmessage = (event) => receive(JSON.parse(event.data));
  socket.onclose = () => {
    if (current !== match) return;
    $("notice").classList.add("shown");
    retry = Math.min(retry + 1, 5);
    setTimeout(() => { if (current === match) connect(match); }, 500 * retry);
  };
}

function receive(message) {
  if (message.type === "welcome") {
    retry = 0;
    $("notice").classList.remove("shown");
    for (const move of message.moves) logMove(move.seat, move.move);
  }
  if (message.type === "moved") logMove(message.seat, message.move);
  if (message.type === "error") $("match-error").textContent = message.message;
  if (message.type === "accepted") $("match-error").textContent = "";
  if (["welcome", "moved", "status"].includes(message.type)) {
    version = Math.max(version, message.version);
    render(message);
  }
}

function logMove(seat, move) {
  el("div", "seat " + seat + ": " + move, $("log"));
  $("log").scrollTop = $("log").scrollHeight;
}

function render(message) {
  if (message.seats) {
    const seats = $("seats");
    seats.textContent = "";
    message.seats.forEach((seat, i) => {
      const here = message.connected && message.connected[i] ? " (connected)" : "";
      el("div", "seat " + i + ": " + (seat.bot ? "bot " + seat.bot : seat.name || "open") +
        (seat.left ? " (left)" : "") + here, seats);
    });
    $("watchers").textContent = (message.spectators || 0) + " watching";
  }
  if (message.status) {
    $("status").textContent = message.status;
    const mine = tokens()[current];
    $("join-box").hidden = !!mine || message.status !== "waiting";
    $("invite").textContent = location.origin + "/#match=" + current;
  }
  const position = message.position;
  if (!position) return;
  drawMap(current, message.version);
  const board = $("position");
  board.textContent = "";
  el("div", "Round " + position.round + ", " + position.phase.replace(/_/g, " ") +
    (position.current_player === null ? "" : ", seat " + position.current_player + " to move"),
    board);
  const players = el("div", null, board);
  players.className = "players";
  position.players.forEach((player, i) => {
    const box = el("div", null, players);
    box.className = "player" + (position.current_player === i ? " turn" : "");
    el("strong", "seat " + i + (position.seat === i ? " (you)" : ""), box);
    el("div", "cart in " + player.cart, box);
    el("div", "goods " + (player.goods || "none"), box);
    el("div", player.hand ? "hand: " + player.hand.join(" ") : player.hand_size + " cards",
      box);
    el("div", "value pile: " + player.value_pile_size + " cards", box);
  });
  const piles = position.dealer_piles.map((pile, i) =>
    pile === null ? null : (i + 1) + ": " + pile.map((c) => c || "?").join(" "))
    .filter((text) => text !== null);
  if (piles.length) el("div", "dealer piles: " + piles.join(" | "), board);
  if (position.result) {
    el("div", "Game over: points " + position.result.points.join(", ") +
      "; winners: seat " + position.result.winners.join(", seat "), board);
  }
  const moves = $("moves");
  moves.textContent = "";
  for (const text of position.legal_moves) {
    const button = el("button", text, moves);
    button.addEventListener("click", () => {
      moveCount += 1;
      socket.send(JSON.stringify({type: "move", version: message.version, move: text,
        id: "page-" + Date.now() + "-" + moveCount}));
      moves.textContent = "";
    });
  }
}

async function drawMap(match, at) {
  // The map of the newest version asked for; an answer that comes late is dropped.
  if (at <= drawn) return;
  drawn = at;
  const token = tokens()[match];
  const headers = token ? {Authorization: "Bearer " + token} : {};
  try {
    const answer = await fetch("/api/matches/" + match + "/map.svg", {headers});
    if (!answer.ok) return;
    const picture = await answer.blob();
    if (current !== match || at !== drawn) return;
    if (mapUrl) URL.revokeObjectURL(mapUrl);
    mapUrl = URL.createObjectURL(picture);
    $("map").src = mapUrl;
  } catch (error) { /* the next move draws it again */ }
}

function route() {
  const found = /^#match=([A-Za-z0-9_-]{1,32})$/.exec(location.hash);
  if (!found) { current = null; lobby(); return; }
  show("match");
  version = 0;
  drawn = -1;
  $("map").removeAttribute("src");
  $("log").textContent = "";
  $("position").textContent = "";
  $("moves").textContent = "";
  connect(found[1]);
}

$("create").addEventListener("click", create);
$("join").addEventListener("click", () => join(current));
$("back").addEventListener("click", () => { location.hash = ""; });
window.addEventListener("hashchange", route);
route();
"""

_BODY = """
<div id="notice" role="status">Connection lost: reconnecting…</div>
<main id="lobby" hidden>
<h1>troedler</h1>
<section><h2>New match</h2>
<label>Players <select id="players"><option>2</option><option>3</option>
<option>4</option></select></label>
<label>Other seats <select id="bot"><option value="person">people</option>
<option>greedy</option><option>random</option></select></label>
<label><input id="public" type="checkbox" checked> listed in the lobby</label>
<button id="create">Create</button> <span id="create-error"></span></section>
<section><h2>Waiting for players</h2><div id="open-matches"></div></section>
</main>
<main id="match" hidden>
<button id="back">Lobby</button> <span id="status"></span> <span id="watchers"></span>
<section><div>Invitation link: <code id="invite"></code></div><div id="seats"></div>
<div id="join-box" hidden><label>Your name <input id="name" maxlength="64"></label>
<button id="join">Take a seat</button></div></section>
<section><div id="moves"></div><div id="match-error" role="alert"></div></section>
<section id="position"></section>
<section id="map-box">
<img id="map" alt="The map: the villages, their goods and the carts"></section>
<section class="log" id="log"></section>
</main>
"""


def page_html(nonce: str) -> str:
    """The page, its script and style carrying ``nonce``."""
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<title>troedler</title><style nonce="{nonce}">{_STYLE}</style></head>'
        f'<body>{_BODY}<script nonce="{nonce}">{_SCRIPT}</script></body></html>\n'
    )

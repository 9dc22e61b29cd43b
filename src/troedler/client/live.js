// troedler's live page: the lobby and a match, for a seat or a spectator,
// over the server's HTTP API and websocket (docs/server.md). Everything it
// shows is drawn by draw.js from what the server sends.
"use strict";

(() => {
  const T = Troedler;
  const {h, byId} = T;
  const base = new URL(".", location.href);
  const api = (path) => new URL("api/" + path, base).toString();
  const PROTOCOL = 1;

  // ---- the seats this browser holds ----------------------------------------

  const STORE = "troedler-seats";
  function held() {
    try {
      const found = JSON.parse(localStorage.getItem(STORE) || "{}");
      return found && typeof found === "object" ? found : {};
    } catch (error) {
      return {};
    }
  }
  function keep(match, seat) {
    const all = held();
    all[match] = Object.assign({at: Date.now()}, seat);
    localStorage.setItem(STORE, JSON.stringify(all));
  }
  function forget(match) {
    const all = held();
    delete all[match];
    localStorage.setItem(STORE, JSON.stringify(all));
  }
  const tokenOf = (match) => (held()[match] || {}).token || null;

  async function request(method, path, body, token) {
    const headers = {};
    if (body !== undefined) headers["Content-Type"] = "application/json";
    if (token) headers.Authorization = "Bearer " + token;
    const answer = await fetch(api(path), {method, headers,
      body: body === undefined ? undefined : JSON.stringify(body)});
    let data = {};
    try {
      data = await answer.json();
    } catch (error) {
      data = {error: "the server answered " + answer.status};
    }
    if (!answer.ok) {
      const failure = new Error(data.error || String(answer.status));
      failure.code = data.code;
      throw failure;
    }
    return data;
  }

  // ---- notices --------------------------------------------------------------

  function notify(kind, text) {
    const notice = byId("notice");
    notice.className = kind;
    byId("message").textContent = text;
    notice.hidden = !text;
  }
  byId("dismiss").addEventListener("click", () => { byId("notice").hidden = true; });

  // ---- the server ------------------------------------------------------------

  let server = {bots: ["random", "greedy"], local: false};

  async function readServer() {
    try {
      server = await request("GET", "server");
    } catch (error) { /* an older server: the defaults */ }
    document.body.classList.toggle("local", !!server.local);
  }

  // ---- the lobby ---------------------------------------------------------------

  function show(id) {
    byId("lobby").hidden = id !== "lobby";
    byId("match").hidden = id !== "match";
  }

  // The name the server shows a seat by (a person's, or a bot's kind).
  function seatName(seat) {
    return seat.shown || seat.name || seat.bot || "open seat";
  }

  function matchRow(summary, action) {
    const who = summary.seats.map(seatName).join(", ");
    const clock = summary.settings.clock || {};
    const timed = clock.move_seconds || clock.game_seconds ? " · clock" : "";
    const button = h("button", {type: "button", "data-match": summary.match}, action);
    button.addEventListener("click", () => { location.hash = "match=" + summary.match; });
    return h("div", {class: "match-row"},
      h("span", null, T.count(summary.settings.players, "player") + timed + ": ",
        h("span", {class: "names"}, who), " ",
        h("span", {class: "faint"}, summary.status)),
      button);
  }

  async function fillList(id, status, action) {
    const list = byId(id);
    try {
      const data = await request("GET", "matches?status=" + status);
      list.replaceChildren(...data.matches.map((m) => matchRow(m, action)));
      if (!data.matches.length) list.append(h("p", {class: "faint"}, "None now."));
    } catch (error) {
      list.replaceChildren(h("p", {class: "error"}, "Not read: " + error.message));
    }
  }

  async function fillMine() {
    const list = byId("my-matches");
    const mine = Object.entries(held()).sort((a, b) => (b[1].at || 0) - (a[1].at || 0))
      .slice(0, 20);
    const rows = [];
    for (const [match] of mine) {
      try {
        const summary = await request("GET", "matches/" + match);
        const running = summary.status === "waiting" || summary.status === "playing";
        rows.push({running, row: matchRow(summary, running ? "go on" : "see")});
      } catch (error) {
        if (error.code === "no_match") forget(match);
      }
    }
    rows.sort((a, b) => b.running - a.running);
    list.replaceChildren(...rows.map((r) => r.row));
    if (!rows.length) list.append(h("p", {class: "faint"}, "No match in this browser yet."));
  }

  function seatKinds() {
    const players = Number(byId("players").querySelector("[aria-pressed=true]").dataset.value);
    const box = byId("seat-kinds");
    const before = [...box.querySelectorAll("select")].map((select) => select.value);
    box.replaceChildren(h("div", {class: "seat-kind"}, h("span", null, "You"),
      h("span", {class: "faint"}, "a person")));
    for (let seat = 1; seat < players; seat++) {
      const label = "Opponent " + seat;
      const select = h("select", {"data-seat": seat, "aria-label": label},
        h("option", {value: ""}, "a person"),
        server.bots.map((bot) => h("option", {value: bot}, "bot: " + bot)));
      select.value = before[seat - 1] !== undefined ? before[seat - 1] : "";
      box.append(h("label", {class: "seat-kind"}, h("span", null, label), select));
    }
  }

  for (const button of byId("players").querySelectorAll("button")) {
    button.addEventListener("click", () => {
      for (const other of byId("players").querySelectorAll("button")) {
        other.setAttribute("aria-pressed", String(other === button));
      }
      seatKinds();
    });
  }

  // The name typed, or the one used last in this browser; with neither, a
  // name none of ``taken`` has: "player", else "player 2", "player 3" ...
  function nameFrom(box, taken) {
    const name = byId(box).value.trim() || localStorage.getItem("troedler-name") || "";
    if (name) return name;
    for (let k = 1; ; k++) {
      const made = k === 1 ? "player" : "player " + k;
      if (!(taken || []).includes(made)) return made;
    }
  }

  async function create() {
    const players = Number(byId("players").querySelector("[aria-pressed=true]").dataset.value);
    const bots = [null];
    for (const select of byId("seat-kinds").querySelectorAll("select")) {
      bots.push(select.value || null);
    }
    const clock = {on_timeout: byId("on-timeout").value};
    if (byId("move-seconds").value) clock.move_seconds = Number(byId("move-seconds").value);
    if (byId("game-seconds").value) clock.game_seconds = Number(byId("game-seconds").value);
    const name = nameFrom("my-name");
    byId("create-error").textContent = "";
    try {
      const match = await request("POST", "matches", {
        players, bots, clock, recall: byId("recall").value,
        public: byId("public").checked, spectators: byId("spectators").checked});
      // The creator sits down at once, in the first seat.
      const seat = await request("POST", "matches/" + match.match + "/join", {name, seat: 0});
      if (byId("my-name").value.trim()) localStorage.setItem("troedler-name", name);
      keep(match.match, {token: seat.token, seat: seat.seat, name});
      location.hash = "match=" + match.match;
    } catch (error) {
      byId("create-error").textContent = error.message;
    }
  }
  byId("create").addEventListener("click", create);

  function refreshLists() {
    return Promise.all([fillMine(), fillList("waiting-matches", "waiting", "open"),
      fillList("playing-matches", "playing", "watch")]);
  }

  async function lobby() {
    show("lobby");
    closeSocket();
    byId("my-name").value = localStorage.getItem("troedler-name") || "";
    seatKinds();
    await refreshLists();
  }

  // The lists stay fresh while the lobby is in view: every few seconds,
  // and at once when the window comes back to the front.
  const LOBBY_SECONDS = 5;
  let listing = false;
  async function relist() {
    if (listing || byId("lobby").hidden || document.hidden) return;
    listing = true;
    try {
      await refreshLists();
    } finally {
      listing = false;
    }
  }
  setInterval(relist, LOBBY_SECONDS * 1000);
  window.addEventListener("focus", relist);
  document.addEventListener("visibilitychange", relist);

  byId("new-match").addEventListener("click", () => {
    byId("create-box").classList.add("open");
    byId("new-match").setAttribute("aria-expanded", "true");
    byId("my-name").focus();
  });

  // ---- a match ------------------------------------------------------------------

  let socket = null;
  let match = null;   // the match shown
  let retry = 0;
  let version = 0;
  let state = null;   // everything the messages told
  let pending = null; // the id of the move sent and not yet answered
  let moveNumber = 0;
  let choices = null; // the folded head whose choices are open
  const queue = [];   // messages not yet shown (the others' moves, one at a time)
  let pumping = false;
  let centredAt = -1;
  let endShown = null; // the match whose end was last brought into view

  function closeSocket() {
    if (socket) {
      socket.onclose = null;
      socket.close();
      socket = null;
    }
  }

  function openMatch(id) {
    if (match !== id) {
      match = id;
      version = 0;
      state = null;
      pending = null;
      choices = null;
      queue.length = 0;
      centredAt = -1;
      for (const part of ["board", "panel", "log", "hand", "moves", "seats", "scores",
        "bot-failure-list", "last-move", "status", "title", "watching"]) {
        byId(part).replaceChildren();
      }
      byId("result").hidden = true;
      byId("bot-failures").hidden = true;
      byId("you").hidden = true;
      byId("waiting-room").hidden = true;
    }
    show("match");
    connect();
  }

  function connect() {
    closeSocket();
    const id = match;
    const token = tokenOf(id);
    const url = new URL("api/matches/" + id + "/play", base);
    url.protocol = location.protocol === "https:" ? "wss:" : "ws:";
    const opened = new WebSocket(url.toString());
    socket = opened;
    opened.onopen = () => {
      const hello = {type: "hello", protocol: PROTOCOL, since: version};
      if (token) hello.token = token;
      opened.send(JSON.stringify(hello));
    };
    opened.onmessage = (event) => {
      if (socket !== opened) return;
      queue.push(JSON.parse(event.data));
      pump();
    };
    opened.onclose = (event) => {
      if (socket !== opened || match !== id) return;
      socket = null;
      if (event.code === 1008 && state === null) return;  // refused: the notice says why
      byId("connection").hidden = false;
      retry = Math.min(retry + 1, 5);
      setTimeout(() => { if (match === id && socket === null) connect(); },
        [500, 1000, 2000, 4000, 5000][retry - 1]);
    };
  }

  function timed() {
    const clock = state && state.settings && state.settings.clock;
    return !!(clock && (clock.move_seconds || clock.game_seconds));
  }

  // The others' moves are shown one at a time, with a short pause, where
  // no clock runs (against bots they come all at once). In a game of one's
  // own they may be held (paused), and shown one by one (next move).
  let paused = false;
  const holds = (message) => paused && message.type === "moved" && !!state &&
    message.seat !== state.seat;

  async function pump() {
    if (pumping) return;
    pumping = true;
    try {
      while (queue.length && !holds(queue[0])) {
        const message = queue.shift();
        const others = message.type === "moved" && state && message.seat !== state.seat;
        receive(message);
        if (others && queue.some((m) => m.type === "moved") && !timed()) {
          await new Promise((done) => setTimeout(done, server.local ? 700 : 400));
        }
      }
    } finally {
      pumping = false;
      renderWatching();
    }
  }

  function renderWatching() {
    const shown = !!server.local && !!state && state.status === "playing" &&
      state.seat !== null;
    byId("watch-controls").hidden = !shown;
    if (!shown) return;
    const waiting = queue.filter((m) => m.type === "moved").length;
    byId("pause-moves").textContent = paused ? "go on" : "pause";
    byId("pause-moves").setAttribute("aria-pressed", String(paused));
    byId("next-move").disabled = !paused || !waiting;
    byId("next-move").textContent = paused && waiting ? "next move (" + waiting + ")" :
      "next move";
  }
  byId("pause-moves").addEventListener("click", () => {
    paused = !paused;
    renderWatching();
    pump();
  });
  byId("next-move").addEventListener("click", () => {
    if (pumping || !queue.length || !holds(queue[0])) return;
    receive(queue.shift());
    pump();  // and what came with that move, up to the next one held
  });

  function receive(message) {
    const kind = message.type;
    if (kind === "welcome") {
      retry = 0;
      byId("connection").hidden = true;
      const log = state && state.match === message.match ? state.log : [];
      for (const made of message.moves) {
        if (!log.some((entry) => entry.version === made.version)) log.push(made);
      }
      state = {
        match: message.match, seat: message.seat, table: message.table,
        settings: message.settings, log, position: message.position || null,
        last: message.last, lastSeat: log.length ? log[log.length - 1].seat : null,
        failures: state && state.match === message.match ? state.failures : [],
      };
      absorb(message);
      version = message.version;
      pending = null;
      render();
      return;
    }
    if (!state) {
      if (kind === "error") notify("refused", message.message);
      if (kind === "error" && message.code === "hello" && tokenOf(match)) {
        forget(match);  // the seat is no longer this browser's: watch instead
        setTimeout(connect, 500);
      }
      return;
    }
    if (kind === "moved") {
      if (message.version <= version) return;
      if (message.version !== version + 1) {  // a move was missed: catch up
        connect();
        return;
      }
      const round = state.position ? state.position.round : 0;
      state.log.push({version: message.version, seat: message.seat, move: message.move, round});
      state.position = message.position;
      state.last = message.facts;
      state.lastSeat = message.seat;
      version = message.version;
      choices = null;
      if (message.seat === state.seat) pending = null;
      absorb(message);
      render();
    } else if (kind === "status") {
      absorb(message);
      if (message.position && message.version === version) state.position = message.position;
      render();
    } else if (kind === "bot_failed") {
      // A bot failed its move and a random one was made for it: the server's
      // line, as text; the last few are kept until closed.
      state.failures = state.failures.concat([String(message.message).slice(0, 500)])
        .slice(-FAILURES_SHOWN);
      byId("bot-failures").hidden = false;
      renderFailures();
    } else if (kind === "stood_in") {
      // A seat ran out of time: the stand-in bot made its move.
      const who = names()[message.seat] || "a player";
      notify("info", (message.seat === state.seat ? "You" : who) + " ran out of time: " +
        "the bot " + message.bot + " made the move " + message.move + ".");
    } else if (kind === "accepted") {
      pending = null;
    } else if (kind === "error") {
      if (message.id && message.id === pending) pending = null;
      if (message.code !== "stale") notify("refused", T.reasonText(message.message));
      render();
    }
  }

  const FAILURES_SHOWN = 3;
  function renderFailures() {
    const failures = state ? state.failures : [];
    byId("bot-failure-list").replaceChildren(...failures.map((line) => h("li", null, line)));
    if (!failures.length) byId("bot-failures").hidden = true;
  }
  byId("bot-failures-close").addEventListener("click", () => {
    state.failures = [];
    renderFailures();
  });

  // The fields of a message that every kind may carry.
  function absorb(message) {
    for (const key of ["status", "seats", "connected", "spectators", "deadline", "clocks",
      "turn_started", "ending", "rematch"]) {
      if (key in message) state[key] = message[key];
    }
    if ("now" in message) state.offset = message.now - Date.now() / 1000;
  }

  function names() {
    return (state.seats || []).map(seatName);
  }

  function view() {
    return {table: state.table, position: state.position, names: names(),
      last: state.last, lastSeat: state.lastSeat};
  }

  function myTurn() {
    const p = state.position;
    return !!p && state.seat !== null && p.current_player === state.seat &&
      state.status === "playing" && (p.moves || []).length > 0;
  }

  function now() {
    return Date.now() / 1000 + (state.offset || 0);
  }

  function moving(seat) {
    const p = state.position;
    return !!p && p.current_player === seat && state.status === "playing";
  }

  // Seconds left of a seat's time: the seat to move counts down to the
  // deadline the server set; the others show what their game clock holds.
  function secondsLeft(seat) {
    if (moving(seat) && state.deadline) return state.deadline - now();
    return gameSecondsLeft(seat);
  }

  // Seconds left of a seat's game clock: what the server's clocks hold; for
  // the seat to move, counted down from when its turn began (a countdown
  // to show: the server charges the time itself when the move is made).
  function gameSecondsLeft(seat) {
    if (!state.clocks) return null;
    const left = state.clocks[seat];
    return moving(seat) && state.turn_started ? left - (now() - state.turn_started) : left;
  }

  function tick() {
    if (!state || byId("match").hidden) return;
    for (const clock of document.querySelectorAll("[data-clock]")) {
      const left = secondsLeft(Number(clock.dataset.clock));
      clock.textContent = left === null ? "" : T.clockText(left);
      clock.classList.toggle("short", left !== null && left < 15);
    }
    // The mover's game clock beside its move's, where the two differ.
    for (const clock of document.querySelectorAll("[data-game-clock]")) {
      const seat = Number(clock.dataset.gameClock);
      const left = moving(seat) && state.deadline ? gameSecondsLeft(seat) : null;
      const shown = left !== null && Math.abs(left - secondsLeft(seat)) >= 1;
      clock.textContent = shown ? "game " + T.clockText(left) : "";
      clock.classList.toggle("short", shown && left < 15);
    }
  }
  setInterval(tick, 250);

  function render() {
    if (!state) return;
    // What the page shows, for whoever reads it (a test, a person's tools).
    document.body.dataset.version = String(version);
    document.body.dataset.status = state.status || "";
    const v = view();
    const names = v.names;
    const p = state.position;
    const mine = state.seat;
    byId("title").textContent = names.join(" · ");
    byId("watching").textContent = state.spectators ? state.spectators + " watching" : "";
    // The waiting room.
    const waiting = state.status === "waiting";
    byId("waiting-room").hidden = !waiting;
    document.body.classList.toggle("waiting", waiting);
    if (waiting) {
      byId("match-settings").textContent = settingsText(state.settings);
      byId("invite").textContent = new URL("#match=" + state.match, base).toString();
      const open = (state.seats || []).some((seat) => !seat.bot && !seat.name);
      byId("join-box").hidden = mine !== null || !open;
      byId("leave").hidden = mine === null;
      byId("join-name").value = byId("join-name").value || localStorage.getItem("troedler-name")
        || "";
    }
    renderSeats(names);
    renderWatching();
    if (!p) {
      byId("status").textContent = waiting ? "waiting for players" : state.status;
      byId("last-move").textContent = "";
      return;
    }
    byId("status").textContent = T.statusLine(v);
    const made = state.log.length ? state.log[state.log.length - 1].move : "";
    byId("last-move").textContent = T.lastMoveText(v, made);
    // The board, redrawn from the position.
    const board = byId("board");
    const scrolled = [board.scrollLeft, board.scrollTop];
    board.replaceChildren(T.drawMap(v));
    T.fitBoard(board, v);
    [board.scrollLeft, board.scrollTop] = scrolled;
    if (!byId("legend").childElementCount) byId("legend").replaceChildren(...T.legend(v.table));
    byId("panel").replaceChildren(...T.panel(v, false));
    // The decision.
    renderYou(v);
    // The log: the moves since the seat's own last one are marked new (for
    // a spectator, the last move).
    const log = byId("log");
    let newFrom = state.log.length - 1;
    if (mine !== null) {
      newFrom = state.log.length;
      while (newFrom > 0 && state.log[newFrom - 1].seat !== mine) newFrom -= 1;
    }
    log.replaceChildren(...T.logItems(state.log, names, newFrom));
    renderResult(v);
    tick();
    // Last, once the clocks' lines have their width: the newest moves in view.
    log.scrollTop = log.scrollHeight;
  }

  function renderSeats(names) {
    const box = byId("seats");
    const rows = (state.seats || []).map((seat, k) => {
      const here = seat.bot ? "bot" : seat.left ? "left: a bot plays" :
        state.connected && state.connected[k] ? "connected" : seat.name ? "away" : "open";
      const p = state.position;
      const moving = p && p.current_player === k && state.status === "playing";
      return h("div", {class: "seat-row" + (moving ? " to-move" : "") +
        (k === state.seat ? " you" : ""), "data-seat": k},
      state.table ? T.seatChip(state.table, k, names[k]) : null,
      h("span", {class: "name", title: names[k]}, names[k] + (k === state.seat ? " (you)" : "")),
      p && p.dealer === k ? h("span", {class: "badge dealer"}, "dealer") : null,
      h("span", {class: "presence " + here.split(":")[0].replace(/\s/g, "-")}, here),
      h("span", {class: "clock", "data-clock": k}),
      h("span", {class: "clock game-clock", "data-game-clock": k}),
      p ? h("span", {class: "faint"}, T.count(p.players[k].hand_size, "card")) : null);
    });
    box.replaceChildren(h("h2", null, "Players"), ...rows);
  }

  function renderYou(v) {
    const you = byId("you");
    const p = v.position;
    const mine = state.seat;
    you.hidden = mine === null || state.status !== "playing";
    if (you.hidden) return;
    const turn = myTurn();
    const mover = p.current_player;
    byId("turn").textContent = turn ? "Your move" :
      mover === null ? "" : v.names[mover] + " is to move";
    const timer = String(turn ? mine : mover === null ? mine : mover);
    byId("my-clock").dataset.clock = timer;
    byId("my-game-clock").dataset.gameClock = timer;
    you.classList.toggle("yours", turn);
    you.classList.toggle("busy", pending !== null);
    // The hand: a card that some legal move plays is marked; a card that may
    // not be discarded is greyed, the engine's reasons listed once under it.
    const hand = byId("hand");
    const player = p.players[mine];
    const usable = new Set((p.moves || []).map((m) => m.card).filter(Boolean));
    const refusals = p.discard_refusals || [];
    hand.replaceChildren(...(player.hand || []).map((code, index) => {
      const why = refusals[index] || null;
      const button = h("button", {type: "button", class: "card-button" +
        (turn && usable.has(code) ? " usable" : "") + (why ? " kept" : ""),
      "data-card": code, "data-index": index, title: why ? T.reasonText(why) : code},
      T.cardChip(v.table, code));
      button.addEventListener("click", () => tapCard(code, index));
      return button;
    }));
    if (!(player.hand || []).length) hand.append(h("span", {class: "faint"}, "no cards"));
    const due = turn ? p.turn.discards_due : 0;
    byId("discard-note").hidden = !due;
    byId("discard-note").textContent = due ? "Discard " + due + " more card" +
      (due === 1 ? "" : "s") + "." : "";
    const reasons = [...new Set(refusals.filter(Boolean))];
    const list = byId("refusals");
    list.hidden = !(turn && reasons.length);
    list.replaceChildren(...reasons.map((reason) => h("li", null, T.reasonText(reason))));
    // The moves, or the choices of a tap.
    const moves = byId("moves");
    const box = byId("choices");
    if (!turn) {
      moves.replaceChildren();
      box.hidden = true;
      return;
    }
    moves.replaceChildren(...T.movesList(v, play, (head, members) => openChoices(head, members)));
    if (choices) {
      box.replaceChildren(...T.choicesBox(v, choices.about, choices.members, choices.warning,
        play, closeChoices));
      box.hidden = false;
      moves.hidden = true;
    } else {
      box.hidden = true;
      moves.hidden = false;
    }
    if (centredAt !== version) {  // a new decision: the side column from its top
      centredAt = version;
      T.centreOnCart(byId("board"), mine);
      byId("side").scrollTop = 0;
    }
    decisionIntoView();
  }

  // A tap far down the page (a village, a dealer pile) must not leave the
  // next decision out of sight: bring it back when it is not all in view.
  function decisionIntoView() {
    const box = byId("you").getBoundingClientRect();
    if (box.top < 0 || box.bottom > innerHeight) byId("you").scrollIntoView({block: "start"});
  }

  function openChoices(about, members, warning) {
    choices = {about, members, warning: warning || null};
    render();
    byId("choices").scrollIntoView({block: "nearest"});
  }

  function closeChoices() {
    choices = null;
    render();
  }

  function play(facts) {
    if (!myTurn() || pending !== null || !socket) return;
    moveNumber += 1;
    pending = "page-" + Date.now().toString(36) + "-" + moveNumber;
    choices = null;
    byId("notice").hidden = true;
    socket.send(JSON.stringify({type: "move", version, move: facts.move, id: pending}));
    byId("you").classList.add("busy");
  }

  // A tap that fits one move makes it, unless it plays special feed; one
  // that fits several, or feed, offers those; one that fits none says so.
  function fits(members, what) {
    if (!members.length) {
      notify("info", "No move " + what + " now.");
      return;
    }
    const feed = members.every((m) => m.feed_cost > 0);
    if (members.length === 1 && !feed) {
      play(members[0]);
      return;
    }
    const cost = Math.min(...members.map((m) => m.feed_cost));
    openChoices(what.replace(/^\w+ /, ""), members,
      feed ? "This plays " + cost + " special feed." : null);
  }

  function legal() {
    return myTurn() ? state.position.moves : [];
  }

  function tapVillage(name) {
    if (!myTurn()) return;
    fits(legal().filter((m) => m.to === name), "goes to " + name);
  }

  function tapCard(code, index) {
    if (!myTurn()) return;
    const why = (state.position.discard_refusals || [])[index];
    if (why) {
      notify("refused", T.reasonText(why));
      return;
    }
    fits(legal().filter((m) => m.card === code), "plays " + code);
  }

  function tapPile(pile) {
    if (!myTurn()) return;
    fits(legal().filter((m) => m.pile === pile), "takes pile " + pile);
  }

  byId("board").addEventListener("click", (event) => {
    const village = event.target.closest(".village");
    if (village) tapVillage(village.dataset.village);
  });
  byId("panel").addEventListener("click", (event) => {
    const pile = event.target.closest(".dealer-pile");
    if (pile) tapPile(Number(pile.dataset.pile));
  });
  byId("zoom").addEventListener("click", () => {
    const whole = byId("board-box").classList.toggle("whole");
    byId("zoom").textContent = whole ? "readable board" : "whole board";
    T.boardPans(byId("board"));
  });
  window.addEventListener("resize", () => T.boardPans(byId("board")));
  // The log keeps its newest moves in view when its box changes size (the
  // clocks' lines wrap, the decision grows or shrinks).
  new ResizeObserver(() => { byId("log").scrollTop = byId("log").scrollHeight; })
    .observe(byId("log"));

  // ---- the end ---------------------------------------------------------------------

  function renderResult(v) {
    const over = state.status === "finished" || state.status === "forfeited";
    byId("result").hidden = !over;
    if (!over) return;
    byId("scores").replaceChildren(...T.scoring(v));
    const ending = state.ending;
    byId("ending").textContent = ending && ending.forfeit !== undefined ?
      v.names[ending.forfeit] + " forfeited (" + ending.reason + ")." : "";
    const after = byId("after");
    const actions = [];
    if (state.seat !== null) {
      const again = h("button", {type: "button", id: "rematch", class: "primary"},
        server.local ? "New game" : state.rematch ? "Join the rematch" : "Rematch");
      again.addEventListener("click", rematch);
      actions.push(again);
    } else if (state.rematch) {
      const follow = h("button", {type: "button", id: "follow"}, "Watch the rematch");
      follow.addEventListener("click", () => { location.hash = "match=" + state.rematch; });
      actions.push(follow);
    }
    actions.push(h("a", {class: "button", id: "download", download: "troedler-" + state.match +
      ".json", href: api("matches/" + state.match + "/record")}, "Download the record"));
    actions.push(h("a", {class: "button", id: "replay", target: "_blank", rel: "noopener",
      href: api("matches/" + state.match + "/replay")}, "Replay page"));
    after.replaceChildren(...actions);
    byId("you").hidden = true;
    // The end, once: the page from its top, the scoring and what comes next in view.
    if (endShown !== state.match) {
      endShown = state.match;
      scrollTo(0, 0);
      byId("side").scrollTop = 0;
    }
  }

  // The match's settings, for whoever is about to join it.
  function settingsText(settings) {
    if (!settings) return "";
    const clock = settings.clock || {};
    const parts = [T.count(settings.players, "player")];
    parts.push(clock.move_seconds ? T.clockText(clock.move_seconds) + " a move" :
      "no time limit a move");
    if (clock.game_seconds) parts.push(T.clockText(clock.game_seconds) + " a game");
    if (clock.move_seconds || clock.game_seconds) {
      parts.push(clock.on_timeout === "forfeit" ? "out of time, the seat forfeits" :
        "out of time, a bot moves for the seat");
    }
    parts.push("recall: " + settings.recall);
    return parts.join(" · ") + ".";
  }

  async function rematch() {
    const token = tokenOf(state.match);
    try {
      const answer = await request("POST", "matches/" + state.match + "/rematch", undefined,
        token);
      keep(answer.match, {token: answer.token, seat: answer.seat,
        name: (held()[state.match] || {}).name});
      location.hash = "match=" + answer.match;
    } catch (error) {
      notify("refused", error.message);
    }
  }

  // ---- joining and leaving ------------------------------------------------------------

  byId("join").addEventListener("click", async () => {
    const name = nameFrom("join-name", names());
    byId("join-error").textContent = "";
    try {
      const seat = await request("POST", "matches/" + match + "/join", {name});
      if (byId("join-name").value.trim()) localStorage.setItem("troedler-name", name);
      keep(match, {token: seat.token, seat: seat.seat, name});
      connect();
    } catch (error) {
      byId("join-error").textContent = error.message;
    }
  });
  byId("leave").addEventListener("click", async () => {
    try {
      await request("POST", "matches/" + match + "/leave", undefined, tokenOf(match));
    } catch (error) { /* gone already */ }
    forget(match);
    location.hash = "";
  });
  byId("copy").addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(byId("invite").textContent);
      byId("copy").textContent = "copied";
    } catch (error) {
      byId("copy").textContent = "select and copy it";
    }
  });
  byId("to-lobby").addEventListener("click", () => { location.hash = ""; });

  // ---- where the page is ---------------------------------------------------------------

  async function route() {
    const found = /^#match=([A-Za-z0-9_-]{1,32})$/.exec(location.hash);
    if (found) {
      openMatch(found[1]);
      return;
    }
    match = null;
    if (server.local && server.match) {  // a game of one's own: straight to it
      location.replace("#match=" + server.match);
      return;
    }
    await lobby();
  }

  async function start() {
    await readServer();
    if (server.local && server.match && server.token) {
      keep(server.match, {token: server.token, seat: server.seat, name: server.name});
    }
    window.addEventListener("hashchange", route);
    await route();
  }
  start();
})();

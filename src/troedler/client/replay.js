// troedler's replay page: a finished (or stopped) game, step by step, drawn
// by draw.js from the positions written into the page.
"use strict";

(() => {
  const T = Troedler;
  const {h, byId} = T;
  const data = JSON.parse(byId("replay-data").textContent);
  const last = data.steps.length - 1;
  const log = data.steps.slice(1).map((step, k) => ({version: k + 1, seat: step.seat,
    move: step.move, round: step.round}));
  let current = 0;
  let timer = null;

  document.body.classList.add("replaying");
  byId("lobby").hidden = true;
  byId("match").hidden = false;
  byId("replay-controls").hidden = false;
  byId("to-lobby").hidden = true;
  byId("seats").hidden = true;
  byId("title").textContent = data.title;
  byId("slider").max = String(last);
  byId("legend").replaceChildren(...T.legend(data.table));
  const items = new Map();
  byId("log").replaceChildren(...T.logItems(log, data.names, Infinity));
  for (const item of byId("log").querySelectorAll("li[data-step]")) {
    items.set(Number(item.dataset.step), item);
    item.addEventListener("click", () => show(Number(item.dataset.step)));
  }
  const start = h("li", {class: "logged", "data-step": 0}, "start of the game");
  start.addEventListener("click", () => show(0));
  items.set(0, start);
  byId("log").prepend(start);

  function view(step) {
    const at = data.steps[step];
    return {table: data.table, position: at.position, names: data.names,
      last: at.facts || null, lastSeat: step ? at.seat : null};
  }

  function show(step) {
    step = Math.max(0, Math.min(last, step));
    const v = view(step);
    const board = byId("board");
    const scrolled = [board.scrollLeft, board.scrollTop];
    board.replaceChildren(T.drawMap(v));
    T.fitBoard(board, v);
    [board.scrollLeft, board.scrollTop] = scrolled;
    byId("panel").replaceChildren(...T.panel(v, true));
    byId("status").textContent = T.statusLine(v);
    byId("last-move").textContent = T.lastMoveText(v, data.steps[step].move);
    // At the end: the final scoring, or that the record stops before the game's end.
    byId("result").hidden = step !== last;
    byId("scores").replaceChildren(...T.scoring(v));
    byId("ending").textContent = v.position.result ? "" :
      "The record stops in round " + v.position.round + ": the game did not end.";
    byId("result").querySelector("h2").textContent = v.position.result ? "Final scoring" :
      "The end of the record";
    items.get(current)?.classList.remove("current");
    const item = items.get(step);
    item?.classList.add("current");
    if (item) {  // scroll the list alone, never the page
      const list = item.parentElement;
      const top = item.offsetTop - list.offsetTop;
      if (top < list.scrollTop) list.scrollTop = top;
      else if (top + item.offsetHeight > list.scrollTop + list.clientHeight) {
        list.scrollTop = top + item.offsetHeight - list.clientHeight;
      }
    }
    current = step;
    byId("slider").value = String(step);
    byId("step").dataset.step = String(step);
    byId("step").textContent = "step " + step + " / " + last;
    if (step === last) stop();
  }

  function stop() {
    if (timer !== null) clearInterval(timer);
    timer = null;
    byId("play").textContent = "▶ play";
  }

  function play() {
    if (timer !== null) {
      stop();
      return;
    }
    if (current === last) show(0);
    timer = setInterval(() => show(current + 1), 700);
    byId("play").textContent = "⏸ pause";
  }

  byId("first").addEventListener("click", () => show(0));
  byId("prev").addEventListener("click", () => show(current - 1));
  byId("next").addEventListener("click", () => show(current + 1));
  byId("last").addEventListener("click", () => show(last));
  byId("play").addEventListener("click", play);
  byId("slider").addEventListener("input", () => show(Number(byId("slider").value)));
  byId("zoom").addEventListener("click", () => {
    const whole = byId("board-box").classList.toggle("whole");
    byId("zoom").textContent = whole ? "readable board" : "whole board";
    T.boardPans(byId("board"));
  });
  window.addEventListener("resize", () => T.boardPans(byId("board")));
  byId("dismiss").addEventListener("click", () => { byId("notice").hidden = true; });
  document.addEventListener("keydown", (event) => {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    if (event.key === "ArrowRight") show(current + 1);
    else if (event.key === "ArrowLeft") show(current - 1);
    else if (event.key === "Home") show(0);
    else if (event.key === "End") show(last);
    else if (event.key === " ") play();
    else return;
    // The keys step the replay and do nothing else: no scrolling, no slider move.
    event.preventDefault();
  });
  show(0);
})();

#!/usr/bin/env node
// A troedler bot for Node.js, speaking the bot protocol (docs/protocol.md).
//
// It reads one JSON message a line on stdin and answers one a line on
// stdout. Its strategy: deliver the most valuable order it can; else take
// a good it already holds most of (sets make orders); else anything but
// ending the turn. Ties go to the first such move, so games replay exactly.
//
//   troedler simulate --bots 'exec:node examples/collector_bot.js,greedy' --games 10

"use strict";
const readline = require("node:readline");

const NAME = "collector-js";

function score(move, goods) {
  const words = move.split(/\s+/);
  if (words[0] === "deliver") {
    // "deliver AAA:6" or "deliver AAA:6 with AAP"
    return 100 + Number(words[1].split(":")[1] || 0);
  }
  const take = words.find((word) => word.startsWith("+"));
  if (take !== undefined) {
    const good = take.slice(1);
    return 10 + [...goods].filter((held) => held === good).length;
  }
  return words[0] === "end" ? 0 : 1;
}

function choose(message) {
  const seen = message.observation;
  const goods = seen.players[seen.seat].goods;
  let best = null;
  let bestScore = -Infinity;
  for (const move of message.legal_moves) {
    const value = score(move, goods);
    if (value > bestScore) {
      best = move;
      bestScore = value;
    }
  }
  return best;
}

const lines = readline.createInterface({ input: process.stdin });
lines.on("line", (line) => {
  const message = JSON.parse(line);
  let answer = null;
  if (message.type === "hello") {
    answer = { type: "hello", protocol: 1, name: NAME };
  } else if (message.type === "move") {
    answer = { type: "move", move: choose(message) };
  } else if (message.type === "end") {
    process.stderr.write(`game over: ${message.reason}\n`);
    lines.close();
    return;
  }
  // Messages of a later protocol version are ignored.
  if (answer !== null) {
    process.stdout.write(JSON.stringify(answer) + "\n");
  }
});

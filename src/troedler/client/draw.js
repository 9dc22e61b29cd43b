// troedler's page: what it draws, from the server's messages alone.
//
// Every fact shown comes from the engine through the protocol: the table
// (the board's places and routes, the cards' faces, the pictures'
// colours), the position (what the viewer may know, each legal move with
// its card and special feed, each seat's tally, why a card may not be
// discarded, the final scoring). Nothing here states a rule of the game:
// it groups, lays out and draws. Names and moves are set as text, never as
// markup. The live page (live.js) and the replay page (replay.js) both
// draw with these functions.
"use strict";

const Troedler = (() => {
  const SVG = "http://www.w3.org/2000/svg";

  // An HTML element: attributes (class, data-*, ...), then children (text or nodes).
  function h(tag, attributes, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attributes || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key === "class") node.className = value;
      else node.setAttribute(key, value === true ? "" : String(value));
    }
    for (const child of children.flat()) {
      if (child === null || child === undefined || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  // An SVG element, in the same way.
  function s(tag, attributes, ...children) {
    const node = document.createElementNS(SVG, tag);
    for (const [key, value] of Object.entries(attributes || {})) {
      if (value === null || value === undefined) continue;
      node.setAttribute(key, String(value));
    }
    for (const child of children.flat()) {
      if (child === null || child === undefined || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  const byId = (id) => document.getElementById(id);

  // "1 card", "2 cards": a count and its noun.
  function count(number, noun, nouns) {
    return number + " " + (number === 1 ? noun : nouns || noun + "s");
  }

  // A name's first letter, to mark a seat where its name does not fit.
  function initial(name) {
    return (Array.from(String(name || "").trim())[0] || "?").toUpperCase();
  }

  // The engine's reason, readable: its rule id last, in brackets.
  function reasonText(text) {
    const found = /^([A-Z][0-9]+[a-z]?): (.+)$/s.exec(String(text || ""));
    return found ? found[2] + " (rule " + found[1] + ")" : String(text || "");
  }

  function goodOf(table, code) {
    return table.goods.find((good) => good.code === code);
  }

  function routeKind(table, code) {
    return table.route_kinds.find((kind) => kind.code === code);
  }

  // A good as a round token with its letter, in its colour.
  function goodToken(table, code) {
    const good = goodOf(table, code);
    const token = h("span", {class: "good", title: good ? good.name : code}, code);
    if (good) token.style.background = good.colour;
    return token;
  }

  function goodsTokens(table, text) {
    return text.split("").filter((c) => c !== "-").map((code) => goodToken(table, code));
  }

  // A card as a small face: a route card's kind, a request's goods and points.
  function cardChip(table, code) {
    if (code === null || code === undefined) {
      return h("span", {class: "card unknown-card", title: "a card not known"}, "?");
    }
    // The face as the table sends it: its label (a request: its goods and
    // points) and, as the title, its name.
    const face = table.cards[code] || {type: "unknown"};
    const chip = h("span", {class: "card " + face.type + "-card", "data-card": code,
      title: face.name || null});
    if (face.type === "request") {
      chip.append(...goodsTokens(table, face.goods), h("b", null, String(face.points)));
    } else {
      chip.append(face.label || code);
    }
    if (face.type === "route") {
      const kind = routeKind(table, face.route);
      if (kind) chip.style.borderLeftColor = kind.colour;
    }
    const fill = table.colours["card_" + face.type];
    if (fill) chip.style.background = fill;
    return chip;
  }

  function cards(table, codes) {
    return h("span", {class: "cards"}, (codes || []).map((code) => cardChip(table, code)));
  }

  // A seat's colour, with its name's first letter.
  function seatChip(table, seat, name) {
    const chip = h("span", {class: "chip", "aria-hidden": "true"}, initial(name));
    chip.style.background = table.seat_colours[seat];
    return chip;
  }

  // ---- the map -------------------------------------------------------------

  // Sizes in the picture's units: at 1,400 by 900 pixels the picture is
  // drawn at about two thirds of them, so names and letters read at 11
  // pixels or more.
  const BOX_W = 148;
  const TOKEN = 20;
  const TOKEN_STEP = 22;
  const PER_ROW = 6;
  const NAME_SIZE = 17.5;
  const LETTER_SIZE = 16.5;
  const CART_STEP = 30;
  const PARALLEL_GAP = 11;
  const MARGIN_X = 84;
  const MARGIN_TOP = 68;
  const MARGIN_BOTTOM = 42;

  function boxHeight(goods) {
    const rows = Math.max(1, Math.ceil(goods.replace(/-/g, "").length / PER_ROW));
    return Math.max(58, 34 + rows * TOKEN_STEP);
  }

  function mapSize(table) {
    const xs = table.villages.map((v) => v.x);
    const ys = table.villages.map((v) => v.y);
    return {
      left: Math.min(...xs) - MARGIN_X,
      top: Math.min(...ys) - MARGIN_TOP,
      width: Math.max(...xs) - Math.min(...xs) + 2 * MARGIN_X,
      height: Math.max(...ys) - Math.min(...ys) + MARGIN_TOP + MARGIN_BOTTOM,
    };
  }

  // Where the last move went, to mark it, from the move's facts: the
  // village it went to, the routes of the table between where the cart
  // stood (``from``) and there (of the move's route kind, where it names
  // one), the good taken and the goods delivered.
  function marksOf(view) {
    const facts = view.last;
    const marks = {village: null, routes: new Set(), delivered: ""};
    if (!facts || view.lastSeat === null || view.lastSeat === undefined) return marks;
    const position = view.position;
    if (facts.to) {
      marks.village = facts.to;
      const from = facts.from;
      view.table.routes.forEach((route, index) => {
        const ends = new Set(route.ends);
        if (from && from !== facts.to && ends.has(from) && ends.has(facts.to) &&
            (facts.kind === undefined || route.kind === facts.kind)) {
          marks.routes.add(index);
        }
      });
    } else if (facts.type === "play_request" || facts.good) {
      marks.village = position.players[view.lastSeat].cart;
      if (facts.delivered) marks.delivered = facts.delivered;
    }
    return marks;
  }

  function drawMap(view) {
    const table = view.table;
    const position = view.position;
    const size = mapSize(table);
    const at = {};
    for (const village of table.villages) at[village.name] = village;
    const ink = table.colours.ink;
    const svg = s("svg", {
      xmlns: SVG,
      viewBox: [size.left, size.top, size.width, size.height].join(" "),
      class: "map",
      role: "img",
      "aria-label": "the map: villages, their goods, routes and carts",
    });
    svg.append(s("rect", {x: size.left, y: size.top, width: size.width, height: size.height,
      fill: table.colours.paper}));
    const marks = marksOf(view);
    // Routes: parallel ones side by side, the last move's under a glow.
    const pairs = new Map();
    table.routes.forEach((route, index) => {
      const key = [...route.ends].sort().join("|");
      if (!pairs.has(key)) pairs.set(key, []);
      pairs.get(key).push(index);
    });
    const glow = s("g", {class: "last-move-routes"});
    const lines = s("g", {class: "routes"});
    for (const members of pairs.values()) {
      const [a, b] = table.routes[members[0]].ends.slice().sort();
      const x1 = at[a].x, y1 = at[a].y, x2 = at[b].x, y2 = at[b].y;
      const length = Math.hypot(x2 - x1, y2 - y1) || 1;
      const nx = -(y2 - y1) / length, ny = (x2 - x1) / length;
      members.forEach((index, k) => {
        const route = table.routes[index];
        const kind = routeKind(table, route.kind);
        const shift = (k - (members.length - 1) / 2) * PARALLEL_GAP;
        const ends = {x1: x1 + nx * shift, y1: y1 + ny * shift, x2: x2 + nx * shift,
          y2: y2 + ny * shift};
        if (marks.routes.has(index)) {
          glow.append(s("line", Object.assign({stroke: table.colours.highlight,
            "stroke-width": 20, "stroke-linecap": "round", opacity: 0.75,
            class: "route-taken"}, ends)));
        }
        const dotted = kind.dash && parseFloat(kind.dash) < 1;
        const group = s("g", {class: "route " + route.kind, "data-route": index},
          s("title", null, kind.name + ": " + route.ends[0] + " – " + route.ends[1]),
          s("line", Object.assign({stroke: kind.colour, "stroke-width": kind.width,
            "stroke-dasharray": kind.dash, "stroke-linecap": dotted ? "round" : "butt"}, ends)));
        if (kind.rails) {
          group.append(s("line", Object.assign({stroke: table.colours.paper,
            "stroke-width": kind.width - 5}, ends)));
        }
        lines.append(group);
      });
    }
    svg.append(glow, lines);
    // Villages: a box with the name, the number and the goods.
    const reachable = new Set((position.moves || []).map((m) => m.to).filter(Boolean));
    for (const village of table.villages) {
      const goods = position.village_goods[village.name] || "";
      const height = boxHeight(goods);
      const left = village.x - BOX_W / 2, top = village.y - height / 2;
      const colour = village.start === null ? null : table.start_colours[village.start];
      let css = "village";
      if (reachable.has(village.name)) css += " can-go";
      if (marks.village === village.name) css += " last-move";
      const group = s("g", {class: css, "data-village": village.name});
      if (marks.village === village.name) {
        group.append(s("rect", {x: left - 7, y: top - 7, width: BOX_W + 14, height: height + 14,
          rx: 12, fill: table.colours.highlight, opacity: 0.85}));
      }
      group.append(s("rect", {x: left, y: top, width: BOX_W, height, rx: 8,
        fill: table.colours.village, stroke: colour || ink,
        "stroke-width": reachable.has(village.name) ? 5 : colour ? 4 : 1.5,
        class: "village-box"}));
      if (colour) {
        group.append(s("path", {d: `M${left + 2} ${top + 26}V${top + 10}a8 8 0 0 1 8 -8` +
          `H${left + BOX_W - 10}a8 8 0 0 1 8 8V${top + 26}Z`, fill: colour}));
      }
      group.append(s("text", {x: village.x, y: top + 20, "font-size": NAME_SIZE,
        "font-weight": "bold", "text-anchor": "middle", fill: colour ? "#ffffff" : ink,
        class: "village-name"}, village.name));
      if (village.number) {
        group.append(s("circle", {cx: left + BOX_W, cy: top, r: 11, fill: ink}),
          s("text", {x: left + BOX_W, y: top + 5, "font-size": 13, "text-anchor": "middle",
            fill: "#ffffff", class: "number"}, String(village.number)));
      }
      const tokens = goods.replace(/-/g, "").split("").filter(Boolean);
      let delivered = marks.village === village.name ? marks.delivered.split("") : [];
      tokens.forEach((code, k) => {
        const row = Math.floor(k / PER_ROW), col = k % PER_ROW;
        const inRow = Math.min(PER_ROW, tokens.length - row * PER_ROW);
        const tx = village.x - (inRow * TOKEN_STEP - (TOKEN_STEP - TOKEN)) / 2 + col * TOKEN_STEP;
        const ty = top + 31 + row * TOKEN_STEP;
        const good = goodOf(table, code);
        if (delivered.includes(code)) {
          delivered = delivered.filter((c, i) => i !== delivered.indexOf(code));
          group.append(s("rect", {x: tx - 3, y: ty - 3, width: TOKEN + 6, height: TOKEN + 6,
            rx: 5, fill: "none", stroke: ink, "stroke-width": 2}));
        }
        group.append(s("g", {class: "token", "data-good": code},
          s("title", null, good ? good.name : code),
          s("rect", {x: tx, y: ty, width: TOKEN, height: TOKEN, rx: 4,
            fill: good ? good.colour : ink}),
          s("text", {x: tx + TOKEN / 2, y: ty + 15.5, "font-size": LETTER_SIZE,
            "font-weight": "bold", "text-anchor": "middle", fill: "#ffffff",
            class: "good-letter"}, code)));
      });
      svg.append(group);
    }
    // Carts: one marker per seat above its village, side by side when they share it.
    const here = {};
    position.players.forEach((player, seat) => {
      (here[player.cart] = here[player.cart] || []).push(seat);
    });
    position.players.forEach((player, seat) => {
      const village = at[player.cart];
      const top = village.y - boxHeight(position.village_goods[player.cart] || "") / 2;
      const company = here[player.cart];
      const cx = village.x + (company.indexOf(seat) - (company.length - 1) / 2) * CART_STEP;
      const cy = top - 16;
      const moving = seat === position.current_player;
      svg.append(s("g", {class: "cart seat-" + seat + (moving ? " to-move" : ""),
        "data-seat": seat, "data-village": player.cart},
        s("title", null, "cart of " + view.names[seat] + " in " + player.cart),
        s("rect", {x: cx - 13, y: cy - 9, width: 26, height: 16, rx: 3,
          fill: table.seat_colours[seat], stroke: ink, "stroke-width": moving ? 3 : 1}),
        s("circle", {cx: cx - 7, cy: cy + 8, r: 3.5, fill: ink}),
        s("circle", {cx: cx + 7, cy: cy + 8, r: 3.5, fill: ink}),
        s("text", {x: cx, y: cy + 4, "font-size": 13, "font-weight": "bold",
          "text-anchor": "middle", fill: "#ffffff"}, initial(view.names[seat]))));
    });
    return svg;
  }

  function legend(table) {
    const items = [];
    for (const kind of table.route_kinds) {
      const swatch = h("span", {class: "swatch"});
      swatch.style.borderTopColor = kind.colour;
      swatch.style.borderTopStyle = kind.dash ? (parseFloat(kind.dash) < 1 ? "dotted" : "dashed")
        : (kind.rails ? "double" : "solid");
      items.push(h("span", {class: "legend-item"}, swatch, kind.name + " (" + kind.code + ")"));
    }
    for (const good of table.goods) {
      items.push(h("span", {class: "legend-item"}, goodToken(table, good.code), good.name));
    }
    return items;
  }

  // ---- the panel: players, hands, piles ------------------------------------

  // Each player's goods and tally: where the viewer knows the player's
  // value pile, the position's tally; once the game is over, the final
  // scoring's, for everyone; else not known.
  function playersTable(view) {
    const {table, position, names} = view;
    const final = position.result ? position.result.tallies : null;
    const rows = position.players.map((player, seat) => {
      const tally = final ? final[seat] : player.tally;
      const cell = (value) => h("td", {class: "num", title: tally ? null :
        "not known: it lies face down"}, tally ? String(value) : "?");
      return h("tr", {class: "seat-" + seat + (seat === position.seat ? " you" : ""),
        "data-seat": seat},
        h("td", {class: "who"},
          h("span", {class: "who-line"}, seat === position.current_player ? "▶ " : "",
            seatChip(table, seat, names[seat]),
            h("span", {class: "name", title: names[seat]}, names[seat])),
          h("span", {class: "goods"}, goodsTokens(table, player.goods))),
        cell(tally && tally.request_points.length),
        cell(tally && tally.feed_used),
        cell(tally && tally.damage),
        cell(tally && tally.points));
    });
    const number = (text, title) => h("th", {class: "n", title}, text);
    return h("section", {class: "players"},
      h("table", null,
        h("thead", null, h("tr", null, h("th", {class: "who"}, "player and goods"),
          number("requests", "how many requests fulfilled"), number("feed used"),
          number("damage"), number("points"))),
        h("tbody", null, rows)));
  }

  function handsSection(view, everyone) {
    const {table, position, names} = view;
    const rows = [];
    position.players.forEach((player, seat) => {
      if (seat === position.seat && !everyone) return;
      let shown;
      if (player.hand === null) {
        shown = h("span", {class: "faint hidden"}, count(player.hand_size, "card") +
          ", not known");
      } else if (!player.hand.length) {
        shown = h("span", {class: "faint"}, "no cards");
      } else {
        shown = cards(table, player.hand);
      }
      rows.push(h("div", {class: "row hand seat-" + seat, "data-seat": seat},
        h("span", {class: "label", title: names[seat]}, names[seat]), shown));
    });
    const played = position.turn.played;
    if (played && played.length) {
      rows.push(h("div", {class: "row played"}, h("span", {class: "label"}, "played now"),
        cards(table, played)));
    }
    const others = !everyone && position.seat !== null;
    return h("section", {class: "hands"}, h("h3", null, others ? "The others' hands" : "Hands"),
      rows);
  }

  function pilesSection(view) {
    const {table, position} = view;
    const rows = [];
    const takes = new Set((position.moves || []).filter((m) => m.pile !== undefined)
      .map((m) => m.pile));
    position.dealer_piles.forEach((pile, k) => {
      let shown;
      if (pile === null) shown = h("span", {class: "faint"}, "gone");
      else if (!pile.length) shown = h("span", {class: "faint"}, "empty");
      else shown = cards(table, pile);
      rows.push(h("div", {class: "row dealer-pile" + (takes.has(k) ? " can-take" : ""),
        "data-pile": k}, h("span", {class: "label"}, "pile " + k), shown));
    });
    const discard = position.discard_pile || [];
    const top = discard.length ? discard[discard.length - 1] : undefined;
    rows.push(h("div", {class: "row discard-pile", "data-size": discard.length},
      h("span", {class: "label"}, "discard pile"),
      top === undefined ? h("span", {class: "faint"}, "empty")
        : [cardChip(table, top), h("span", {class: "faint"}, " on top of " + discard.length)]));
    rows.push(h("div", {class: "row"}, h("span", {class: "label"}, "game-round pile"),
      h("span", {class: "faint game-round-pile"},
        count(position.game_round_pile_size, "card") + " face down")));
    return h("section", {class: "piles"}, h("h3", null, "Dealer piles"), rows);
  }

  function panel(view, everyone) {
    return [playersTable(view), handsSection(view, everyone), pilesSection(view)];
  }

  // ---- the moves: grouped by kind, folded by place --------------------------

  const GROUPS = [
    ["take_pile", "take a dealer pile"],
    ["discard_pile", "discard a dealer pile"],
    ["play_route", "move along a route"],
    ["play_feed_move", "move with special feed"],
    ["play_extra_good", "take an extra good"],
    ["play_feed_extra_good", "take a good with special feed"],
    ["play_request", "deliver a request"],
    ["discard_card", "discard from your hand"],
    ["end_turn", "end the turn"],
  ];

  // The moves that differ only in a choice of goods share a head: one
  // button, whose choices are those moves.
  function headOf(facts) {
    switch (facts.type) {
      case "play_route": return facts.kind + " " + facts.to;
      case "play_feed_move": return "feed " + facts.to;
      case "play_extra_good": return "extra";
      case "play_feed_extra_good": return "feed";
      case "play_request": return "deliver " + facts.request;
      default: return facts.move;
    }
  }

  // What tells a choice apart from the others of its head.
  function choiceLabel(table, facts) {
    if ("take" in facts || "good" in facts) {
      const code = facts.take === undefined ? facts.good : facts.take;
      if (code === null) return "take no good";
      const good = goodOf(table, code);
      return "take " + (good ? good.name : code);
    }
    if (facts.type === "play_request") return "with " + facts.delivered;
    return facts.move;
  }

  function groupMoves(moves) {
    const groups = [];
    for (const [type, label] of GROUPS) {
      const members = moves.filter((m) => m.type === type);
      if (!members.length) continue;
      const heads = new Map();
      for (const facts of members) {
        const head = headOf(facts);
        if (!heads.has(head)) heads.set(head, []);
        heads.get(head).push(facts);
      }
      groups.push({type, label, heads: [...heads.entries()]});
    }
    // A type the page does not know yet is still offered, under its own name.
    const known = new Set(GROUPS.map(([type]) => type));
    for (const facts of moves) {
      if (!known.has(facts.type)) groups.push({type: facts.type, label: facts.type,
        heads: [[facts.move, [facts]]]});
    }
    return groups;
  }

  function feedBadge(cost) {
    return cost ? h("span", {class: "feed-badge"}, cost + " feed") : null;
  }

  function moveButton(table, facts, label, play) {
    const button = h("button", {type: "button", class: "move" + (facts.feed_cost ? " feed" : ""),
      "data-move": facts.move, title: label === facts.move ? null : facts.move},
      label, feedBadge(facts.feed_cost));
    button.addEventListener("click", () => play(facts));
    return button;
  }

  // The moves of a decision, grouped; ``play`` makes one, ``choose`` opens
  // the choices of a folded head.
  function movesList(view, play, choose) {
    const {table, position} = view;
    const out = [];
    for (const group of groupMoves(position.moves || [])) {
      out.push(h("h3", null, group.label));
      const row = h("div", {class: "move-row"});
      for (const [head, members] of group.heads) {
        if (members.length === 1) {
          const facts = members[0];
          const button = moveButton(table, facts, facts.move, play);
          if (facts.pile !== undefined && position.dealer_piles[facts.pile]) {
            button.append(h("span", {class: "pile-cards"},
              position.dealer_piles[facts.pile].map((code) => cardChip(table, code))));
          }
          row.append(button);
        } else {
          const cheapest = Math.min(...members.map((m) => m.feed_cost));
          // Under its group's heading a feed move is named by its village alone.
          const label = group.type === "play_feed_move" ? members[0].to : head;
          const button = h("button", {type: "button",
            class: "option" + (cheapest ? " feed" : ""), "data-option": head},
          label + " …", feedBadge(cheapest));
          button.addEventListener("click", () => choose(head, members));
          row.append(button);
        }
      }
      out.push(row);
    }
    return out;
  }

  function choicesBox(view, about, members, warning, play, back) {
    const out = [h("h3", null, "Choose: " + about)];
    if (warning) out.push(h("p", {class: "warning"}, warning));
    const row = h("div", {class: "move-row"});
    for (const facts of members) {
      row.append(moveButton(view.table, facts, choiceLabel(view.table, facts), play));
    }
    const cancel = h("button", {type: "button", class: "back"}, "back");
    cancel.addEventListener("click", back);
    row.append(cancel);
    out.push(row);
    return out;
  }

  // ---- the final scoring ----------------------------------------------------

  // The final scoring as the engine gives it: a row a player, its
  // fulfilled requests' points, feed used, goods held, damage (marked where
  // it is total damage), points; the winners marked.
  function scoring(view) {
    const {table, position, names} = view;
    const result = position.result;
    if (!result) return [];
    const requests = (points) => points.length ? points.flatMap((p, k) =>
      k ? ["+", h("wbr"), String(p)] : [String(p)]) : ["–"];
    const rows = result.tallies.map((tally, seat) => {
      const winner = result.winners.includes(seat);
      const total = result.totally_damaged.includes(seat);
      return h("tr", {"data-seat": seat, class: winner ? "winner" : null},
        h("td", {class: "player"}, h("span", {class: "who-line"},
          seatChip(table, seat, names[seat]),
          h("span", {class: "name", title: names[seat]}, names[seat])),
        winner ? h("span", {class: "badge winner"}, "winner") : null),
        h("td", {class: "num requests"}, requests(tally.request_points)),
        h("td", {class: "num feed"}, String(tally.feed_used)),
        h("td", {class: "num goods"}, String(tally.goods_held)),
        h("td", {class: "num damage"}, String(result.damage[seat]),
          total ? h("span", {class: "badge total-damage"}, "total damage") : null),
        h("td", {class: "num points"}, String(result.points[seat])));
    });
    return [h("table", {class: "scores"},
      h("thead", null, h("tr", null, h("th", null, "player"),
        h("th", {title: "the points of each request fulfilled"}, "request points"),
        h("th", null, "feed used"), h("th", null, "goods held"), h("th", null, "damage"),
        h("th", null, "points"))),
      h("tbody", null, rows))];
  }

  // ---- the move log ---------------------------------------------------------

  function logItems(entries, names, newFrom) {
    const out = [];
    let round = 0;
    entries.forEach((entry, k) => {
      if (entry.round !== round) {
        round = entry.round;
        out.push(h("li", {class: "round"}, "Round " + round));
      }
      const css = "logged seat-" + entry.seat + (k >= newFrom ? " new" : "");
      out.push(h("li", {class: css, "data-step": entry.version},
        h("span", {class: "who", title: names[entry.seat]}, names[entry.seat]), ": ",
        entry.move));
    });
    return out;
  }

  // ---- the status line ------------------------------------------------------

  // What the viewer may do now, in words, from its legal moves: their
  // kind where they are all of one; what the others do is theirs to know.
  function doing(position) {
    const due = position.turn.discards_due;
    if (due) return "discard " + count(due, "more card", "more cards");
    const kinds = new Set((position.moves || []).map((m) => m.type));
    if (kinds.size !== 1) return "";
    const found = GROUPS.find(([type]) => kinds.has(type));
    return found ? found[1] : "";
  }

  function statusLine(view) {
    const {position, names} = view;
    const round = "Round " + position.round;
    if (position.result) {
      const winners = position.result.winners.map((seat) => names[seat]);
      return round + " · the game is over" + (winners.length ?
        " · " + (winners.length === 1 ? "winner " : "winners ") + winners.join(", ") : "");
    }
    const mover = position.current_player;
    if (mover === null || mover === undefined) return round;
    if (mover !== position.seat) return round + " · " + names[mover] + " to move";
    const what = (position.moves || []).length ? doing(position) : "";
    return round + " · your move" + (what ? ": " + what : "");
  }

  // The last move, in words: who made it and its notation.
  function lastMoveText(view, move) {
    if (view.lastSeat === null || view.lastSeat === undefined || !move) return "";
    return "Last move: " + view.names[view.lastSeat] + ": " + move;
  }

  function clockText(seconds) {
    if (seconds === null || seconds === undefined) return "";
    const whole = Math.max(0, Math.ceil(seconds));
    const minutes = Math.floor(whole / 60);
    const rest = String(whole % 60).padStart(2, "0");
    if (minutes >= 60) {
      return Math.floor(minutes / 60) + ":" + String(minutes % 60).padStart(2, "0") + ":" + rest;
    }
    return minutes + ":" + rest;
  }

  // On a narrow screen the board is wider than its box: pan it, never the
  // page, to bring a seat's cart into view.
  function centreOnCart(box, seat) {
    if (box.scrollWidth <= box.clientWidth + 1 && box.scrollHeight <= box.clientHeight + 1) {
      return;
    }
    const cart = box.querySelector(".cart.seat-" + seat);
    if (!cart) return;
    const frame = box.getBoundingClientRect();
    const at = cart.getBoundingClientRect();
    box.scrollLeft += at.left + at.width / 2 - (frame.left + frame.width / 2);
    box.scrollTop += at.top + at.height / 2 - (frame.top + frame.height / 3);
  }

  // The board's scale on a phone (its names then read at 14 pixels, its
  // letters at 13) and the least elsewhere (12 and 11): where its box is
  // smaller, the board pans.
  const PHONE_SCALE = 0.8;
  const READABLE_SCALE = 0.68;

  function fitBoard(box, view) {
    const size = mapSize(view.table);
    box.style.setProperty("--phone-w", Math.round(size.width * PHONE_SCALE) + "px");
    box.style.setProperty("--board-w", Math.ceil(size.width * READABLE_SCALE) + "px");
    box.style.setProperty("--board-h", Math.ceil(size.height * READABLE_SCALE) + "px");
    boardPans(box);
  }

  // Whether the board pans in its box (or shows the whole of it on
  // request): then its tools are offered.
  function boardPans(box) {
    const holder = box.parentElement;
    const pans = box.scrollWidth > box.clientWidth + 1 || box.scrollHeight > box.clientHeight + 1;
    holder.classList.toggle("pans", pans || holder.classList.contains("whole"));
  }

  return {
    h, s, byId, count, initial, reasonText, cardChip, cards, goodToken, goodsTokens, seatChip,
    drawMap, legend, panel, movesList, choicesBox, groupMoves, scoring, logItems, statusLine,
    lastMoveText, clockText, centreOnCart, fitBoard, boardPans, marksOf,
  };
})();

// The watch page: one game, live. The server sends a whole frame after each change (the
// pieces, the last shot's beam as lines, the moves, the clocks, the result); this script only
// draws it, counts the running clock down, and reconnects when the connection drops.
"use strict";

const SVG = "http://www.w3.org/2000/svg";
const code = decodeURIComponent(location.pathname.split("/")[2] || "");
const board = document.getElementById("board");
let frame = null;
let received = 0;
let lastShot = "";
let retry = 500;

function el(name, attrs, parent) {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
  if (parent) parent.append(node);
  return node;
}

function drawSquares() {
  const squares = el("g", { class: "squares" }, board);
  for (let y = 0; y < 8; y++) {
    for (let x = 0; x < 10; x++) {
      el("rect", { x, y, width: 1, height: 1, class: "square" }, squares);
    }
  }
  const labels = el("g", { class: "labels", "aria-hidden": "true" }, board);
  for (let x = 0; x < 10; x++) {
    el("text", { x: x + 0.5, y: 8.22, "text-anchor": "middle" }, labels).textContent =
      "abcdefghij"[x];
  }
  for (let y = 0; y < 8; y++) {
    el("text", { x: -0.15, y: y + 0.58, "text-anchor": "middle" }, labels).textContent =
      String(8 - y);
  }
  el("g", { class: "reserved" }, board);
  el("g", { class: "pieces" }, board);
  el("g", { class: "beam" }, board);
}

// Each piece drawn in a unit square, in its base orientation (a Sphinx or Anubis facing north,
// a mirror facing north-east), then turned by quarter turns.
const SHAPES = {
  pharaoh(g) {
    el("rect", { x: 0.14, y: 0.14, width: 0.72, height: 0.72, rx: 0.12, class: "body" }, g);
    el("circle", { cx: 0.5, cy: 0.5, r: 0.17, class: "crown" }, g);
  },
  sphinx(g) {
    el("rect", { x: 0.14, y: 0.14, width: 0.72, height: 0.72, rx: 0.08, class: "body" }, g);
    el("polygon", { points: "0.5,0.2 0.3,0.55 0.7,0.55", class: "lens" }, g);
  },
  pyramid(g) {
    el("polygon", { points: "0.1,0.1 0.1,0.9 0.9,0.9", class: "body" }, g);
    el("line", { x1: 0.1, y1: 0.1, x2: 0.9, y2: 0.9, class: "mirror" }, g);
  },
  anubis(g) {
    el("rect", { x: 0.18, y: 0.22, width: 0.64, height: 0.62, rx: 0.06, class: "body" }, g);
    el("rect", { x: 0.12, y: 0.1, width: 0.76, height: 0.13, rx: 0.04, class: "shield" }, g);
  },
  scarab(g) {
    el("rect", { x: 0.14, y: 0.14, width: 0.72, height: 0.72, rx: 0.3, class: "body" }, g);
    el("line", { x1: 0.2, y1: 0.2, x2: 0.8, y2: 0.8, class: "mirror" }, g);
  },
  djed(g) {
    el("rect", { x: 0.14, y: 0.14, width: 0.72, height: 0.72, rx: 0.18, class: "body" }, g);
    el("line", { x1: 0.2, y1: 0.2, x2: 0.8, y2: 0.8, class: "mirror" }, g);
  },
  obelisk(g, p) {
    if (p.height > 1) {
      el("rect", { x: 0.24, y: 0.1, width: 0.62, height: 0.62, rx: 0.05, class: "body" }, g);
    }
    el("rect", { x: 0.16, y: 0.26, width: 0.6, height: 0.6, rx: 0.05, class: "body" }, g);
    el("rect", { x: 0.33, y: 0.43, width: 0.26, height: 0.26, class: "mark" }, g);
  },
  eye(g) {
    el("circle", { cx: 0.5, cy: 0.5, r: 0.36, class: "body" }, g);
    el("line", { x1: 0.22, y1: 0.22, x2: 0.78, y2: 0.78, class: "mirror split" }, g);
  },
};

function drawPiece(p, parent, extraClass) {
  const g = el("g", {
    class: `piece ${p.color} ${p.kind} ${extraClass || ""}`,
    transform: `translate(${p.at[0]} ${p.at[1]})`,
    "data-square": p.sq,
  }, parent);
  el("title", {}, g).textContent = p.label;
  const turned = el("g", { transform: `rotate(${p.turns * 90} 0.5 0.5)` }, g);
  (SHAPES[p.kind] || SHAPES.obelisk)(turned, p);
  return g;
}

function drawReserved(f) {
  const g = board.querySelector(".reserved");
  g.replaceChildren();
  for (const [x, y, color] of f.reserved) {
    el("rect", { x, y, width: 1, height: 1, class: `reserved-${color}` }, g);
  }
}

function drawPieces(f) {
  const g = board.querySelector(".pieces");
  g.replaceChildren();
  for (const p of f.pieces) drawPiece(p, g);
}

// The beam grows along its path, as the light would, and what it hit fades away.
function drawShot(f, animate) {
  const g = board.querySelector(".beam");
  g.replaceChildren();
  if (!f.shot) return;
  const path = el("g", { class: `shot from-${f.shot.color}` }, g);
  let delay = 0;
  for (const [x1, y1, x2, y2] of f.shot.lines) {
    const length = Math.hypot(x2 - x1, y2 - y1) || 0.01;
    for (const cls of ["glow", "core"]) {
      const line = el("line", { x1, y1, x2, y2, class: cls }, path);
      if (animate) {
        line.style.strokeDasharray = `${length}`;
        line.style.strokeDashoffset = `${length}`;
        line.style.animation = `beam ${0.06 * length}s linear ${delay}s forwards`;
      }
    }
    delay += 0.06 * length;
  }
  for (const hit of f.shot.hits) {
    const ghost = drawPiece(hit.piece, g, `hit ${hit.effect}`);
    ghost.style.animationDelay = `${animate ? delay : 0}s`;
  }
}

function clockText(ms) {
  const s = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

function tickClocks() {
  if (!frame || !frame.clocks) {
    for (const side of ["silver", "red"]) document.getElementById(`clock-${side}`).textContent = "";
    return;
  }
  const c = frame.clocks;
  ["silver", "red"].forEach((side, i) => {
    let ms = c.remaining_ms[i];
    if (c.running === side && frame.status === "playing") ms -= performance.now() - received;
    const node = document.getElementById(`clock-${side}`);
    node.textContent = clockText(ms);
    node.classList.toggle("running", c.running === side && frame.status === "playing");
  });
}

function describe(f) {
  if (f.status === "open") return "Waiting for a second player.";
  if (f.status === "over") return "The game is over.";
  const last = f.moves.length ? `Last move ${f.moves[f.moves.length - 1]}. ` : "";
  return `${last}${f.turn === "silver" ? "Silver" : "Red"} to move.`;
}

function show(f) {
  const animate = JSON.stringify(f.shot) !== lastShot;
  lastShot = JSON.stringify(f.shot);
  frame = f;
  received = performance.now();
  document.title = `Khet ${f.code}: ${f.players[0] ?? "?"} – ${f.players[1] ?? "?"}`;
  document.getElementById("title").textContent =
    `Game ${f.code} · ${f.setup} · Khet ${f.edition}`;
  ["silver", "red"].forEach((side, i) => {
    document.getElementById(`name-${side}`).textContent =
      `${side === "silver" ? "Silver" : "Red"}: ${f.players[i] ?? "waiting"}`;
    const presence = document.getElementById(`presence-${side}`);
    presence.textContent = f.players[i] && !f.connected[i] && f.status === "playing" ? "(away)" : "";
    document.getElementById(`player-${side}`).classList.toggle("to-move",
      f.status === "playing" && f.turn === side);
  });
  drawReserved(f);
  drawPieces(f);
  drawShot(f, animate);
  document.getElementById("board-label").textContent =
    `The board after ${f.moves.length} moves. ${describe(f)}`;
  const moves = document.getElementById("moves");
  moves.replaceChildren();
  for (let i = 0; i < f.moves.length; i += 2) {
    const li = document.createElement("li");
    li.textContent = f.moves.slice(i, i + 2).join("  ");
    moves.append(li);
  }
  moves.scrollTop = moves.scrollHeight;
  document.getElementById("status").textContent = describe(f);
  const result = document.getElementById("result");
  result.hidden = !f.result;
  result.textContent = f.result || "";
  tickClocks();
}

function connect() {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  const socket = new WebSocket(`${scheme}//${location.host}/watch/${encodeURIComponent(code)}/ws`);
  const connection = document.getElementById("connection");
  let ping = null;
  socket.onopen = () => {
    retry = 500;
    connection.textContent = "";
    ping = setInterval(() => socket.send("ping"), 20000);
  };
  socket.onmessage = (message) => {
    const data = JSON.parse(message.data);
    if (data.type === "refused") {
      document.getElementById("status").textContent = data.reason;
      retry = -1;
      return;
    }
    show(data);
  };
  socket.onclose = () => {
    clearInterval(ping);
    if (retry < 0 || (frame && frame.status === "over")) return;
    connection.textContent = "Connection lost; reconnecting…";
    setTimeout(connect, retry);
    retry = Math.min(retry * 2, 10000);
  };
}

drawSquares();
setInterval(tickClocks, 250);
connect();

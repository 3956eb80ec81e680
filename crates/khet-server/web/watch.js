// The watch page: one game, live. The server sends a whole view after each change (the
// pieces, the last shot's beam as lines, the moves, the clocks, the result); this script only
// draws it (board.js), counts the running clock down, and reconnects when the connection drops.
import { Board, clockText, listMoves } from "./board.js";

const code = decodeURIComponent(location.pathname.split("/")[2] || "");
const board = new Board(document.getElementById("board"));
let frame = null;
let received = 0;
let retry = 500;

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
  frame = f;
  received = performance.now();
  document.title = `Khet ${f.code}: ${f.players[0] ?? "?"} – ${f.players[1] ?? "?"}`;
  document.getElementById("title").textContent =
    `Game ${f.code} · ${f.setup} · Khet ${f.edition}`;
  ["silver", "red"].forEach((side, i) => {
    document.getElementById(`name-${side}`).textContent =
      `${side === "silver" ? "Silver" : "Red"}: ${f.players[i] ?? "waiting"}`;
    const presence = document.getElementById(`presence-${side}`);
    presence.textContent = f.players[i] && !f.presence.connected[i] && f.status === "playing" ? "(away)" : "";
    document.getElementById(`player-${side}`).classList.toggle("to-move",
      f.status === "playing" && f.turn === side);
  });
  board.draw(f);
  document.getElementById("board-label").textContent =
    `The board after ${f.moves.length} moves. ${describe(f)}`;
  listMoves(document.getElementById("moves"), f.moves);
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

setInterval(tickClocks, 250);
connect();

// The watch page: one game, live. The server sends a whole view after each change (the
// pieces, the last shot's beam as lines, the moves, the clocks, the result) on
// /watch/CODE/ws; this script only draws it (board.js, table.js), counts the running clock
// down, and keeps the connection (socket.js, as the play page does).
import { Board } from "./board.js";
import { Socket } from "./socket.js";
import { drawBar, lastMoveText, listMoves, sideName, windowTitle } from "./table.js";

/** @typedef {import("./protocol.js").BoardView} BoardView */
/** @typedef {import("./protocol.js").WatchFrame} WatchFrame */

const $ = (/** @type {string} */ id) => /** @type {HTMLElement} */ (document.getElementById(id));
const code = decodeURIComponent(location.pathname.split("/")[2] || "");
const board = new Board(/** @type {any} */ ($("board")));
/** The game as last sent, and when it came. @type {BoardView | null} */
let frame = null;
let received = 0;

/** @param {BoardView} f */
function describe(f) {
  if (f.status === "open") return "Waiting for a second player.";
  if (f.status === "over") return "The game is over.";
  return `${lastMoveText(f)}${sideName(f.turn)} to move.`;
}

/** The players' bars, their clocks counted down. */
function tick() {
  if (!frame) return;
  const elapsed = performance.now() - received;
  drawBar($("player-red"), frame, "red", elapsed, { presence: true });
  drawBar($("player-silver"), frame, "silver", elapsed, { presence: true });
}

/** @param {BoardView} f */
function show(f) {
  frame = f;
  received = performance.now();
  document.title = windowTitle(f);
  $("title").textContent = `Game ${f.code} · ${f.setup} · Khet ${f.edition}`;
  board.draw(f);
  $("board-label").textContent = `The board after ${f.moves.length} moves. ${describe(f)}`;
  listMoves($("moves"), f.moves);
  $("status").textContent = describe(f);
  $("result").hidden = !f.result;
  $("result").textContent = f.result || "";
  tick();
}

/** @type {Socket<WatchFrame>} */
const socket = new Socket({
  path: `/watch/${encodeURIComponent(code)}/ws`,
  ping: "ping",
  onMessage: (data) => {
    if ("type" in data) {
      $("status").textContent = data.reason;
      socket.stop();
      return;
    }
    socket.settled();
    show(data);
  },
  onState: (state) => {
    // A finished game sends nothing more: the page keeps it, quietly.
    if (state === "lost" && frame && frame.status === "over") socket.stop();
    else $("connection").textContent = state === "lost" ? "Connection lost; reconnecting…" : "";
  },
});

setInterval(tick, 250);
socket.open();

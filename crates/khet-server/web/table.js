// What the watch page and the play page both show around the board, drawn from a game's view:
// the window's title, a player's bar (name, presence, clock), the list of moves.

import { clockNow, running } from "./clock.js";

/** @typedef {import("./protocol.js").BoardView} BoardView */
/** @typedef {import("./protocol.js").Side} Side */

/** @param {Side} side */
export function sideName(side) {
  return side === "silver" ? "Silver" : "Red";
}

/** The window's title for game `v`: `Khet CODE: Ann – Bob`. @param {BoardView} v */
export function windowTitle(v) {
  return `Khet ${v.code}: ${v.players[0] ?? "?"} – ${v.players[1] ?? "?"}`;
}

/**
 * Draws `side`'s bar (an element holding `.name`, `.presence` and `.clock`) for view `v`,
 * `elapsed` milliseconds after it came: the running clock counted down, and how long a player
 * has been away when `presence` is wanted (not in a game against the computer; in a
 * correspondence game, where days away are how it is played, only that they are away).
 * @param {HTMLElement} bar @param {BoardView} v @param {Side} side @param {number} elapsed
 * @param {{presence: boolean}} options
 */
export function drawBar(bar, v, side, elapsed, { presence }) {
  const i = side === "silver" ? 0 : 1;
  const part = (/** @type {string} */ cls) => /** @type {HTMLElement} */ (bar.querySelector(cls));
  bar.dataset.side = side;
  part(".name").textContent = `${sideName(side)}: ${v.players[i] ?? "waiting"}`;
  bar.classList.toggle("to-move", v.status === "playing" && !v.result && v.turn === side);
  const clock = part(".clock");
  clock.setAttribute("aria-label", `${sideName(side)}'s clock`);
  clock.textContent = clockNow(v, side, elapsed);
  clock.classList.toggle("running", running(v, side));
  const gone = v.presence.gone_ms[i];
  const away = presence && v.players[i] && !v.presence.connected[i] && v.status === "playing";
  part(".presence").textContent = !away ? ""
    : v.days_per_move ? "(away)" : `(away ${Math.floor(((gone || 0) + elapsed) / 1000)} s)`;
}

/**
 * Fills list `ol` with the moves, a turn of both sides to an item, and scrolls to the last.
 * @param {HTMLElement} ol @param {string[]} moves
 */
export function listMoves(ol, moves) {
  ol.replaceChildren();
  for (let i = 0; i < moves.length; i += 2) {
    const li = document.createElement("li");
    li.textContent = moves.slice(i, i + 2).join("  ");
    ol.append(li);
  }
  ol.scrollTop = ol.scrollHeight;
}

/** `Last move h2g2, which hit Red's pyramid on f3. ` or "". @param {BoardView} v */
export function lastMoveText(v) {
  if (!v.moves.length) return "";
  const hits = v.shot && v.shot.hits.length
    ? `, which hit ${v.shot.hits.map((h) => h.piece.label).join(" and ")}` : "";
  return `Last move ${v.moves[v.moves.length - 1]}${hits}. `;
}

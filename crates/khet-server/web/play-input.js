// The board's input on the play page: the pointer (click, tap, drag and drop, and hovering a
// square to see where the laser would go), the turn buttons, and the keyboard (arrows move a
// cursor over the board as seen, Enter or Space picks up and puts down, [ and ] turn the piece
// picked up, Escape puts it down). Each becomes a call to the controller.

import { FILES } from "./board.js";

/** @typedef {import("./play-ctrl.js").PlayCtrl} PlayCtrl */

/** The square under the pointer, if any (a piece lies over its square).
 * @param {PointerEvent} event */
function squareUnder(event) {
  const target = document.elementFromPoint(event.clientX, event.clientY);
  const square = target && target.closest ? target.closest("[data-square]") : null;
  if (square instanceof SVGElement) return square.dataset.square || null;
  const piece = target && target.closest ? target.closest("[data-piece]") : null;
  return piece instanceof SVGElement ? piece.dataset.piece || null : null;
}

/** @type {Record<string, [number, number]>} */
const ARROWS = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, 1], ArrowDown: [0, -1] };

/** Listens to the board `svg` and the turn buttons for `ctrl`.
 * @param {PlayCtrl} ctrl @param {SVGSVGElement} svg */
export function listen(ctrl, svg) {
  /** A drag in progress: the pointer that picked the piece up. @type {{id: number, from: string} | null} */
  let dragging = null;
  const atTable = () => ctrl.screen === "table";

  svg.addEventListener("pointerdown", (event) => {
    const sq = squareUnder(event);
    if (!sq || !atTable()) return;
    event.preventDefault();
    ctrl.cursor = sq;
    const wasSelected = ctrl.selected;
    ctrl.choose(sq);
    if (ctrl.selected === sq && wasSelected !== sq) dragging = { id: event.pointerId, from: sq };
  });
  svg.addEventListener("pointerup", (event) => {
    if (!dragging || dragging.id !== event.pointerId) return;
    const from = dragging.from;
    dragging = null;
    const sq = squareUnder(event);
    if (sq && sq !== from && ctrl.selected === from) ctrl.choose(sq);
  });
  svg.addEventListener("pointercancel", () => {
    dragging = null;
  });
  // Over a square the piece picked up may go to: where its laser would shoot after the move.
  svg.addEventListener("pointermove", (event) => {
    if (!ctrl.selected || event.pointerType === "touch") return;
    const sq = squareUnder(event);
    ctrl.showPreview(ctrl.movesFrom(ctrl.selected).find((m) => m.to === sq && !m.unstack));
  });
  svg.addEventListener("pointerleave", () => ctrl.showPreview(null));

  for (const button of document.querySelectorAll("button[data-rotate]")) {
    const way = /** @type {HTMLButtonElement} */ (button).dataset.rotate || "";
    const turn = () => ctrl.movesFrom(ctrl.selected).find((m) => m.rotate === way);
    button.addEventListener("pointerenter", () => ctrl.showPreview(turn()));
    button.addEventListener("focus", () => ctrl.showPreview(turn()));
    button.addEventListener("pointerleave", () => ctrl.showPreview(null));
    button.addEventListener("click", () => ctrl.turnPiece(way));
  }

  svg.tabIndex = 0;
  svg.addEventListener("keydown", (event) => {
    if (!atTable()) return;
    const arrow = ARROWS[event.key];
    if (arrow) {
      // The arrows go as the board is seen: turned, left is towards file a's far side.
      const flip = ctrl.turned ? -1 : 1;
      const x = Math.min(9, Math.max(0, FILES.indexOf(ctrl.cursor[0]) + arrow[0] * flip));
      const y = Math.min(8, Math.max(1, Number(ctrl.cursor.slice(1)) + arrow[1] * flip));
      ctrl.moveCursor(`${FILES[x]}${y}`);
    } else if (event.key === "Enter" || event.key === " ") {
      ctrl.choose(ctrl.cursor);
    } else if (event.key === "[" || event.key === "]") {
      ctrl.turnPiece(event.key === "]" ? "cw" : "ccw");
    } else if (event.key === "Escape") {
      ctrl.select(null);
      ctrl.redraw();
    } else {
      return;
    }
    event.preventDefault();
  });
  svg.addEventListener("focus", () => ctrl.focusBoard(true));
  svg.addEventListener("blur", () => ctrl.focusBoard(false));
}

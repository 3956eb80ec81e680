// The board as the pages draw it (watch and play): squares, reserved squares, pieces and the
// last shot, from a view the server sends (khet_protocol::view::BoardView). No rules here: the
// pieces, turns and beam lines all come worked out.

/** @typedef {import("./protocol.js").BoardView} BoardView */
/** @typedef {import("./protocol.js").PieceView} PieceView */
/** @typedef {import("./protocol.js").ShotView} ShotView */

export const SVG = "http://www.w3.org/2000/svg";

/**
 * A new SVG element `name` with attributes `attrs`, appended to `parent` if given.
 * @param {string} name @param {Record<string, string | number>} [attrs] @param {Element} [parent]
 * @returns {SVGElement}
 */
export function el(name, attrs, parent) {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, String(v));
  if (parent) parent.append(node);
  return node;
}

export const FILES = "abcdefghij";

/** A square's name from its column and row on the page's grid (row 0 is rank 8).
 * @param {number} x @param {number} y */
export function squareName(x, y) {
  return `${FILES[x]}${8 - y}`;
}

// Each piece drawn in a unit square, in its base orientation (a Sphinx or Anubis facing north,
// a mirror facing north-east), then turned by quarter turns.
/** @type {Record<string, (g: SVGElement, p: PieceView) => void>} */
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

/** The drawing of one board in `svg`: `turned` shows it from Red's side (rank 1 at the top). */
export class Board {
  /** @param {SVGSVGElement} svg */
  constructor(svg) {
    this.svg = svg;
    this.turned = false;
    this.lastShot = "";
    this.drawn = false;
    /** @type {SVGElement | null} the keyboard's cursor, when the board has the focus */
    this.cursor = null;
    // Everything on the board turns with it; the labels are written the right way up.
    this.field = el("g", { class: "field" }, svg);
    const squares = el("g", { class: "squares" }, this.field);
    this.squares = new Map();
    for (let y = 0; y < 8; y++) {
      for (let x = 0; x < 10; x++) {
        const name = squareName(x, y);
        const rect = el("rect", { x, y, width: 1, height: 1, class: "square", "data-square": name },
          squares);
        this.squares.set(name, rect);
      }
    }
    this.reserved = el("g", { class: "reserved" }, this.field);
    this.marks = el("g", { class: "marks" }, this.field);
    this.pieces = el("g", { class: "pieces" }, this.field);
    this.beam = el("g", { class: "beam" }, this.field);
    this.preview = el("g", { class: "preview" }, this.field);
    this.labels = el("g", { class: "labels", "aria-hidden": "true" }, svg);
    this.turn(false);
  }

  /** Shows the board from Red's side (`true`) or Silver's. @param {boolean} turned */
  turn(turned) {
    this.turned = turned;
    this.field.setAttribute("transform", turned ? "rotate(180 5 4)" : "");
    this.labels.replaceChildren();
    for (let x = 0; x < 10; x++) {
      el("text", { x: x + 0.5, y: 8.22, "text-anchor": "middle" }, this.labels).textContent =
        FILES[turned ? 9 - x : x];
    }
    for (let y = 0; y < 8; y++) {
      el("text", { x: -0.15, y: y + 0.58, "text-anchor": "middle" }, this.labels).textContent =
        String(turned ? y + 1 : 8 - y);
    }
  }

  /** @param {PieceView} p @param {Element} parent @param {string} [extraClass] */
  drawPiece(p, parent, extraClass) {
    const g = el("g", {
      class: `piece ${p.color} ${p.kind} ${extraClass || ""}`,
      transform: `translate(${p.at[0]} ${p.at[1]})`,
      "data-piece": p.sq,
    }, parent);
    el("title", {}, g).textContent = p.label;
    const turned = el("g", { transform: `rotate(${p.turns * 90} 0.5 0.5)` }, g);
    (SHAPES[p.kind] || SHAPES.obelisk)(turned, p);
    return g;
  }

  /** Draws view `v`; the beam grows along its path when the shot is new (and motion is wanted).
   * @param {BoardView} v */
  draw(v) {
    // When the first board was drawn, for the page's measurements (scripts/bench-page).
    if (!this.drawn) performance.mark("khet:first-board");
    this.drawn = true;
    const shot = JSON.stringify(v.shot);
    const animate = shot !== this.lastShot &&
      !window.matchMedia("(prefers-reduced-motion: reduce)").matches;
    this.lastShot = shot;
    this.reserved.replaceChildren();
    for (const [x, y, color] of v.reserved) {
      el("rect", { x, y, width: 1, height: 1, class: `reserved-${color}` }, this.reserved);
    }
    this.pieces.replaceChildren();
    for (const p of v.pieces) this.drawPiece(p, this.pieces);
    this.drawShot(v.shot, animate);
  }

  // The beam grows along its path, as the light would, and what it hit fades away.
  /** @param {ShotView | null} shot @param {boolean} animate */
  drawShot(shot, animate) {
    const g = this.beam;
    g.replaceChildren();
    if (!shot) return;
    const path = el("g", { class: `shot from-${shot.color}` }, g);
    let delay = 0;
    for (const [x1, y1, x2, y2] of shot.lines) {
      const length = Math.hypot(x2 - x1, y2 - y1) || 0.01;
      for (const cls of ["glow", "core"]) {
        const line = /** @type {SVGElement} */ (el("line", { x1, y1, x2, y2, class: cls }, path));
        if (animate) {
          line.style.strokeDasharray = `${length}`;
          line.style.strokeDashoffset = `${length}`;
          line.style.animation = `beam ${0.06 * length}s linear ${delay}s forwards`;
        }
      }
      delay += 0.06 * length;
    }
    for (const hit of shot.hits) {
      const ghost = this.drawPiece(hit.piece, g, `hit ${hit.effect}`);
      ghost.style.animationDelay = `${animate ? delay : 0}s`;
    }
  }

  /** Shows where a beam would go (a move being considered), or nothing with `null`.
   * @param {ShotView | null} shot */
  showPreview(shot) {
    this.preview.replaceChildren();
    if (!shot) return;
    for (const [x1, y1, x2, y2] of shot.lines) el("line", { x1, y1, x2, y2 }, this.preview);
    for (const hit of shot.hits) {
      const [x, y] = hit.piece.at;
      el("rect", { x, y, width: 1, height: 1, class: `would-hit ${hit.effect}` }, this.preview);
    }
  }

  /** Marks squares: each `[name, class]` (`selected`, `target`, `hint`).
   * @param {[string, string][]} marks */
  mark(marks) {
    this.marks.replaceChildren();
    for (const [name, cls] of marks) {
      const rect = this.squares.get(name);
      if (!rect) continue;
      el("rect", {
        x: rect.getAttribute("x") || 0, y: rect.getAttribute("y") || 0, width: 1, height: 1,
        class: `mark ${cls}`,
      }, this.marks);
    }
  }

  /** Outlines square `name` as the keyboard's cursor, or nothing with `null`.
   * @param {string | null} name */
  showCursor(name) {
    if (this.cursor) this.cursor.remove();
    this.cursor = null;
    const rect = name ? this.squares.get(name) : null;
    if (!rect) return;
    this.cursor = /** @type {SVGElement} */ (rect.cloneNode());
    this.cursor.setAttribute("class", "cursor");
    this.cursor.removeAttribute("data-square");
    this.marks.after(this.cursor);
  }
}

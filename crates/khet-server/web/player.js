// A player's page (/players/ID): their rating with its history drawn as a graph (SVG), their
// listed games with a link to each (the replay's record when over, the watch page in play),
// and their tournaments; drawn from /players/ID.json. Names are set as text, never as markup.
// A visitor who plays here (the play page keeps an identity in this browser) may challenge them
// from it: the play page opens with the player named in its address (`#challenge=ID&name=NAME`).

import { isSecret } from "./protocol.js";

const SVG = "http://www.w3.org/2000/svg";

/** @param {string} tag @param {string} [text] @returns {HTMLElement} */
function el(tag, text) {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  return e;
}

/** The rating's history as a line: the rating before the first game, then after each.
 * @param {number[]} ratings */
function drawGraph(ratings) {
  const svg = /** @type {SVGSVGElement} */ (/** @type {unknown} */ (document.getElementById("graph")));
  const [width, height, pad] = [600, 200, 20];
  const low = Math.min(...ratings) - 10;
  const high = Math.max(...ratings) + 10;
  const x = (/** @type {number} */ i) => pad + (i * (width - 2 * pad)) / Math.max(1, ratings.length - 1);
  const y = (/** @type {number} */ r) => height - pad - ((r - low) * (height - 2 * pad)) / (high - low);
  const line = document.createElementNS(SVG, "polyline");
  line.setAttribute("points", ratings.map((r, i) => `${x(i).toFixed(1)},${y(r).toFixed(1)}`).join(" "));
  line.setAttribute("fill", "none");
  line.setAttribute("stroke", "currentColor");
  line.setAttribute("stroke-width", "2");
  line.id = "history";
  const labels = [high - 10, low + 10].map((r) => {
    const t = document.createElementNS(SVG, "text");
    t.setAttribute("x", "2");
    t.setAttribute("y", y(r).toFixed(1));
    t.setAttribute("font-size", "11");
    t.textContent = String(Math.round(r));
    return t;
  });
  const title = svg.querySelector("title");
  svg.replaceChildren(...(title ? [title] : []), line, ...labels);
}

/** Whether this browser has played on the play page: the identity it keeps (store.js's
 * `khet.identity`), read and never written, so that visiting this page makes none. */
function playsHere() {
  try {
    const raw = localStorage.getItem("khet.identity");
    return raw !== null && isSecret(JSON.parse(raw));
  } catch (_) {
    return false;
  }
}

/** The link that challenges this player from the play page, for a visitor who plays there (the
 * play page keeps no player id in the browser, so a visitor's own page shows it too).
 * @param {{id: string, name: string}} p */
function drawChallenge(p) {
  const link = /** @type {HTMLAnchorElement} */ (document.getElementById("challenge"));
  const shown = playsHere();
  link.hidden = !shown;
  /** @type {HTMLElement} */ (document.getElementById("challenge-bar")).hidden = !shown;
  link.textContent = `Challenge ${p.name}`;
  link.href = `/play#challenge=${encodeURIComponent(p.id)}&name=${encodeURIComponent(p.name)}`;
}

/** @param {any} p */
function draw(p) {
  document.title = `Khet: ${p.name}`;
  /** @type {HTMLElement} */ (document.getElementById("name")).textContent = p.name;
  /** @type {HTMLElement} */ (document.getElementById("rating")).textContent =
    `Rating ${Math.round(p.rating)} ± ${Math.round(2 * p.deviation)} after ${p.games} rated games`;
  drawChallenge(p);
  const ratings = [p.initial, ...p.history.map((/** @type {any} */ h) => h.rating)];
  /** @type {HTMLElement} */ (document.getElementById("graph-empty")).hidden = p.history.length > 0;
  // No blank frame where no line is drawn.
  /** @type {HTMLElement} */ (/** @type {unknown} */ (document.getElementById("graph"))).style.display =
    p.history.length > 0 ? "" : "none";
  if (p.history.length > 0) drawGraph(ratings);
  const body = /** @type {HTMLElement} */ (document.querySelector("#games tbody"));
  body.replaceChildren(...p.listed.map((/** @type {any} */ g) => {
    const row = el("tr");
    row.dataset.code = g.code;
    const game = el("td");
    const link = /** @type {HTMLAnchorElement} */ (el("a", g.code));
    link.href = g.outcome === "playing" ? `/watch/${g.code}` : `/games/${g.code}.ron`;
    game.append(link);
    row.append(game, el("td", g.side), el("td", g.opponent ?? "—"), el("td", g.outcome + (g.rated ? " (rated)" : "")), el("td", g.setup));
    return row;
  }));
  const tournaments = /** @type {HTMLElement} */ (document.getElementById("tournaments"));
  tournaments.replaceChildren(...p.tournaments.map((/** @type {any} */ t) => {
    const item = el("li");
    const link = /** @type {HTMLAnchorElement} */ (el("a", t.name));
    link.href = `/tournaments/${t.code}`;
    item.append(link, ` (${t.status})`);
    return item;
  }));
}

async function load() {
  try {
    const answer = await fetch(`${location.pathname.replace(/\/$/, "")}.json`, { cache: "no-store" });
    if (!answer.ok) throw new Error(await answer.text());
    draw(await answer.json());
  } catch (e) {
    /** @type {HTMLElement} */ (document.getElementById("rating")).textContent = `Cannot read this player: ${e}`;
  }
}

load();

// The list of games on `/`: read from /games every few seconds, each linked to its watch page.
// Nothing here plays (/play does).
import { timeControl } from "./clock.js";

/** @typedef {import("./protocol.js").GameSummary} GameSummary */

const $ = (/** @type {string} */ id) => /** @type {HTMLElement} */ (document.getElementById(id));

/** @param {HTMLElement} row @param {string} text @param {string} [href] */
function cell(row, text, href) {
  const td = document.createElement("td");
  if (href) {
    const a = document.createElement("a");
    a.href = href;
    a.textContent = text;
    td.append(a);
  } else {
    td.textContent = text;
  }
  row.append(td);
}

/** @param {HTMLElement} table @param {GameSummary[]} games @param {(g: GameSummary) => string} last */
function fill(table, games, last) {
  const body = /** @type {HTMLElement} */ (table.querySelector("tbody"));
  body.replaceChildren();
  for (const g of games) {
    const row = document.createElement("tr");
    cell(row, g.code, `/watch/${encodeURIComponent(g.code)}`);
    cell(row, g.players[0] ?? "—");
    cell(row, g.players[1] ?? "—");
    cell(row, g.setup);
    cell(row, String(g.plies));
    cell(row, last(g));
    body.append(row);
  }
  table.hidden = games.length === 0;
}

async function refresh() {
  const state = $("lobby-state");
  try {
    const response = await fetch("/games", { cache: "no-store" });
    if (!response.ok) throw new Error(`the server answered ${response.status}`);
    /** @type {GameSummary[]} */
    const games = await response.json();
    const playing = games.filter((g) => g.status === "playing");
    const ended = games.filter((g) => g.status === "over").slice(0, 20);
    fill($("playing"), playing, (g) => timeControl(g.clock));
    fill($("ended"), ended, (g) => g.result ?? "");
    $("ended-state").hidden = ended.length > 0;
    state.textContent = playing.length === 0
      ? "No game is being played right now."
      : `${playing.length} game${playing.length === 1 ? "" : "s"} being played: open one to watch it live.`;
  } catch (e) {
    state.textContent = `The games could not be read (${e instanceof Error ? e.message : e}); trying again.`;
  }
}

refresh();
setInterval(refresh, 5000);

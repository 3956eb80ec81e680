// The list of games on `/`: read from /games every few seconds. Nothing here plays.
"use strict";

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

function clockText(clock) {
  if (!clock) return "none";
  return `${Math.round(clock.initial_ms / 60000)}+${Math.round(clock.increment_ms / 1000)}`;
}

function fill(table, games, last) {
  const body = table.querySelector("tbody");
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
  const state = document.getElementById("lobby-state");
  try {
    const response = await fetch("/games", { cache: "no-store" });
    if (!response.ok) throw new Error(`the server answered ${response.status}`);
    const games = await response.json();
    const playing = games.filter((g) => g.status === "playing");
    const ended = games.filter((g) => g.status === "over").slice(0, 20);
    fill(document.getElementById("playing"), playing, (g) => clockText(g.clock));
    fill(document.getElementById("ended"), ended, (g) => g.result ?? "");
    document.getElementById("ended-state").hidden = ended.length > 0;
    state.textContent = playing.length === 0
      ? "No game is being played right now."
      : `${playing.length} game${playing.length === 1 ? "" : "s"} being played: open one to watch it live.`;
  } catch (e) {
    state.textContent = `The games could not be read (${e.message}); trying again.`;
  }
}

refresh();
setInterval(refresh, 5000);

// The play page: a person plays from a browser through the server's own protocol (the /ws
// socket, docs/online-protocol.md), or the computer in the page (computer.js). Its hello asks for views, so after each change the server
// sends the game worked out by the engine, legal moves included: this script knows no rules.
// The identity, the name and each game's seat secret stay in localStorage, so a reload or a
// dropped connection takes the seat again where the game stands.
import { Board, clockText, listMoves, sideName } from "./board.js";
import { ComputerGame, forget, keptGame } from "./computer.js";

const VERSION = 1;
const $ = (id) => document.getElementById(id);

// ---- What the browser keeps -------------------------------------------------------------

/// Reads a stored value, or `fallback` when it is missing or junk (then it is removed).
function stored(key, fallback, valid) {
  try {
    const raw = localStorage.getItem(key);
    if (raw === null) return fallback;
    const value = JSON.parse(raw);
    if (valid(value)) return value;
  } catch (_) {
    // Junk: forgotten below.
  }
  try { localStorage.removeItem(key); } catch (_) { /* storage refused */ }
  return fallback;
}

function keep(key, value) {
  try {
    localStorage.setItem(key, JSON.stringify(value));
  } catch (_) {
    problem("This browser does not keep data for this page: a reload will not find your seat.");
  }
}

const isSecret = (s) => typeof s === "string" && /^[0-9a-f]{32}$/.test(s);
const isCode = (s) => typeof s === "string" && /^[a-hj-km-np-z2-9]{8}$/.test(s);

function newSecret() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
}

let identity = stored("khet.identity", null, isSecret);
if (!identity) {
  identity = newSecret();
  keep("khet.identity", identity);
}
let name = stored("khet.name", "", (n) => typeof n === "string" && n.length <= 24);
/// Seats by game code: { secret, color, since }.
const seats = stored("khet.seats", {}, (s) => s && typeof s === "object" && !Array.isArray(s));
for (const [code, seat] of Object.entries(seats)) {
  if (!isCode(code) || !seat || !isSecret(seat.secret)) delete seats[code];
}
let turned = stored("khet.turned", {}, (t) => t && typeof t === "object");

// ---- The connection ---------------------------------------------------------------------

let socket = null;
let retry = 500;
let welcomed = false;
/// The game this page is about: from the address, or the one just created or joined.
let code = (() => {
  const part = decodeURIComponent(location.pathname.split("/")[2] || "").toLowerCase();
  return isCode(part) ? part : null;
})();
/// What to do with `code` once welcomed: take the seat, join, or watch.
let view = null;
let received = 0;
/// The game against the computer, when that is what the table shows (`/play/computer`).
let computer = null;
let lastSituation = "";

function send(msg) {
  if (socket && socket.readyState === WebSocket.OPEN && welcomed) {
    socket.send(JSON.stringify(msg));
    return true;
  }
  say("Not connected: reconnecting…");
  return false;
}

function connect() {
  if (computer) return;
  if (!name) {
    showHome();
    $("connection").textContent = code ? `Give your name to play game ${code}.` : "Give your name to play.";
    $("name").focus();
    return;
  }
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  socket = new WebSocket(`${scheme}//${location.host}/ws`);
  welcomed = false;
  $("connection").textContent = "Connecting…";
  let ping = null;
  socket.onopen = () => {
    socket.send(JSON.stringify({ type: "hello", version: VERSION, identity, name, views: true }));
    ping = setInterval(() => send({ type: "ping" }), 20000);
  };
  socket.onmessage = (message) => {
    let msg;
    try {
      msg = JSON.parse(message.data);
    } catch (_) {
      return;
    }
    receive(msg);
  };
  socket.onclose = () => {
    clearInterval(ping);
    welcomed = false;
    if (retry < 0) return;
    $("connection").textContent = "Connection lost; reconnecting…";
    setTimeout(connect, retry);
    retry = Math.min(retry * 2, 10000);
  };
}

function afterWelcome() {
  if (code) {
    const seat = seats[code];
    if (seat) send({ type: "play", code, secret: seat.secret });
    else send({ type: "join", code });
    showTable();
  } else {
    send({ type: "lobby" });
    send({ type: "leaderboard" });
    showHome();
  }
}

/// What a refusal means here, and what to do next.
function refused(msg) {
  if (msg.code === "seat_taken" && code && !seats[code]) {
    // Both seats are someone else's: watch instead.
    send({ type: "watch", code });
    say("Both seats are taken: you are watching.");
    return;
  }
  if (msg.code === "not_your_seat" && code) {
    delete seats[code];
    keep("khet.seats", seats);
  }
  if (msg.code === "bad_name") {
    name = "";
    retry = -1;
    showHome();
  }
  if (["unknown_game", "not_your_seat"].includes(msg.code) && !view) {
    problem(`${msg.reason}. Back to the lobby.`);
    code = null;
    history.replaceState(null, "", "/play");
    afterWelcome();
    return;
  }
  say(msg.reason.charAt(0).toUpperCase() + msg.reason.slice(1) + ".");
}

function receive(msg) {
  switch (msg.type) {
    case "welcome":
      welcomed = true;
      retry = 500;
      $("connection").textContent = "";
      $("problem").hidden = true;
      $("rating").textContent = `Rating ${Math.round(msg.player.rating)}${msg.player.deviation > 110 ? "?" : ""}`;
      afterWelcome();
      break;
    case "seat":
      code = msg.code;
      seats[code] = { secret: msg.secret, color: msg.color, since: Date.now() };
      keep("khet.seats", seats);
      history.replaceState(null, "", `/play/${code}`);
      showTable();
      break;
    case "view":
      show(msg.view);
      break;
    case "lobby":
      showLobby(msg.games);
      break;
    case "leaderboard":
      showLeaderboard(msg.players);
      break;
    case "refused":
      if (!welcomed) {
        problem(msg.reason);
        if (msg.code !== "rate_limited") retry = -1;
      } else {
        refused(msg);
      }
      break;
    default:
      break;
  }
}

// ---- The home screen --------------------------------------------------------------------

function problem(text) {
  $("problem").textContent = text;
  $("problem").hidden = false;
}

function showHome() {
  $("home").hidden = false;
  $("table").hidden = true;
  document.title = "Khet: play";
  $("title").textContent = "Khet";
  $("name").value = name;
  showMine();
}

function showTable() {
  $("home").hidden = true;
  $("table").hidden = false;
}

function clockSpec(value) {
  if (!value) return null;
  const [initial, increment] = value.split("+").map(Number);
  return { initial_ms: initial, increment_ms: increment };
}

function clockWords(clock) {
  if (!clock) return "none";
  return `${Math.round(clock.initial_ms / 60000)} + ${Math.round(clock.increment_ms / 1000)}`;
}

function showLobby(games) {
  const body = $("lobby").querySelector("tbody");
  body.replaceChildren();
  for (const g of games) {
    const row = document.createElement("tr");
    for (const text of [`${g.creator.name} (${Math.round(g.creator.rating)})`, g.setup,
      clockWords(g.clock), g.rated ? "rated" : "casual"]) {
      const td = document.createElement("td");
      td.textContent = text;
      row.append(td);
    }
    const td = document.createElement("td");
    const join = document.createElement("button");
    join.textContent = "Join";
    join.dataset.join = g.code;
    join.onclick = () => open(g.code);
    td.append(join);
    row.append(td);
    body.append(row);
  }
  $("lobby").hidden = games.length === 0;
  $("lobby-empty").hidden = games.length > 0;
}

function showLeaderboard(players) {
  const list = $("best");
  list.replaceChildren();
  for (const p of players.slice(0, 20)) {
    const li = document.createElement("li");
    li.textContent = `${p.name}: ${Math.round(p.rating)}${p.deviation > 110 ? "?" : ""} (${p.games} games)`;
    list.append(li);
  }
  $("best-empty").hidden = players.length > 0;
}

function showMine() {
  const list = $("mine");
  list.replaceChildren();
  const codes = Object.keys(seats).sort((a, b) => (seats[b].since || 0) - (seats[a].since || 0));
  for (const c of codes.slice(0, 10)) {
    const li = document.createElement("li");
    const a = document.createElement("a");
    a.href = `/play/${c}`;
    a.textContent = c;
    li.append(a);
    list.append(li);
  }
  $("mine-section").hidden = codes.length === 0;
}

/// Goes to game `c`: takes the seat kept for it, or joins it.
function open(c) {
  code = c;
  view = null;
  history.pushState(null, "", `/play/${c}`);
  afterWelcome();
}

/// Setups' names for people, by the names games give (`khet2/classic`: `Classic`).
const setupNames = new Map();
const setupName = (id) => setupNames.get(id) || setupNames.get(`khet2/${id}`) || id;

async function loadSetups() {
  try {
    const answer = await fetch("/setups");
    if (!answer.ok) throw new Error(answer.statusText);
    const offer = await answer.json();
    for (const s of offer.setups) setupNames.set(s.id, s.name);
    if (view) show(view);
    for (const select of [$("setup"), $("computer-setup")]) {
      for (const s of offer.setups) {
        const option = document.createElement("option");
        option.value = s.id;
        option.textContent = `${s.name} (Khet ${s.edition})`;
        select.append(option);
      }
    }
    $("computer-form").hidden = !offer.computer;
    $("computer-missing").hidden = offer.computer;
  } catch (e) {
    problem(`The server did not list its setups (${e.message}); reload to try again.`);
  }
}

$("name-form").onsubmit = (e) => {
  e.preventDefault();
  const wanted = $("name").value.trim();
  if (!wanted) return;
  name = wanted;
  keep("khet.name", name);
  if (socket && socket.readyState <= WebSocket.OPEN) {
    // Hello again under the new name.
    retry = 0;
    socket.close();
  } else {
    retry = 500;
    connect();
  }
};

$("create-form").onsubmit = (e) => {
  e.preventDefault();
  if (!name) {
    $("name").focus();
    say("Give your name first.");
    return;
  }
  send({
    type: "create",
    setup: $("setup").value,
    clock: clockSpec($("clock").value),
    color: $("color").value,
    rated: $("rated").checked,
    listed: $("listed").checked,
  });
};

$("join-form").onsubmit = (e) => {
  e.preventDefault();
  // A pasted link works as well as its code.
  const text = $("code").value.trim().toLowerCase().split("/").pop();
  if (!isCode(text)) {
    problem(`"${text}" is not a game's code: eight letters and digits, as the link ends.`);
    return;
  }
  open(text);
};

$("computer-form").onsubmit = (e) => {
  e.preventDefault();
  let you = $("computer-color").value;
  if (you === "random") you = Math.random() < 0.5 ? "silver" : "red";
  const setup = $("computer-setup").value;
  history.pushState(null, "", "/play/computer");
  startComputer({ setup, level: $("level").value, you, saved: setup });
};

/// Sits down to a game against the computer: a new one, or the one kept in this browser.
function startComputer(settings) {
  if (computer) computer.close();
  if (socket) {
    retry = -1;
    socket.close();
  }
  view = null;
  code = null;
  $("connection").textContent = "";
  computer = new ComputerGame(settings, show, (thinking) => {
    document.body.dataset.thinking = thinking ? "yes" : "no";
    if (thinking) say("The computer is thinking…");
    select(selected);
  });
  showTable();
  say("The engine is loading…");
  computer.start().catch((e) => {
    // A kept game the engine refuses, or an engine that does not load: back to the lobby.
    forget();
    problem(`The game against the computer could not start: ${e.message}`);
    computer.close();
    computer = null;
    history.replaceState(null, "", "/play");
    showHome();
    retry = 500;
    connect();
  });
}

/// Runs a request to the computer's game; its refusal is said, not thrown.
function withComputer(what) {
  what().catch((e) => say(`${e.message.charAt(0).toUpperCase()}${e.message.slice(1)}.`));
}

$("seek").onclick = () => {
  send({ type: "seek", clock: clockSpec($("clock").value), rated: $("rated").checked });
};

// ---- The table --------------------------------------------------------------------------

const board = new Board($("board"));
/// The square of the piece picked up, if any.
let selected = null;
/// A drag in progress: the pointer that picked the piece up.
let dragging = null;
/// The square that has the keyboard's focus on the board.
let cursor = "e1";

function say(text) {
  $("status").textContent = text;
}


function movesFrom(sq) {
  return view ? view.legal.filter((m) => m.from === sq) : [];
}

function pieceAt(sq) {
  return view ? view.pieces.find((p) => p.sq === sq) : null;
}

/// The move whose beam is shown, if any: where the laser would go after it (the page's engine,
/// in a game against the computer).
let previewing = null;

function preview(move) {
  const mv = move ? move.mv : null;
  if (mv === previewing) return;
  previewing = mv;
  if (!mv || !computer || computer.busy) {
    board.showPreview(null);
    return;
  }
  computer.preview(mv).then((shot) => {
    if (previewing === mv) board.showPreview(shot);
  }).catch(() => board.showPreview(null));
}

function select(sq) {
  selected = sq;
  preview(null);
  const moves = sq ? movesFrom(sq) : [];
  const marks = [];
  if (sq) marks.push([sq, "selected"]);
  for (const m of moves) if (m.to) marks.push([m.to, "target"]);
  board.mark(marks);
  for (const dir of ["cw", "ccw"]) {
    document.querySelector(`[data-rotate="${dir}"]`).disabled =
      !moves.some((m) => m.rotate === dir);
  }
}

function play(move) {
  select(null);
  if (computer) {
    say(`You play ${move.mv}.`);
    withComputer(() => computer.play(move.mv));
    return;
  }
  if (send({ type: "move", ply: view.moves.length, mv: move.mv })) {
    say(`You play ${move.mv}…`);
  }
}

/// Why a square cannot be used now, or null.
function whyNot(sq) {
  if (!view) return "The game is not here yet.";
  if (view.status === "open") return "Your opponent has not come yet.";
  if (view.result || view.status === "over") return "The game is over.";
  if (!view.you) return "You are watching this game.";
  if (computer && computer.busy) return "The computer is thinking.";
  if (view.you !== view.turn) return `It is ${sideName(view.turn)}'s turn.`;
  const piece = pieceAt(sq);
  if (!piece) return `${sq} is empty: pick one of your pieces.`;
  if (piece.color !== view.you) return `That is ${sideName(piece.color)}'s ${piece.kind}; you play ${sideName(view.you)}.`;
  if (!movesFrom(sq).length) return `Your ${piece.kind} on ${sq} has no move.`;
  return null;
}

/// A square chosen (clicked, tapped, dropped on, or Enter on the keyboard).
function choose(sq) {
  if (selected && sq !== selected) {
    const moves = movesFrom(selected).filter((m) => m.to === sq);
    if (moves.length === 1) return play(moves[0]);
    if (moves.length > 1) {
      // A stack of Obelisks: the whole stack steps unless the top is asked for.
      return play(moves.find((m) => !m.unstack) || moves[0]);
    }
  }
  if (sq === selected) {
    select(null);
    say("Put down.");
    return;
  }
  const why = whyNot(sq);
  if (why) {
    if (selected) {
      const piece = pieceAt(selected);
      say(`${piece ? `Your ${piece.kind}` : "That piece"} cannot go to ${sq}. ${why.startsWith(sq) ? "" : why}`.trim());
    } else {
      say(why);
    }
    select(null);
    return;
  }
  select(sq);
  const moves = movesFrom(sq);
  const steps = moves.filter((m) => m.to).map((m) => m.to);
  const turns = moves.filter((m) => m.rotate).length;
  say(`${pieceAt(sq).label}: ${steps.length ? `to ${steps.join(", ")}` : "no steps"}${turns ? "; or turn it" : ""}.`);
}

function squareUnder(event) {
  const target = document.elementFromPoint(event.clientX, event.clientY);
  const rect = target && target.closest ? target.closest("[data-square]") : null;
  if (rect) return rect.dataset.square;
  // A piece lies over its square.
  const piece = target && target.closest ? target.closest("[data-piece]") : null;
  return piece ? piece.dataset.piece : null;
}

$("board").addEventListener("pointerdown", (event) => {
  const sq = squareUnder(event);
  if (!sq) return;
  event.preventDefault();
  cursor = sq;
  const wasSelected = selected;
  choose(sq);
  if (selected === sq && wasSelected !== sq) dragging = { id: event.pointerId, from: sq };
});

$("board").addEventListener("pointerup", (event) => {
  if (!dragging || dragging.id !== event.pointerId) return;
  const from = dragging.from;
  dragging = null;
  const sq = squareUnder(event);
  if (sq && sq !== from && selected === from) choose(sq);
});

$("board").addEventListener("pointercancel", () => {
  dragging = null;
});

// Over a square the piece picked up may go to: where its laser would shoot after the move.
$("board").addEventListener("pointermove", (event) => {
  if (!selected || event.pointerType === "touch") return;
  const sq = squareUnder(event);
  preview(movesFrom(selected).find((m) => m.to === sq && !m.unstack) || null);
});
$("board").addEventListener("pointerleave", () => preview(null));

for (const button of document.querySelectorAll("[data-rotate]")) {
  const turn = () => movesFrom(selected).find((m) => m.rotate === button.dataset.rotate);
  button.addEventListener("pointerenter", () => preview(turn() || null));
  button.addEventListener("focus", () => preview(turn() || null));
  button.addEventListener("pointerleave", () => preview(null));
  button.onclick = () => {
    const move = movesFrom(selected).find((m) => m.rotate === button.dataset.rotate);
    if (move) play(move);
  };
}

// The keyboard: arrows move a cursor over the board (as seen), Enter or Space picks up and
// puts down, [ and ] turn the piece picked up.
$("board").tabIndex = 0;
$("board").addEventListener("keydown", (event) => {
  const files = "abcdefghij";
  let x = files.indexOf(cursor[0]);
  let y = Number(cursor.slice(1));
  const flip = board.turned ? -1 : 1;
  const keys = {
    ArrowLeft: [-flip, 0], ArrowRight: [flip, 0], ArrowUp: [0, flip], ArrowDown: [0, -flip],
  };
  if (keys[event.key]) {
    x = Math.min(9, Math.max(0, x + keys[event.key][0]));
    y = Math.min(8, Math.max(1, y + keys[event.key][1]));
    cursor = `${files[x]}${y}`;
    const piece = pieceAt(cursor);
    say(`${cursor}: ${piece ? piece.label : "empty"}.`);
    if (selected) preview(movesFrom(selected).find((m) => m.to === cursor && !m.unstack) || null);
  } else if (event.key === "Enter" || event.key === " ") {
    choose(cursor);
  } else if (event.key === "[" || event.key === "]") {
    const move = movesFrom(selected).find((m) => m.rotate === (event.key === "]" ? "cw" : "ccw"));
    if (move) play(move);
  } else if (event.key === "Escape") {
    select(null);
  } else {
    return;
  }
  event.preventDefault();
  showCursor();
});
$("board").addEventListener("focus", showCursor);
$("board").addEventListener("blur", () => board.cursor && board.cursor.remove());

function showCursor() {
  if (board.cursor) board.cursor.remove();
  const rect = board.squares.get(cursor);
  if (!rect || document.activeElement !== $("board")) return;
  board.cursor = rect.cloneNode();
  board.cursor.setAttribute("class", "cursor");
  board.cursor.removeAttribute("data-square");
  board.marks.after(board.cursor);
}

$("flip").onclick = () => {
  board.turn(!board.turned);
  if (code || computer) {
    turned[code || "computer"] = board.turned;
    keep("khet.turned", turned);
  }
  placePlayers();
};

/// A button's action: a message to the server, or in a game against the computer, `local`.
const act = (id, msg, local) => {
  $(id).onclick = () => {
    if (!computer) send(msg);
    else if (local) withComputer(local);
  };
};
act("offer-draw", { type: "offer_draw" });
act("accept-draw", { type: "accept_draw" });
act("decline-draw", { type: "decline_draw" });
act("claim-repetition", { type: "claim_repetition" }, () => computer.claimDraw());
act("takeback", { type: "request_takeback" }, () => computer.takeBack());
act("accept-takeback", { type: "accept_takeback" });
act("decline-takeback", { type: "decline_takeback" });
act("claim-win", { type: "claim_abandoned", draw: false });
act("claim-draw", { type: "claim_abandoned", draw: true });
$("resign").onclick = () => {
  if (!confirm("Resign this game?")) return;
  if (computer) withComputer(() => computer.resign());
  else send({ type: "resign" });
};
$("hint").onclick = () => {
  if (!computer || computer.busy) return;
  say("Looking for a good move…");
  withComputer(async () => {
    const hint = await computer.hint();
    select(hint.from);
    const marks = [[hint.from, "selected"]];
    if (hint.to) marks.push([hint.to, "hint"]);
    board.mark(marks);
    say(`Hint: ${hint.text}${hint.rotate ? ` (turn it ${hint.rotate === "cw" ? "clockwise" : "anticlockwise"})` : ""}.`);
  });
};
$("new-game").onclick = () => {
  if (computer) computer.close();
  computer = null;
  location.href = "/play";
};
$("copy").onclick = async () => {
  $("link").select();
  try {
    await navigator.clipboard.writeText($("link").value);
    say("The link is copied.");
  } catch (_) {
    say("Select the link and copy it.");
  }
};

/// Silver's and Red's bars: the player's own side at the bottom, as the board faces.
function placePlayers() {
  if (!view) return;
  const bottom = board.turned ? 1 : 0;
  for (const [id, i] of [["player-bottom", bottom], ["player-top", 1 - bottom]]) {
    const bar = $(id);
    const side = i === 0 ? "silver" : "red";
    bar.dataset.side = side;
    bar.querySelector(".name").textContent = `${sideName(side)}: ${view.players[i] ?? "waiting"}`;
    bar.querySelector(".clock").setAttribute("aria-label", `${sideName(side)}'s clock`);
    bar.classList.toggle("to-move", view.status === "playing" && !view.result && view.turn === side);
  }
  tick();
}

function tick() {
  if (!view) return;
  const now = performance.now() - received;
  for (const bar of [$("player-top"), $("player-bottom")]) {
    const side = bar.dataset.side;
    const i = side === "silver" ? 0 : 1;
    const clock = bar.querySelector(".clock");
    const c = view.clocks;
    const running = c && c.running === side && view.status === "playing" && !view.result;
    clock.textContent = c ? clockText(c.remaining_ms[i] - (running ? now : 0)) : "";
    clock.classList.toggle("running", !!running);
    const gone = view.presence.gone_ms[i];
    const away = !computer && view.players[i] && !view.presence.connected[i] &&
      view.status === "playing";
    bar.querySelector(".presence").textContent = away
      ? `(away ${Math.floor(((gone || 0) + now) / 1000)} s)` : "";
  }
  // The opponent gone long enough: the game may be claimed.
  const opponent = view.you === "silver" ? 1 : 0;
  const gone = view.presence.gone_ms[opponent];
  const claimable = !computer && !!view.you && view.status === "playing" && !view.result &&
    !view.presence.connected[opponent] && gone !== null && gone + now >= view.presence.grace_ms;
  $("claim-win").hidden = !claimable;
  $("claim-draw").hidden = !claimable;
}

function describeTurn(v) {
  if (v.result) return v.result;
  if (v.status === "open") return "Waiting for your opponent: send them the link.";
  if (!v.you) return `${sideName(v.turn)} to move. You are watching.`;
  if (v.you === v.turn) return `Your move: pick a piece of yours (${sideName(v.you)}).`;
  if (computer) return "The computer is thinking…";
  return `${sideName(v.turn)} to move.`;
}

function show(v) {
  const first = !view || view.code !== v.code;
  const moved = view && view.moves.length !== v.moves.length;
  // What the status line tells: said again when it changes, not at every clock or presence.
  const situation = [v.status, v.moves.length, v.result, v.turn].join("|");
  const changed = first || situation !== lastSituation;
  lastSituation = situation;
  view = v;
  received = performance.now();
  if (first) {
    const keptTurn = turned[v.code || "computer"];
    board.turn(typeof keptTurn === "boolean" ? keptTurn : v.you === "red");
    select(null);
  }
  if (moved || first) select(null);
  else if (selected) select(selected);
  showTable();
  document.title = `Khet ${v.code}: ${v.players[0] ?? "?"} – ${v.players[1] ?? "?"}`;
  $("title").textContent = computer
    ? `Against the computer · ${setupName(v.setup)} · Khet ${v.edition}`
    : `Game ${v.code} · ${setupName(v.setup)} · Khet ${v.edition}${v.rated ? " · rated" : ""}`;
  board.draw(v);
  placePlayers();
  listMoves($("moves"), v.moves);
  const piecesText = $("pieces-text");
  piecesText.replaceChildren();
  for (const p of v.pieces) {
    const li = document.createElement("li");
    li.textContent = p.label;
    piecesText.append(li);
  }
  const last = v.moves.length ? `Last move ${v.moves[v.moves.length - 1]}${v.shot && v.shot.hits.length ? `, which hit ${v.shot.hits.map((h) => h.piece.label).join(" and ")}` : ""}. ` : "";
  $("board-label").textContent = `The board after ${v.moves.length} moves. ${last}${describeTurn(v)}`;
  if (changed) say(`${last}${describeTurn(v)}`);
  $("result").hidden = !v.result;
  $("result").textContent = v.result || "";
  $("share").hidden = v.status !== "open" || !v.you;
  $("link").value = `${location.origin}/play/${v.code}`;
  const playing = v.status === "playing" && !v.result && !!v.you;
  const them = v.you === "silver" ? "red" : "silver";
  $("actions").hidden = !v.you || !!v.result || v.status === "over";
  $("offer-draw").hidden = !playing || v.draw_offer !== null || !!computer;
  $("accept-draw").hidden = !playing || v.draw_offer !== them;
  $("decline-draw").hidden = !playing || v.draw_offer !== them;
  $("claim-repetition").hidden = !playing || !v.repetition || v.turn !== v.you;
  $("takeback").hidden = !playing || v.rated || v.takeback !== null || v.moves.length === 0;
  $("accept-takeback").hidden = !playing || v.takeback !== them;
  $("decline-takeback").hidden = !playing || v.takeback !== them;
  $("resign").hidden = !playing;
  $("hint").hidden = !playing || !computer;
  $("new-game").hidden = !computer;
  if (computer) $("actions").hidden = false;
  if (v.draw_offer === them && playing) say(`${sideName(them)} offers a draw.`);
  if (v.takeback === them && playing) say(`${sideName(them)} asks to take back their last move.`);
}

window.addEventListener("popstate", () => {
  if (computer || location.pathname === "/play/computer") {
    // Between the computer's table and the rest: the page starts again where it now is.
    location.reload();
    return;
  }
  const part = decodeURIComponent(location.pathname.split("/")[2] || "");
  code = isCode(part) ? part : null;
  view = null;
  if (welcomed) {
    send({ type: "leave" });
    afterWelcome();
  }
});

setInterval(tick, 250);
loadSetups();
const kept = keptGame();
$("computer-resume").hidden = !kept;
if (location.pathname === "/play/computer" && kept) {
  startComputer(kept);
} else {
  if (location.pathname === "/play/computer") history.replaceState(null, "", "/play");
  if (code) showTable(); else showHome();
  connect();
}

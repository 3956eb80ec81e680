// The play page drawn from its controller (play-ctrl.js): which screen shows, the header, the
// lobby's lists, the invitation, the table (board, players' bars, status, buttons, moves).
// `render` draws it all again from the controller's state; what costs (the board, the lists)
// is drawn again only when what it shows has changed, and a field being typed in is left alone.

import { Board } from "./board.js";
import { daysText, paceText, timeLeftText } from "./clock.js";
import { ratingText } from "./play-ctrl.js";
import { drawBar, lastMoveText, listMoves, sideName, windowTitle } from "./table.js";

/** @typedef {import("./play-ctrl.js").PlayCtrl} PlayCtrl */
/** @typedef {import("./protocol.js").BoardView} BoardView */
/** @typedef {import("./protocol.js").ChallengeInfo} ChallengeInfo */
/** @typedef {import("./protocol.js").MyGame} MyGame */

/** The element `id` (the page has it). @param {string} id @returns {any} */
export const $ = (id) => /** @type {any} */ (document.getElementById(id));

/** Sets a node's text when it differs (a live region speaks each change). @param {Element} node @param {string} text */
function setText(node, text) {
  if (node.textContent !== text) node.textContent = text;
}

/** @param {HTMLElement} node @param {boolean} shown */
function show(node, shown) {
  if (node.hidden === shown) node.hidden = !shown;
}

/**
 * When each button beside the board shows, from the view `v` and whether the viewer plays it now
 * (`playing`), against the computer (`computer`), may claim the game of an opponent gone
 * past the grace period (`claimable`, a live game), or of an opponent whose days to move ran out
 * (`timeUp`, a correspondence game).
 * @type {Record<string, (f: {v: BoardView, playing: boolean, them: string, computer: boolean,
 *   claimable: boolean, timeUp: boolean}) => boolean>}
 */
const BUTTONS = {
  "offer-draw": (f) => f.playing && f.v.draw_offer === null && !f.computer,
  "accept-draw": (f) => f.playing && f.v.draw_offer === f.them,
  "decline-draw": (f) => f.playing && f.v.draw_offer === f.them,
  "claim-repetition": (f) => f.playing && f.v.repetition && f.v.turn === f.v.you,
  takeback: (f) => f.playing && !f.v.rated && f.v.takeback === null && f.v.moves.length > 0,
  "accept-takeback": (f) => f.playing && f.v.takeback === f.them,
  "decline-takeback": (f) => f.playing && f.v.takeback === f.them,
  "claim-win": (f) => f.claimable,
  "claim-draw": (f) => f.claimable,
  "claim-time": (f) => f.timeUp,
  "claim-time-draw": (f) => f.timeUp,
  resign: (f) => f.playing,
  hint: (f) => f.playing && f.computer,
  "new-game": (f) => f.computer,
};

/** Whether this browser has WebGL2, which the 3D game draws with. */
function hasWebGL2() {
  try {
    return !!document.createElement("canvas").getContext("webgl2");
  } catch (_) {
    return false;
  }
}

/** The time the side to move has left of their days, `elapsed` ms after the view came
 * (counted from what the server said was left, not from this device's clock, which may be
 * wrong), or null (a live game, not started, or over). @param {BoardView} v
 * @param {number} elapsed */
function timeLeft(v, elapsed) {
  return typeof v.left_ms === "number" ? v.left_ms - elapsed : null;
}

/** A correspondence game's days at the table: whose move and the time they have left (`Your
 * move: 2 days 3 hours left`), its pace before it starts, or null (a live game, or over).
 * @param {BoardView} v @param {number} elapsed */
function daysLeft(v, elapsed) {
  if (!v.days_per_move || v.status === "over" || v.result) return null;
  const left = timeLeft(v, elapsed);
  if (left === null) return daysText(v.days_per_move);
  const who = v.you === v.turn ? "Your move" : `${sideName(v.turn)} to move`;
  return `${who}: ${timeLeftText(left)}`;
}

/** A button with `data-` attributes, which the page's handlers find by.
 * @param {string} text @param {Record<string, string>} data @param {string} [title] */
function button(text, data, title) {
  const b = document.createElement("button");
  b.type = "button";
  b.textContent = text;
  if (title) b.title = title;
  Object.assign(b.dataset, data);
  return b;
}

export class PlayView {
  /** @param {PlayCtrl} ctrl */
  constructor(ctrl) {
    this.ctrl = ctrl;
    this.board = new Board($("board"));
    // What was last drawn, to draw again only what changed.
    /** @type {BoardView | null} */
    this.drawn = null;
    /** @type {unknown} */
    this.lobbyDrawn = null;
    /** @type {unknown} */
    this.leadersDrawn = null;
    /** @type {unknown} */
    this.challengesDrawn = null;
    /** "Your games" as last drawn (JSON: the list asked for again each minute is drawn again
     * only when it changed, so that a link with the focus keeps it). */
    this.myGamesDrawn = "";
    this.offerDrawn = false;
    this.nameDrawn = /** @type {string | null} */ (null);
    /** Whether the browser has WebGL2: asked once, when the server offers the 3D game.
     * @type {boolean | null} */
    this.webgl2 = null;
  }

  render() {
    const c = this.ctrl;
    const screen = c.screen;
    show($("home"), screen === "home");
    show($("table"), screen !== "home");
    show($("invite"), screen === "invite");
    // The name: in the lobby, and for a friend who opened a game's link, to play it.
    const open = !!c.view && c.view.status === "open";
    show($("you"), screen === "home" || (screen === "invite" && (open || !c.view)));
    show($("table-side"), screen === "table");
    show($("controls"), screen === "table");
    setText($("connection"), c.connection);
    setText($("problem"), c.problem || "");
    show($("problem"), !!c.problem);
    document.body.dataset.thinking = c.thinking ? "yes" : "no";
    this.render3d();
    this.renderName();
    this.renderChallenges();
    if (screen === "home") this.renderHome();
    else this.renderTable();
    if (screen === "invite") this.renderInvite();
  }

  /** The 3D game offered where the server has it and the browser can draw it: in the header,
   * and at an online game, that game in 3D (the same player there: the pages share this
   * browser's identity and seats). */
  render3d() {
    const c = this.ctrl;
    if (this.webgl2 === null && c.offer && c.offer.game_3d) this.webgl2 = hasWebGL2();
    const offered = !!this.webgl2;
    const online = !c.computer && c.code ? `/3d/${c.code}` : "/3d/";
    show($("nav-3d"), offered);
    if ($("link-3d").getAttribute("href") !== online) $("link-3d").setAttribute("href", online);
    show($("in-3d"), offered && online !== "/3d/");
    if ($("in-3d-link").getAttribute("href") !== online) $("in-3d-link").setAttribute("href", online);
  }

  renderName() {
    const c = this.ctrl;
    // The field keeps what is being typed; it shows the name when the name changes.
    if (this.nameDrawn !== c.store.name) {
      $("name").value = c.store.name;
      this.nameDrawn = c.store.name;
    }
    setText($("name-button"), c.screen === "invite" ? "Play" : "Save");
    setText($("rating"), c.player ? `Rating ${ratingText(c.player)}` : "");
    if (c.wantName) {
      c.wantName = false;
      $("name").focus();
    }
  }

  renderHome() {
    const c = this.ctrl;
    document.title = "Khet: play";
    setText($("title"), "Khet");
    if (c.offer && !this.offerDrawn) {
      this.offerDrawn = true;
      for (const select of [$("setup"), $("computer-setup")]) {
        for (const s of c.offer.setups) {
          const option = document.createElement("option");
          option.value = s.id;
          // Khet 1.0's setups name their edition already.
          option.textContent = s.name.includes("Khet") ? s.name : `${s.name} (Khet ${s.edition})`;
          select.append(option);
        }
      }
      // The engine's levels with their measured ratings, the last one played chosen.
      const last = c.kept ? c.kept.level : "casual";
      for (const l of c.offer.levels || []) {
        const option = document.createElement("option");
        option.value = l.id;
        option.textContent = `${l.name} · ${l.rating}`;
        option.selected = l.id === last;
        $("level").append(option);
      }
    }
    show($("computer-form"), !!c.offer && c.offer.computer);
    show($("computer-missing"), !!c.offer && !c.offer.computer);
    show($("computer-resume"), !!c.kept);
    if (this.lobbyDrawn !== c.lobby) this.renderLobby();
    if (this.leadersDrawn !== c.leaderboard) this.renderLeaderboard();
    this.renderMyGames();
    // The days left count down between the lists.
    for (const span of $("my-games").querySelectorAll("[data-until]")) {
      setText(span, timeLeftText(Number(span.dataset.until) - performance.now()));
    }
  }

  /** "Your games": the player's games not over, as the server lists them (those where it is
   * their move first); none, no section. */
  renderMyGames() {
    const games = this.ctrl.myGames;
    const json = JSON.stringify(games);
    if (this.myGamesDrawn === json) return;
    this.myGamesDrawn = json;
    $("my-games").replaceChildren(...games.map((g) => this.myGameRow(g)));
    show($("mine-section"), games.length > 0);
  }

  /** One of the player's games: `Your move · against Bea (1500) · Classic · 3 days a move ·
   * rated · 2 days 3 hours left`, opened by its link where this browser holds its seat (a game
   * played from another browser has none here). @param {MyGame} g */
  myGameRow(g) {
    const c = this.ctrl;
    const seated = !!c.store.seats[g.code];
    const li = document.createElement("li");
    li.className = g.your_turn ? "my-game your-turn" : "my-game";
    li.dataset.code = g.code;
    if (g.your_turn) {
      const mark = document.createElement("strong");
      mark.className = "your-move";
      mark.textContent = "Your move";
      li.append(mark, " · ");
    }
    const who = g.opponent
      ? `against ${g.opponent.name} (${ratingText(g.opponent)})` : "waiting for an opponent";
    if (seated) {
      const a = document.createElement("a");
      a.href = `/play/${encodeURIComponent(g.code)}`;
      a.dataset.open = g.code;
      a.textContent = who;
      li.append(a);
    } else {
      li.append(who);
    }
    const facts = [c.setupName(g.setup), paceText(g.clock, g.days_per_move, "no clock"),
      g.rated ? "rated" : "casual"];
    if (g.tournament) facts.push("a tournament's game");
    if (!g.your_turn && g.status === "playing") facts.push("their move");
    li.append(` · ${facts.join(" · ")}`);
    if (g.your_turn && g.days_per_move && typeof g.left_ms === "number") {
      // Counted from what the server said was left when the list came.
      const until = c.myGamesAt + g.left_ms;
      const left = document.createElement("span");
      left.className = "time-left";
      left.dataset.until = String(until);
      left.textContent = timeLeftText(until - performance.now());
      li.append(" · ", left);
    }
    if (!seated) {
      const elsewhere = document.createElement("span");
      elsewhere.className = "elsewhere muted";
      elsewhere.textContent = " (played from another browser)";
      li.append(elsewhere);
    }
    return li;
  }

  renderLobby() {
    const games = this.ctrl.lobby;
    this.lobbyDrawn = games;
    const body = $("lobby").querySelector("tbody");
    body.replaceChildren();
    for (const g of games) {
      const row = document.createElement("tr");
      for (const text of [`${g.creator.name} (${Math.round(g.creator.rating)})`, g.setup,
        paceText(g.clock, g.days_per_move), g.rated ? "rated" : "casual"]) {
        const td = document.createElement("td");
        td.textContent = text;
        row.append(td);
      }
      const td = document.createElement("td");
      const join = document.createElement("button");
      join.type = "button";
      join.textContent = "Join";
      join.dataset.join = g.code;
      td.append(join);
      row.append(td);
      body.append(row);
    }
    show($("lobby"), games.length > 0);
    show($("lobby-empty"), games.length === 0);
  }

  renderLeaderboard() {
    const players = this.ctrl.leaderboard;
    const me = this.ctrl.player;
    this.leadersDrawn = players;
    const list = $("best");
    list.replaceChildren();
    for (const p of players.slice(0, 20)) {
      const li = document.createElement("li");
      const page = document.createElement("a");
      page.href = `/players/${p.id}`;
      page.textContent = p.name;
      li.append(page, `: ${ratingText(p)} (${p.games} games) `);
      if (!me || p.id !== me.id) {
        li.append(button("Challenge", { challenge: p.id },
          `Challenge ${p.name} to a game of the settings of "Play a friend"`));
      }
      list.append(li);
    }
    show($("best-empty"), players.length === 0);
  }

  /** The player's challenges waiting, with their buttons, and what became of the last one. */
  renderChallenges() {
    const c = this.ctrl;
    setText($("challenge-news"), c.news);
    show($("challenges"), c.screen !== "invite" && (c.challenges.length > 0 || !!c.news));
    if (this.challengesDrawn === c.challenges) return;
    this.challengesDrawn = c.challenges;
    const list = $("challenge-list");
    list.replaceChildren();
    for (const challenge of c.challenges) {
      const mine = !!c.player && challenge.from.id === c.player.id;
      const li = document.createElement("li");
      li.textContent = `${this.challengeText(challenge, mine)} `;
      const id = challenge.id;
      if (mine) {
        li.append(button("Withdraw", { answer: "withdraw_challenge", id }));
      } else {
        li.append(button("Accept", { answer: "accept_challenge", id }), " ",
          button("Decline", { answer: "decline_challenge", id }));
      }
      list.append(li);
    }
  }

  /** A challenge in words, as its player `mine` (the challenger) or the other sees it.
   * @param {ChallengeInfo} ch @param {boolean} mine */
  challengeText(ch, mine) {
    const game = `${this.ctrl.setupName(ch.setup)}, ${paceText(ch.clock, ch.days_per_move, "no clock")}, ` +
      `${ch.rated ? "rated" : "casual"}`;
    const theirs = ch.color === "random" ? null : ch.color;
    if (mine) {
      const what = ch.rematch_of ? "a rematch" : `${game}, you play ${theirs ? sideName(theirs) : "a side drawn"}`;
      return `You challenge ${ch.to.name} (${ratingText(ch.to)}): ${what}.`;
    }
    const yours = theirs === "silver" ? "red" : theirs === "red" ? "silver" : null;
    const what = ch.rematch_of ? `a rematch of ${ch.rematch_of}` : game;
    return `${ch.from.name} (${ratingText(ch.from)}) challenges you: ${what}, you play ` +
      `${yours ? sideName(yours) : "a side drawn"}.`;
  }

  /** Whose game it is, for a friend who opened its link. */
  renderInvite() {
    const v = this.ctrl.view;
    let text = "Opening the game…";
    if (v && v.status === "open") {
      const i = v.players[0] !== null ? 0 : 1;
      const free = i === 0 ? "red" : "silver";
      text = `${v.players[i]} invites you to a game of Khet: give your name to play ${sideName(free)}.`;
    } else if (v && v.status === "playing") {
      text = `${v.players[0]} and ${v.players[1]} are playing this game: you are watching.`;
    } else if (v) {
      text = `This game is over. ${v.result || ""}`.trim();
    }
    setText($("invite-text"), text);
  }

  renderTable() {
    const c = this.ctrl;
    const v = c.view;
    const board = this.board;
    if (board.turned !== c.turned) board.turn(c.turned);
    if (!v) {
      setText($("status"), c.status || "Connecting…");
      return;
    }
    if (this.drawn !== v) {
      this.drawn = v;
      this.drawGame(v);
    }
    setText($("status"), c.status);
    // The piece picked up, where it may go, a hint, the beam a move would shoot.
    const moves = c.movesFrom(c.selected);
    /** @type {[string, string][]} */
    let marks = [];
    if (c.selected) marks.push([c.selected, "selected"]);
    for (const m of moves) if (m.to) marks.push([m.to, "target"]);
    if (c.hint) marks = c.hint;
    board.mark(marks);
    board.showPreview(c.preview);
    board.showCursor(c.focused ? c.cursor : null);
    for (const button of document.querySelectorAll("[data-rotate]")) {
      /** @type {HTMLButtonElement} */ (button).disabled =
        !moves.some((m) => m.rotate === /** @type {HTMLElement} */ (button).dataset.rotate);
    }
    this.renderBars(v);
  }

  /** What changes only with the view: the board, the title, the moves, the result.
   * @param {BoardView} v */
  drawGame(v) {
    const c = this.ctrl;
    this.board.draw(v);
    document.title = windowTitle(v);
    setText($("title"), c.computer
      ? `Against the computer · ${c.setupName(v.setup)} · Khet ${v.edition}`
      : `Game ${v.code} · ${c.setupName(v.setup)} · Khet ${v.edition}${v.rated ? " · rated" : ""}` +
        `${v.days_per_move ? ` · ${daysText(v.days_per_move)}` : ""}`);
    listMoves($("moves"), v.moves);
    const piecesText = $("pieces-text");
    piecesText.replaceChildren();
    for (const p of v.pieces) {
      const li = document.createElement("li");
      li.textContent = p.label;
      piecesText.append(li);
    }
    setText($("board-label"),
      `The board after ${v.moves.length} moves. ${lastMoveText(v)}${c.describeTurn(v)}`);
    show($("result"), !!v.result);
    setText($("result"), v.result || "");
    show($("share"), v.status === "open" && !!v.you);
    $("link").value = `${location.origin}/play/${v.code}`;
  }

  /** The players' bars (the viewer's side at the bottom, as the board faces), their clocks
   * counted down, and the buttons, some of which wait on those clocks. @param {BoardView} v */
  renderBars(v) {
    const c = this.ctrl;
    const elapsed = performance.now() - c.received;
    const bottom = c.turned ? "red" : "silver";
    const top = c.turned ? "silver" : "red";
    const presence = !c.computer;
    drawBar($("player-bottom"), v, bottom, elapsed, { presence });
    drawBar($("player-top"), v, top, elapsed, { presence });
    const them = v.you === "silver" ? "red" : "silver";
    const playing = c.playing(v);
    // The opponent gone long enough: a live game may be claimed (being away is how a
    // correspondence game is played: only its days running out let it be claimed).
    const gone = v.presence.gone_ms[them === "silver" ? 0 : 1];
    const claimable = !c.computer && playing && !v.days_per_move &&
      !v.presence.connected[them === "silver" ? 0 : 1] && gone !== null &&
      gone + elapsed >= v.presence.grace_ms;
    const left = timeLeft(v, elapsed);
    const timeUp = !c.computer && playing && !!v.days_per_move && v.turn === them &&
      left !== null && left <= 0;
    const facts = { v, playing, them, computer: !!c.computer, claimable, timeUp };
    this.renderDays(v, elapsed);
    for (const [id, shown] of Object.entries(BUTTONS)) show($(id), shown(facts));
    // After a game, a rematch: asked for, or the opponent's accepted, in one click.
    show($("rematch-bar"), !c.computer && !!v.you && v.status === "over");
    const rematch = c.rematchState();
    setText($("rematch"), rematch === "asked" ? "Rematch asked…"
      : rematch === "offered" ? "Accept the rematch" : "Rematch");
    $("rematch").disabled = rematch === "asked";
    show($("actions"), !!c.computer || (!!v.you && !v.result && v.status !== "over"));
  }

  /** A correspondence game's days instead of the clocks: whose move and the time left, counted
   * down from what the server said was left, marked once none is (daysLeft).
   * @param {BoardView} v @param {number} elapsed */
  renderDays(v, elapsed) {
    const days = daysLeft(v, elapsed);
    const node = $("days-left");
    show(node, days !== null);
    setText(node, days || "");
    const left = timeLeft(v, elapsed);
    node.classList.toggle("out-of-time", !!days && left !== null && left <= 0);
  }
}

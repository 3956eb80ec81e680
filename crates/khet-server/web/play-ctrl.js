// The play page's controller: everything the page knows (what it keeps in the browser, the
// connection, the game shown, the piece picked up, what the status line says) and everything a
// player may do. It never touches the page: after each change it asks for a redraw, and
// play-view.js draws the page from it. The server works out the game (its views carry the
// legal moves): this knows no rules.

import { parsePace } from "./clock.js";
import { ComputerGame, forget, keptGame } from "./computer.js";
import { VERSION, isCode } from "./protocol.js";
import { Socket } from "./socket.js";
import { Store } from "./store.js";
import { lastMoveText, sideName } from "./table.js";

/** @typedef {import("./protocol.js").BoardView} BoardView */
/** @typedef {import("./protocol.js").ClientMsg} ClientMsg */
/** @typedef {import("./protocol.js").ServerMsg} ServerMsg */
/** @typedef {import("./protocol.js").WatchFrame} WatchFrame */
/** @typedef {import("./protocol.js").LegalMove} LegalMove */
/** @typedef {import("./protocol.js").NewGame} NewGame */
/** @typedef {import("./protocol.js").OpenGame} OpenGame */
/** @typedef {import("./protocol.js").PlayerInfo} PlayerInfo */
/** @typedef {import("./protocol.js").Offer} Offer */
/** @typedef {import("./protocol.js").ShotView} ShotView */
/** @typedef {import("./protocol.js").ChallengeInfo} ChallengeInfo */
/** @typedef {import("./protocol.js").MyGame} MyGame */

/**
 * What the page shows: the lobby (`home`), a friend's invitation to a game they have no name
 * for yet (`invite`: whose game, the board, a field for a name), or a game (`table`).
 * @typedef {"home" | "invite" | "table"} Screen
 */

/** The game named by the address (`/play/CODE`), if any. */
function codeInAddress() {
  const part = decodeURIComponent(location.pathname.split("/")[2] || "").toLowerCase();
  return isCode(part) ? part : null;
}

/** The player the address asks to challenge (`#challenge=ID&name=NAME`, as a player's page
 * links here), if any: their id, and their name as the page named them (only ever shown as
 * text). @returns {{id: string, name: string} | null} */
function challengeInAddress() {
  const params = new URLSearchParams(location.hash.slice(1));
  const id = params.get("challenge") || "";
  if (!isCode(id)) return null;
  return { id, name: (params.get("name") || "").trim() || "this player" };
}

/** `Rating 1500?`. @param {PlayerInfo} p */
export const ratingText = (p) => `${Math.round(p.rating)}${p.deviation > 110 ? "?" : ""}`;

/** The buttons beside the board: what each sends to the server, or does in a game against the
 * computer. @type {Record<string, {msg: ClientMsg, local?: (game: ComputerGame) => Promise<unknown>}>} */
const ACTIONS = {
  "offer-draw": { msg: { type: "offer_draw" } },
  "accept-draw": { msg: { type: "accept_draw" } },
  "decline-draw": { msg: { type: "decline_draw" } },
  "claim-repetition": { msg: { type: "claim_repetition" }, local: (g) => g.claimDraw() },
  takeback: { msg: { type: "request_takeback" }, local: (g) => g.takeBack() },
  "accept-takeback": { msg: { type: "accept_takeback" } },
  "decline-takeback": { msg: { type: "decline_takeback" } },
  "claim-win": { msg: { type: "claim_abandoned", draw: false } },
  "claim-draw": { msg: { type: "claim_abandoned", draw: true } },
  // A correspondence game's opponent whose days ran out: the same claim, which the server judges
  // by the days instead of the presence.
  "claim-time": { msg: { type: "claim_abandoned", draw: false } },
  "claim-time-draw": { msg: { type: "claim_abandoned", draw: true } },
  resign: { msg: { type: "resign" }, local: (g) => g.resign() },
};

export class PlayCtrl {
  /** @param {() => void} redraw draws the page from this controller */
  constructor(redraw) {
    this.redraw = redraw;
    /** The alert above everything, if any. @type {string | null} */
    this.problem = null;
    this.store = new Store(() => {
      this.problem = "This browser does not keep data for this page: a reload will not find your seat.";
    });
    /** @type {Screen} */
    this.screen = "home";
    /** The game this page is about: from the address, or the one just created or joined.
     * @type {string | null} */
    this.code = codeInAddress();
    /** The game shown, and when it came (`performance.now()`). @type {BoardView | null} */
    this.view = null;
    this.received = 0;
    /** The game against the computer, when that is what the table shows (`/play/computer`).
     * @type {ComputerGame | null} */
    this.computer = null;
    this.thinking = false;
    this.kept = keptGame();
    this.welcomed = false;
    /** Whether `problem` is the server's refusal of the hello (a welcome clears it). */
    this.refusedHello = false;
    /** The connection's state in words (empty when all is well). */
    this.connection = "";
    /** The status line beside the board. */
    this.status = "";
    /** The player's rating, once welcomed. @type {PlayerInfo | null} */
    this.player = null;
    /** @type {OpenGame[]} */
    this.lobby = [];
    /** @type {PlayerInfo[]} */
    this.leaderboard = [];
    /** The player's games not over, as the server last listed them (`my_games`), those where it
     * is their move first. @type {MyGame[]} */
    this.myGames = [];
    /** When the list came (`performance.now()`): its times left count down from then. */
    this.myGamesAt = 0;
    /** The player's challenges waiting for an answer, made and received. @type {ChallengeInfo[]} */
    this.challenges = [];
    /** What became of a challenge, or a refusal in the lobby, in words. */
    this.news = "";
    /** The player the address asks to challenge, until the challenge is sent.
     * @type {{id: string, name: string} | null} */
    this.wanted = challengeInAddress();
    /** What the server offers (its setups, the computer), once read. @type {Offer | null} */
    this.offer = null;
    /** The board seen from Red's side. */
    this.turned = false;
    /** The square of the piece picked up. @type {string | null} */
    this.selected = null;
    /** The square the keyboard's cursor is on, and whether the board has the focus. */
    this.cursor = "e1";
    this.focused = false;
    /** A hint's squares, shown until the next pick. @type {[string, string][] | null} */
    this.hint = null;
    /** The move whose beam is shown, and the beam. @type {string | null} */
    this.previewing = null;
    /** @type {ShotView | null} */
    this.preview = null;
    /** Ask the view to put the focus in the name field. */
    this.wantName = false;
    this.lastSituation = "";
    /** @type {Socket<ServerMsg>} */
    this.socket = new Socket({
      path: "/ws",
      ping: JSON.stringify({ type: "ping" }),
      onOpen: () => this.socket.send(/** @type {ClientMsg} */ ({
        type: "hello", version: VERSION, identity: this.store.identity, name: this.store.name,
        views: true,
      })),
      onMessage: (msg) => {
        this.receive(msg);
        this.redraw();
      },
      onState: (state) => {
        if (state !== "open") this.welcomed = false;
        if (state === "connecting") this.connection = "Connecting…";
        if (state === "lost") this.connection = "Connection lost; reconnecting…";
        this.redraw();
      },
    });
    /** The invitation's game, followed as a spectator until the friend gives a name.
     * @type {Socket<WatchFrame> | null} */
    this.watcher = null;
  }

  /** The page opens: at the game against the computer, a game, or the lobby. */
  start() {
    this.loadOffer();
    if (location.pathname === "/play/computer" && this.kept) {
      this.startComputer(this.kept);
      return;
    }
    if (location.pathname === "/play/computer") history.replaceState(null, "", "/play");
    this.screen = this.code ? "table" : "home";
    this.connect();
  }

  // ---- The connection -------------------------------------------------------------------

  /** Says hello under the name kept, or asks for one. */
  connect() {
    if (this.computer) return;
    if (!this.store.name) {
      if (this.code) {
        this.invite(this.code);
      } else {
        this.screen = "home";
        this.connection = "Give your name to play.";
        this.wantName = true;
      }
      this.redraw();
      return;
    }
    this.stopWatching();
    this.socket.open();
  }

  /** Sends `msg` to the server, or says that it cannot. @param {ClientMsg} msg */
  send(msg) {
    if (this.welcomed && this.socket.send(msg)) return true;
    this.say("Not connected: reconnecting…");
    return false;
  }

  /** @param {ServerMsg} msg */
  receive(msg) {
    switch (msg.type) {
      case "welcome":
        this.welcomed = true;
        this.socket.settled();
        this.connection = "";
        // What the connection refused is past; what the page said of anything else stays.
        if (this.refusedHello) this.problem = null;
        this.refusedHello = false;
        this.player = msg.player;
        // Told of the player's challenges wherever the page is.
        this.send({ type: "challenges" });
        this.afterWelcome();
        break;
      case "seat":
        this.store.setSeat(msg.code, msg.secret, msg.color);
        if (this.view && this.playing(this.view) && this.view.code !== msg.code) {
          // An accepted challenge's seat while this game is played: kept for later.
          this.news = `Your challenge was accepted: game ${msg.code} waits for you under "Your games".`;
          this.refreshMyGames();
          break;
        }
        this.code = msg.code;
        history.replaceState(null, "", `/play/${msg.code}`);
        this.screen = "table";
        break;
      case "view":
        this.show(msg.view);
        break;
      case "lobby":
        this.lobby = msg.games;
        break;
      case "leaderboard":
        this.leaderboard = msg.players;
        break;
      case "my_games":
        this.myGames = msg.games;
        this.myGamesAt = performance.now();
        break;
      case "challenges":
        this.challenges = msg.challenges;
        break;
      case "challenge":
        this.challenged(msg.challenge);
        break;
      case "refused":
        if (!this.welcomed) {
          this.problem = msg.reason;
          this.refusedHello = true;
          if (msg.code !== "rate_limited") this.socket.stop();
        } else {
          this.refused(msg);
        }
        break;
      default:
        break;
    }
  }

  /** Welcomed: the game of the address (its seat taken again, or joined), or the lobby. */
  afterWelcome() {
    if (this.code) {
      const seat = this.store.seats[this.code];
      if (seat) this.send({ type: "play", code: this.code, secret: seat.secret });
      else this.send({ type: "join", code: this.code });
      this.screen = "table";
    } else {
      this.send({ type: "lobby" });
      this.send({ type: "leaderboard" });
      this.refreshMyGames();
      this.screen = "home";
      this.offerWanted();
    }
  }

  /** At the lobby, the player the address asks to challenge: how to (the Challenge button
   * beside Create, with the game of "Play a friend"); none for the player themselves. */
  offerWanted() {
    const wanted = this.wanted;
    if (!wanted) return;
    if (this.player && this.player.id === wanted.id) {
      this.dropWanted();
      return;
    }
    this.news = `Choose the game in "Play a friend" below, then press Challenge to challenge ${wanted.name}.`;
  }

  /** The address's challenge is done with: forgotten, and gone from the address. */
  dropWanted() {
    this.wanted = null;
    history.replaceState(history.state, "", location.pathname + location.search);
  }

  /** Asks for the player's games again ("Your games"), when connected: quietly, for it is asked
   * for unbidden (at the lobby, after a game, every minute there). */
  refreshMyGames() {
    if (this.welcomed && !this.computer) this.socket.send(/** @type {ClientMsg} */ ({ type: "my_games" }));
  }

  /** What a refusal means here, and what to do next.
   * @param {import("./protocol.js").Refused} msg */
  refused(msg) {
    const code = this.code;
    if (msg.code === "seat_taken" && code && !this.store.seats[code]) {
      // Both seats are someone else's: watch instead.
      this.send({ type: "watch", code });
      this.say("Both seats are taken: you are watching.");
      return;
    }
    if (msg.code === "not_your_seat" && code) this.store.forgetSeat(code);
    if (msg.code === "bad_name") {
      this.store.forgetName();
      this.socket.stop();
      this.screen = "home";
    }
    if (["unknown_game", "not_your_seat"].includes(msg.code) && !this.view) {
      this.backToLobby(`${msg.reason}. Back to the lobby.`);
      this.afterWelcome();
      return;
    }
    const text = msg.reason.charAt(0).toUpperCase() + msg.reason.slice(1) + ".";
    // The status line is the table's: in the lobby, a refusal shows with the challenges.
    if (this.screen === "home") this.news = text;
    this.say(text);
  }

  /** Leaves the game of the address for the lobby, saying why. @param {string} why */
  backToLobby(why) {
    this.problem = why;
    this.code = null;
    this.view = null;
    this.screen = "home";
    history.replaceState(null, "", "/play");
  }

  // ---- A friend's invitation ------------------------------------------------------------

  /** Shows game `code` to someone with no name yet: its players and its board, followed as a
   * spectator (/watch/CODE/ws), and a field for their name. @param {string} code */
  invite(code) {
    this.screen = "invite";
    this.wantName = true;
    if (this.watcher) return;
    /** @type {Socket<WatchFrame>} */
    const watcher = new Socket({
      path: `/watch/${encodeURIComponent(code)}/ws`,
      ping: "ping",
      onMessage: (frame) => {
        if ("type" in frame) {
          watcher.stop();
          this.watcher = null;
          this.backToLobby(`${frame.reason}. Back to the lobby.`);
          this.connection = "Give your name to play.";
        } else {
          watcher.settled();
          if (!this.view) this.turned = frame.players[0] !== null && frame.players[1] === null;
          this.view = frame;
          this.received = performance.now();
          this.connection = "";
        }
        this.redraw();
      },
      onState: (state) => {
        if (state === "lost") this.connection = "Connection lost; reconnecting…";
        this.redraw();
      },
    });
    this.watcher = watcher;
    watcher.open();
  }

  stopWatching() {
    if (!this.watcher) return;
    this.watcher.stop();
    this.watcher = null;
    this.view = null;
  }

  // ---- The lobby ------------------------------------------------------------------------

  async loadOffer() {
    try {
      const answer = await fetch("/setups");
      if (!answer.ok) throw new Error(answer.statusText);
      this.offer = /** @type {Offer} */ (await answer.json());
    } catch (e) {
      this.problem = `The server did not list its setups (${errorText(e)}); reload to try again.`;
    }
    this.redraw();
  }

  /** A setup's name for people, by the name games give (`khet2/classic`: `Classic`).
   * @param {string} id */
  setupName(id) {
    const setups = this.offer ? this.offer.setups : [];
    const found = setups.find((s) => s.id === id) || setups.find((s) => s.id === `khet2/${id}`);
    return found ? found.name : id;
  }

  /** The name to play under: the lobby's Save, or the invitation's Play. @param {string} wanted */
  setName(wanted) {
    const name = wanted.trim();
    if (!name) return;
    this.store.setName(name);
    if (this.screen === "invite") this.screen = "table";
    this.stopWatching();
    // Hello (again) under the new name.
    this.socket.open();
    this.redraw();
  }

  /** @param {NewGame} game */
  create(game) {
    if (!this.store.name) {
      this.wantName = true;
      this.say("Give your name first.");
      this.redraw();
      return;
    }
    this.send({ type: "create", ...game });
  }

  /** Quick pairing, for a live game (the form's clock, `pace` as parsePace reads it).
   * @param {string} pace @param {boolean} rated */
  seek(pace, rated) {
    const { clock, days_per_move: days } = parsePace(pace);
    if (days) {
      this.news = "Quick pairing is for live games: choose a clock, or create a game of days a " +
        "move listed in the lobby for anyone.";
      this.redraw();
      return;
    }
    this.send({ type: "seek", clock, rated });
  }

  /** Joins by a code or a pasted link. @param {string} text */
  joinText(text) {
    const code = text.trim().toLowerCase().split("/").pop() || "";
    if (!isCode(code)) {
      this.problem = `"${code}" is not a game's code: eight letters and digits, as the link ends.`;
      this.redraw();
      return;
    }
    this.open(code);
  }

  /** Goes to game `code`: takes the seat kept for it, or joins it. @param {string} code */
  open(code) {
    this.code = code;
    this.view = null;
    history.pushState(null, "", `/play/${code}`);
    this.afterWelcome();
    this.redraw();
  }

  /** The browser's back or forward button. */
  addressChanged() {
    if (this.computer || location.pathname === "/play/computer") {
      // Between the computer's table and the rest: the page starts again where it now is.
      location.reload();
      return;
    }
    this.code = codeInAddress();
    this.view = null;
    if (this.welcomed) {
      this.send({ type: "leave" });
      this.afterWelcome();
    }
    this.redraw();
  }

  // ---- Challenges and rematches ---------------------------------------------------------

  /** One of the player's challenges made, received or changed. @param {ChallengeInfo} c */
  challenged(c) {
    this.challenges = this.challenges.filter((x) => x.id !== c.id);
    if (c.status === "pending") this.challenges = [...this.challenges, c];
    const mine = !!this.player && c.from.id === this.player.id;
    const other = mine ? c.to.name : c.from.name;
    if (c.status === "pending" && !mine && c.rematch_of && c.rematch_of === this.code) {
      this.say(`${other} asks for a rematch.`);
    } else if (c.status === "pending") {
      this.news = mine ? `You challenged ${other}.` : `${other} challenges you.`;
    } else if (c.status === "declined" && mine) {
      this.news = `${other} declined your challenge.`;
      if (c.rematch_of) this.say(`${other} declined the rematch.`);
    } else if (c.status === "withdrawn" && !mine) {
      this.news = `${other} withdrew their challenge.`;
    } else {
      this.news = "";
    }
  }

  /** Challenges player `id` to a game of `game`'s settings (never listed); the address's
   * challenge, once sent, leaves the address. Whether it was sent.
   * @param {string} id @param {NewGame} game */
  challenge(id, game) {
    const sent = this.send({ type: "challenge", player: id, game: { ...game, listed: false } });
    if (sent && this.wanted && this.wanted.id === id) this.dropWanted();
    this.redraw();
    return sent;
  }

  /** Accepts, declines or withdraws challenge `id`.
   * @param {string} id @param {"accept_challenge" | "decline_challenge" | "withdraw_challenge"} what */
  answer(id, what) {
    this.send({ type: what, id });
  }

  /** Asks for a rematch of the game shown, or accepts the opponent's. */
  rematch() {
    if (this.code) this.send({ type: "rematch", code: this.code });
  }

  /** The rematch of the game shown: asked by the viewer, offered by the opponent, or none.
   * @returns {"asked" | "offered" | null} */
  rematchState() {
    const asked = this.challenges.find((c) => c.rematch_of === this.code);
    if (!asked) return null;
    return this.player && asked.from.id === this.player.id ? "asked" : "offered";
  }

  // ---- The game against the computer ----------------------------------------------------

  /** @param {{setup: string, level: string, you: string}} settings a new game */
  playComputer({ setup, level, you }) {
    if (you === "random") you = Math.random() < 0.5 ? "silver" : "red";
    history.pushState(null, "", "/play/computer");
    this.startComputer({ setup, level, you, saved: setup });
  }

  /** Sits down to a game against the computer: a new one, or the one kept in this browser.
   * @param {{setup: string, level: string, you: string, saved: string}} settings */
  startComputer(settings) {
    if (this.computer) this.computer.close();
    this.socket.stop();
    this.stopWatching();
    this.view = null;
    this.code = null;
    this.connection = "";
    const computer = new ComputerGame(settings, (/** @type {BoardView} */ v) => this.show(v),
      (/** @type {boolean} */ thinking) => {
        this.thinking = thinking;
        if (thinking) this.say("The computer is thinking…");
        this.select(this.selected);
        this.redraw();
      });
    this.computer = computer;
    this.screen = "table";
    this.say("The engine is loading…");
    this.redraw();
    computer.start().catch((/** @type {unknown} */ e) => {
      // A kept game the engine refuses, or an engine that does not load: back to the lobby.
      forget();
      this.kept = null;
      computer.close();
      this.computer = null;
      this.backToLobby(`The game against the computer could not start: ${errorText(e)}`);
      this.connect();
      this.redraw();
    });
  }

  /** Runs a request to the computer's game; its refusal is said, not thrown.
   * @param {() => Promise<unknown>} what */
  withComputer(what) {
    what().catch((e) => {
      const text = errorText(e);
      this.say(`${text.charAt(0).toUpperCase()}${text.slice(1)}.`);
      this.redraw();
    });
  }

  /** Finds a good move with the page's engine and shows it. */
  askHint() {
    const computer = this.computer;
    if (!computer || computer.busy) return;
    this.say("Looking for a good move…");
    this.withComputer(async () => {
      const hint = await computer.hint();
      this.select(hint.from);
      this.hint = [[hint.from, "selected"]];
      if (hint.to) this.hint.push([hint.to, "hint"]);
      const turn = hint.rotate
        ? ` (turn it ${hint.rotate === "cw" ? "clockwise" : "anticlockwise"})` : "";
      this.say(`Hint: ${hint.text}${turn}.`);
      this.redraw();
    });
  }

  newGame() {
    if (this.computer) this.computer.close();
    this.computer = null;
    location.href = "/play";
  }

  // ---- The table ------------------------------------------------------------------------

  /** A new view of the game (from the server, or the computer's game). @param {BoardView} v */
  show(v) {
    const first = !this.view || this.view.code !== v.code;
    const moved = !!this.view && this.view.moves.length !== v.moves.length;
    // A game that ends leaves the player's list of games.
    if (!first && this.view && this.view.status !== "over" && v.status === "over") this.refreshMyGames();
    // What the status line tells: said again when it changes, not at every clock or presence.
    const situation = [v.status, v.moves.length, v.result, v.turn].join("|");
    const changed = first || situation !== this.lastSituation;
    this.lastSituation = situation;
    this.view = v;
    this.received = performance.now();
    if (first) {
      const kept = this.store.turned[v.code || "computer"];
      this.turned = typeof kept === "boolean" ? kept : v.you === "red";
    }
    this.select(moved || first ? null : this.selected);
    this.screen = "table";
    if (changed) this.say(`${lastMoveText(v)}${this.describeTurn(v)}`);
    const them = v.you === "silver" ? "red" : "silver";
    if (this.playing(v) && v.draw_offer === them) this.say(`${sideName(them)} offers a draw.`);
    if (this.playing(v) && v.takeback === them) {
      this.say(`${sideName(them)} asks to take back their last move.`);
    }
    this.redraw();
  }

  /** Whether the viewer plays game `v` now. @param {BoardView} v */
  playing(v) {
    return v.status === "playing" && !v.result && !!v.you;
  }

  /** @param {BoardView} v */
  describeTurn(v) {
    if (v.result) return v.result;
    if (v.status === "open") return "Waiting for your opponent: send them the link.";
    if (!v.you) return `${sideName(v.turn)} to move. You are watching.`;
    if (v.you === v.turn) return `Your move: pick a piece of yours (${sideName(v.you)}).`;
    if (this.computer) return "The computer is thinking…";
    return `${sideName(v.turn)} to move.`;
  }

  /** @param {string} text */
  say(text) {
    this.status = text;
  }

  /** @param {string | null} sq */
  movesFrom(sq) {
    return this.view ? this.view.legal.filter((m) => m.from === sq) : [];
  }

  /** @param {string} sq */
  pieceAt(sq) {
    return this.view ? this.view.pieces.find((p) => p.sq === sq) : undefined;
  }

  /** Picks up the piece on `sq`, or puts it down (`null`). @param {string | null} sq */
  select(sq) {
    this.selected = sq;
    this.hint = null;
    this.showPreview(null);
  }

  /** Shows where the laser would go after `move` (the page's engine, in a game against the
   * computer), or nothing. @param {LegalMove | null | undefined} move */
  showPreview(move) {
    const mv = move ? move.mv : null;
    if (mv === this.previewing) return;
    this.previewing = mv;
    const computer = this.computer;
    if (!mv || !computer || computer.busy) {
      this.preview = null;
      this.redraw();
      return;
    }
    computer.preview(mv).then((shot) => {
      if (this.previewing === mv) this.preview = shot;
    }).catch(() => {
      this.preview = null;
    }).finally(() => this.redraw());
  }

  /** @param {LegalMove} move */
  play(move) {
    this.select(null);
    const computer = this.computer;
    if (computer) {
      this.say(`You play ${move.mv}.`);
      this.withComputer(() => computer.play(move.mv));
    } else if (this.view && this.send({ type: "move", ply: this.view.moves.length, mv: move.mv })) {
      this.say(`You play ${move.mv}…`);
    }
    this.redraw();
  }

  /** The piece picked up turned, `cw` or `ccw`, if it may. @param {string} way */
  turnPiece(way) {
    const move = this.movesFrom(this.selected).find((m) => m.rotate === way);
    if (move) this.play(move);
  }

  /** Why a square cannot be used now, or null. @param {string} sq */
  whyNot(sq) {
    const v = this.view;
    if (!v) return "The game is not here yet.";
    if (v.status === "open") return "Your opponent has not come yet.";
    if (v.result || v.status === "over") return "The game is over.";
    if (!v.you) return "You are watching this game.";
    if (this.computer && this.computer.busy) return "The computer is thinking.";
    if (v.you !== v.turn) return `It is ${sideName(v.turn)}'s turn.`;
    const piece = this.pieceAt(sq);
    if (!piece) return `${sq} is empty: pick one of your pieces.`;
    if (piece.color !== v.you) {
      return `That is ${sideName(piece.color)}'s ${piece.kind}; you play ${sideName(v.you)}.`;
    }
    if (!this.movesFrom(sq).length) return `Your ${piece.kind} on ${sq} has no move.`;
    return null;
  }

  /** A square chosen (clicked, tapped, dropped on, or Enter on the keyboard). @param {string} sq */
  choose(sq) {
    const selected = this.selected;
    if (selected && sq !== selected) {
      const moves = this.movesFrom(selected).filter((m) => m.to === sq);
      // A stack of Obelisks: the whole stack steps unless the top is asked for.
      if (moves.length) return this.play(moves.find((m) => !m.unstack) || moves[0]);
    }
    if (sq === selected) {
      this.select(null);
      this.say("Put down.");
    } else {
      const why = this.whyNot(sq);
      if (why && selected) {
        const piece = this.pieceAt(selected);
        const what = piece ? `Your ${piece.kind}` : "That piece";
        this.say(`${what} cannot go to ${sq}. ${why.startsWith(sq) ? "" : why}`.trim());
        this.select(null);
      } else if (why) {
        this.say(why);
        this.select(null);
      } else {
        this.select(sq);
        const moves = this.movesFrom(sq);
        const steps = moves.filter((m) => m.to).map((m) => m.to);
        const turns = moves.filter((m) => m.rotate).length;
        const label = this.pieceAt(sq)?.label;
        this.say(`${label}: ${steps.length ? `to ${steps.join(", ")}` : "no steps"}${turns ? "; or turn it" : ""}.`);
      }
    }
    this.redraw();
  }

  /** The keyboard's cursor moved to `sq`. @param {string} sq */
  moveCursor(sq) {
    this.cursor = sq;
    const piece = this.pieceAt(sq);
    this.say(`${sq}: ${piece ? piece.label : "empty"}.`);
    if (this.selected) {
      this.showPreview(this.movesFrom(this.selected).find((m) => m.to === sq && !m.unstack));
    }
    this.redraw();
  }

  /** @param {boolean} focused */
  focusBoard(focused) {
    this.focused = focused;
    this.redraw();
  }

  /** Turns the board around, and remembers it for this game. */
  flip() {
    this.turned = !this.turned;
    if (this.code || this.computer) this.store.setTurned(this.code || "computer", this.turned);
    this.redraw();
  }

  /** One of the buttons beside the board (ACTIONS). @param {string} id */
  act(id) {
    const action = ACTIONS[id];
    const computer = this.computer;
    if (!action) return;
    if (!computer) this.send(action.msg);
    else if (action.local) this.withComputer(() => /** @type {any} */ (action.local)(computer));
    this.redraw();
  }
}

/** @param {unknown} e */
function errorText(e) {
  return e instanceof Error ? e.message : String(e);
}

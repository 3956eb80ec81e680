// A game against the computer, all in the page: the engine (WebAssembly) runs in a Web Worker
// (engine-worker.js), so the page keeps drawing while it thinks, and once the page has loaded
// the game needs no server. The game is kept in localStorage after every move: a reload goes on
// where it stood.

const KEY = "khet.computer";

/** @typedef {import("./protocol.js").BoardView} BoardView */
/** @typedef {import("./protocol.js").ShotView} ShotView */
/**
 * A game against the computer as this browser keeps it: the setup, the level, the player's
 * side and the game so far (its start and moves, as the engine writes them).
 * @typedef {{setup: string, level: string, you: string, saved: string}} Kept
 */
/**
 * A hint: the piece to move, where, or which way to turn it, in words too.
 * @typedef {{from: string, to: string | null, rotate: "cw" | "ccw" | null, text: string}} Hint
 */


/// The engine's worker: requests answered in order, as promises.
class Engine {
  constructor() {
    this.worker = new Worker("/web/engine-worker.js", { type: "module" });
    this.next = 0;
    /** @type {Map<number, {resolve: (value: any) => void, reject: (e: Error) => void}>} */
    this.waiting = new Map();
    this.worker.onmessage = (event) => {
      const { id, ok, error } = event.data;
      const pending = this.waiting.get(id);
      if (!pending) return;
      this.waiting.delete(id);
      if (error !== undefined) pending.reject(new Error(error));
      else pending.resolve(ok);
    };
    this.worker.onerror = (event) => {
      for (const pending of this.waiting.values()) {
        pending.reject(new Error(event.message || "the engine did not load"));
      }
      this.waiting.clear();
    };
  }

  /** Asks the engine's worker; its answer, or its refusal as an error.
   * @param {string} op @param {...unknown} args @returns {Promise<any>} */
  ask(op, ...args) {
    return new Promise((resolve, reject) => {
      const id = this.next++;
      this.waiting.set(id, { resolve, reject });
      this.worker.postMessage({ id, op, args });
    });
  }
}

/** The game kept in this browser, if any and well-formed. @returns {Kept | null} */
export function keptGame() {
  try {
    const kept = JSON.parse(localStorage.getItem(KEY) || "null");
    if (kept && typeof kept.saved === "string" && /^[a-z]+$/.test(kept.level) &&
        ["silver", "red"].includes(kept.you) && typeof kept.setup === "string") {
      return kept;
    }
  } catch (_) {
    // Junk (or no storage): forgotten below.
  }
  forget();
  return null;
}

const levelName = (/** @type {string} */ level) => level.charAt(0).toUpperCase() + level.slice(1);

/// One game against the computer. `onView` gets each new view of the game; `onThinking` is
/// told when the computer starts and stops thinking.
export class ComputerGame {
  /** @param {Kept} kept @param {(view: BoardView) => void} onView
   * @param {(thinking: boolean) => void} onThinking */
  constructor({ setup, level, you, saved }, onView, onThinking) {
    this.engine = new Engine();
    this.setup = setup;
    this.level = level;
    this.you = you;
    this.saved = saved || setup;
    this.onView = onView;
    this.onThinking = onThinking;
    this.busy = false;
  }

  names() {
    const computer = `Computer (${levelName(this.level)})`;
    return this.you === "silver" ? `You\n${computer}` : `${computer}\nYou`;
  }

  async start() {
    await this.engine.ask("start", this.saved);
    await this.refresh();
  }

  async refresh() {
    const view = await this.engine.ask("view", this.you, this.setup, this.names());
    this.saved = await this.engine.ask("saved");
    try {
      localStorage.setItem(KEY, JSON.stringify({
        setup: this.setup, level: this.level, you: this.you, saved: this.saved,
      }));
    } catch (_) {
      // The game goes on; only a reload would lose it.
    }
    this.view = view;
    this.onView(view);
    if (view.status === "playing" && !view.result && view.turn !== this.you) {
      await this.reply();
    }
  }

  /// The computer's move, thought in the worker.
  async reply() {
    this.busy = true;
    this.onThinking(true);
    try {
      await this.engine.ask("computer", this.level);
      this.busy = false;
      // Thinking until its move is on the board: never the old board and "not thinking".
      await this.refresh();
    } finally {
      this.busy = false;
      this.onThinking(false);
    }
  }

  /** @param {string} mv */
  async play(mv) {
    if (this.busy) throw new Error("the computer is thinking");
    await this.engine.ask("play", mv);
    await this.refresh();
  }

  /// Takes back the player's last move and the computer's answer.
  async takeBack() {
    if (this.busy) throw new Error("the computer is thinking");
    const plies = await this.engine.ask("plies");
    const mine = this.you === "silver" ? plies % 2 === 1 : plies % 2 === 0;
    const back = mine ? 1 : 2;
    if (plies < back) throw new Error("you have no move to take back");
    for (let i = 0; i < back; i++) await this.engine.ask("undo");
    await this.refresh();
  }

  async resign() {
    await this.engine.ask("resign", this.you);
    await this.refresh();
  }

  async claimDraw() {
    await this.engine.ask("claimDraw");
    await this.refresh();
  }

  /** @returns {Promise<Hint>} */
  hint() {
    return this.engine.ask("hint", "strong");
  }

  /** Where the laser would shoot after `mv`. @param {string} mv @returns {Promise<ShotView>} */
  preview(mv) {
    return this.engine.ask("preview", mv);
  }

  /// Ends this game's worker (a new game starts a new one).
  close() {
    this.engine.worker.terminate();
  }
}

/// Forgets the game kept in this browser.
export function forget() {
  try {
    localStorage.removeItem(KEY);
  } catch (_) {
    // No storage: nothing kept.
  }
}

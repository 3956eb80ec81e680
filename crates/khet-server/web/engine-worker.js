// The engine of a game against the computer, in a Web Worker: khet-engine compiled to
// WebAssembly (crates/khet-web). The page asks, the engine answers; while the computer thinks,
// only this thread is busy and the page keeps drawing. Each request is {id, op, args}; each
// answer {id, ok} or {id, error} with the engine's reason.
import init, { KhetGame } from "/web/khet_web.js";

const ready = init({ module_or_path: "/web/khet_web_bg.wasm" });
let game = null;

const ops = {
  /// A game from a setup's name, or a saved game (its start and moves).
  start(saved) {
    if (game) game.free();
    game = new KhetGame(saved);
    game.setSeed(Math.floor(Math.random() * 0x7fffffff));
  },
  view(you, setup, names) { return JSON.parse(game.view(you, setup, names)); },
  play(text) { game.play(text); },
  /// The computer's move at `level`, played, answered no sooner than the level's least pause:
  /// a reply the moment a move is made feels like no opponent at all.
  async computer(level) {
    const start = performance.now();
    const mv = game.computerMove(level);
    game.play(mv);
    const rest = KhetGame.leastPause(level) - (performance.now() - start);
    if (rest > 0) await new Promise((resolve) => setTimeout(resolve, rest));
    return mv;
  },
  hint(level) { return JSON.parse(game.hint(level)); },
  preview(text) { return JSON.parse(game.previewView(text)); },
  undo() { game.undo(); },
  claimDraw() { return game.claimDraw(); },
  resign(color) { return game.resign(color); },
  saved() { return game.saved(); },
  plies() { return JSON.parse(game.moves()).length; },
};

onmessage = async (event) => {
  const { id, op, args } = event.data;
  try {
    await ready;
    if (!ops[op]) throw new Error(`no such request: ${op}`);
    if (op !== "start" && !game) throw new Error("no game started");
    postMessage({ id, ok: await ops[op](...(args || [])) });
  } catch (e) {
    postMessage({ id, error: String(e && e.message ? e.message : e) });
  }
};

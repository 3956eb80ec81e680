// The clocks, for every page: a time left as `9:58`, a time control as `10 + 5`, and the time a
// side has left now, counted down from what the server last said.

/** @typedef {import("./protocol.js").BoardView} BoardView */
/** @typedef {import("./protocol.js").ClockSpec} ClockSpec */
/** @typedef {import("./protocol.js").Side} Side */

/** @param {number} ms @returns {string} the time left, `9:58` (rounded up: 0:00 is no time) */
export function clockText(ms) {
  const s = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

/**
 * @param {ClockSpec | null | undefined} clock
 * @returns {string} the time control: `10 + 5` (minutes a side, seconds a move), or `none`
 */
export function timeControl(clock) {
  if (!clock) return "none";
  return `${Math.round(clock.initial_ms / 60000)} + ${Math.round(clock.increment_ms / 1000)}`;
}

/**
 * @param {string} value a form's `initial+increment` in milliseconds (`600000+5000`), or empty
 * @returns {ClockSpec | null}
 */
export function parseTimeControl(value) {
  if (!value) return null;
  const [initial, increment] = value.split("+").map(Number);
  return { initial_ms: initial, increment_ms: increment };
}

/**
 * Whether `side`'s clock is running in view `v`.
 * @param {BoardView} v @param {Side} side
 */
export function running(v, side) {
  return !!v.clocks && v.clocks.running === side && v.status === "playing" && !v.result;
}

/**
 * What `side`'s clock shows `elapsed` milliseconds after view `v` came, or "" without clocks.
 * @param {BoardView} v @param {Side} side @param {number} elapsed
 */
export function clockNow(v, side, elapsed) {
  if (!v.clocks) return "";
  const left = v.clocks.remaining_ms[side === "silver" ? 0 : 1];
  return clockText(left - (running(v, side) ? elapsed : 0));
}

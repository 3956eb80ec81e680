// The clocks, for every page: a time left as `9:58`, a time control as `10 + 5`, and the time a
// side has left now, counted down from what the server last said; and the days of a
// correspondence game: its pace (`3 days a move`) and a time left in words (`2 days 3 hours
// left`), as the server words it.

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

/** @param {number} days @returns {string} a correspondence game's pace: `3 days a move` */
export function daysText(days) {
  return `${days} ${days === 1 ? "day" : "days"} a move`;
}

/**
 * A game's pace: its days a move, or its time control, or `none` (`noClock`) for neither.
 * @param {ClockSpec | null | undefined} clock @param {number | null | undefined} days
 * @param {string} [noClock]
 */
export function paceText(clock, days, noClock = "none") {
  if (days) return daysText(days);
  return clock ? timeControl(clock) : noClock;
}

/**
 * A form's pace: `Nd` for N days a move (with no clock), else a time control (parseTimeControl).
 * @param {string} value @returns {{clock: ClockSpec | null, days_per_move?: number}}
 */
export function parsePace(value) {
  const days = /^(\d+)d$/.exec(value);
  if (days) return { clock: null, days_per_move: Number(days[1]) };
  return { clock: parseTimeControl(value) };
}

/** @param {number} n @param {string} unit @returns {string} `1 day`, `2 days` */
const plural = (n, unit) => `${n} ${unit}${n === 1 ? "" : "s"}`;

/**
 * A correspondence game's time left, in its two largest units as the server words it:
 * `2 days 3 hours left`, `5 hours 12 minutes left`, `40 seconds left`; `out of time` once none.
 * @param {number} ms
 */
export function timeLeftText(ms) {
  if (ms <= 0) return "out of time";
  const DAY = 86400000;
  const HOUR = 3600000;
  const days = Math.floor(ms / DAY);
  const hours = Math.floor((ms % DAY) / HOUR);
  const minutes = Math.floor((ms % HOUR) / 60000);
  const seconds = Math.floor((ms % 60000) / 1000);
  let text;
  if (days > 0) text = `${plural(days, "day")} ${plural(hours, "hour")}`;
  else if (hours > 0) text = `${plural(hours, "hour")} ${plural(minutes, "minute")}`;
  else if (minutes > 0) text = plural(minutes, "minute");
  else text = plural(Math.max(1, seconds), "second");
  return `${text} left`;
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

// What the play page keeps in this browser (localStorage): the identity, the name, each game's
// seat secret and which way each board is turned. A reload or a dropped connection takes the
// seat again where the game stands. Junk found there is forgotten, never trusted.

import { isCode, isSecret } from "./protocol.js";

/** @typedef {{secret: string, color: unknown, since: number}} Seat */

/**
 * A stored value, or `fallback` when it is missing or junk (then it is removed).
 * @template T
 * @param {string} key @param {T} fallback @param {(value: any) => boolean} valid
 * @returns {T}
 */
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

/** Keeps `value` under `key`; false when the browser keeps nothing for this page.
 * @param {string} key @param {unknown} value */
function keep(key, value) {
  try {
    localStorage.setItem(key, JSON.stringify(value));
    return true;
  } catch (_) {
    return false;
  }
}

function newSecret() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
}

export class Store {
  /** @param {() => void} refused called when the browser does not keep what it is given */
  constructor(refused) {
    this.refused = refused;
    /** The installation's secret identity. @type {string} */
    this.identity = stored("khet.identity", "", isSecret);
    if (!this.identity) {
      this.identity = newSecret();
      this.save("khet.identity", this.identity);
    }
    /** @type {string} */
    this.name = stored("khet.name", "", (n) => typeof n === "string" && n.length <= 24);
    /** Seats by game code. @type {Record<string, Seat>} */
    this.seats = stored("khet.seats", {}, (s) => s && typeof s === "object" && !Array.isArray(s));
    for (const [code, seat] of Object.entries(this.seats)) {
      if (!isCode(code) || !seat || !isSecret(seat.secret)) delete this.seats[code];
    }
    /** Each board's side shown, by game code (`computer` for the game against it).
     * @type {Record<string, boolean>} */
    this.turned = stored("khet.turned", {}, (t) => t && typeof t === "object");
  }

  /** @private @param {string} key @param {unknown} value */
  save(key, value) {
    if (!keep(key, value)) this.refused();
  }

  /** @param {string} name */
  setName(name) {
    this.name = name;
    this.save("khet.name", name);
  }

  forgetName() {
    this.name = "";
  }

  /** @param {string} code @param {string} secret @param {unknown} color */
  setSeat(code, secret, color) {
    this.seats[code] = { secret, color, since: Date.now() };
    this.save("khet.seats", this.seats);
  }

  /** @param {string} code */
  forgetSeat(code) {
    delete this.seats[code];
    this.save("khet.seats", this.seats);
  }

  /** @param {string} key @param {boolean} turned */
  setTurned(key, turned) {
    this.turned[key] = turned;
    this.save("khet.turned", this.turned);
  }
}

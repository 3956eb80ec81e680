// One WebSocket to the server, kept open: it reconnects when the connection drops, waiting 0.5 s
// and twice as long each time after (up to 10 s) until the page says the server took it
// (`settled`), and pings every 20 s so that proxies and the server keep a quiet socket open.
// The play page (/ws, the protocol) and the watch page (/watch/CODE/ws) each hold one.

/**
 * @typedef {"connecting" | "open" | "lost" | "stopped"} SocketState
 *   `lost`: dropped, trying again soon; `stopped`: closed for good (`stop`).
 */

/**
 * @template In
 * @typedef {object} SocketOptions
 * @property {string} path the socket's path on this page's server (`/ws`)
 * @property {string} ping what to send every 20 s
 * @property {() => void} [onOpen] the socket is open (say hello here)
 * @property {(msg: In) => void} onMessage each message, parsed (what is not JSON is dropped)
 * @property {(state: SocketState) => void} [onState]
 */

const FIRST_RETRY_MS = 500;
const LAST_RETRY_MS = 10000;
const PING_MS = 20000;

/** @template In */
export class Socket {
  /** @param {SocketOptions<In>} options */
  constructor(options) {
    this.options = options;
    /** @type {WebSocket | null} */
    this.ws = null;
    this.retry = FIRST_RETRY_MS;
    this.stopped = false;
    /** @type {ReturnType<typeof setTimeout> | null} */
    this.again = null;
  }

  /** Connects (again, at once, if connected: a new hello). */
  open() {
    this.stopped = false;
    if (this.again !== null) clearTimeout(this.again);
    this.again = null;
    if (this.ws && this.ws.readyState <= WebSocket.OPEN) {
      // Closed, then opened again by `onclose` without waiting.
      this.retry = 0;
      this.ws.close();
      return;
    }
    this.connect();
  }

  /** @private */
  connect() {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    const ws = new WebSocket(`${scheme}//${location.host}${this.options.path}`);
    this.ws = ws;
    this.state("connecting");
    /** @type {ReturnType<typeof setInterval> | null} */
    let ping = null;
    ws.onopen = () => {
      this.state("open");
      ping = setInterval(() => {
        if (ws.readyState === WebSocket.OPEN) ws.send(this.options.ping);
      }, PING_MS);
      if (this.options.onOpen) this.options.onOpen();
    };
    ws.onmessage = (message) => {
      let msg;
      try {
        msg = JSON.parse(message.data);
      } catch (_) {
        return;
      }
      this.options.onMessage(msg);
    };
    ws.onclose = () => {
      if (ping !== null) clearInterval(ping);
      if (this.ws !== ws) return;
      this.ws = null;
      if (this.stopped) {
        this.state("stopped");
        return;
      }
      this.again = setTimeout(() => {
        this.again = null;
        this.connect();
      }, this.retry);
      this.retry = Math.min(Math.max(this.retry * 2, FIRST_RETRY_MS), LAST_RETRY_MS);
      // Told after the retry is set, so that a page may still `stop` it.
      this.state("lost");
    };
  }

  /** The server took this connection: the next drop is tried again quickly. */
  settled() {
    this.retry = FIRST_RETRY_MS;
  }

  /** Whether a message sent now goes out. */
  get isOpen() {
    return !!this.ws && this.ws.readyState === WebSocket.OPEN;
  }

  /** Sends `msg` as JSON; false when the socket is not open. @param {unknown} msg */
  send(msg) {
    if (!this.ws || !this.isOpen) return false;
    this.ws.send(JSON.stringify(msg));
    return true;
  }

  /** Closes the socket for good: no reconnection, until `open` is called again. */
  stop() {
    this.stopped = true;
    if (this.again !== null) clearTimeout(this.again);
    this.again = null;
    if (this.ws) this.ws.close();
    else this.state("stopped");
  }

  /** @private @param {import("./socket.js").SocketState} state */
  state(state) {
    if (this.options.onState) this.options.onState(state);
  }
}

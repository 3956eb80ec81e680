// The tournaments' pages: the list (/tournaments) and one tournament (/tournaments/CODE),
// drawn from the server's JSON and asked for again every few seconds, so that standings,
// pairings and results follow the games as they end. Names are set as text, never as markup.

import { VERSION } from "./protocol.js";
import { Store } from "./store.js";

/** How often the page asks again, in milliseconds. */
const EVERY_MS = 2000;

/** The player of this browser (the play page's identity and name), once known. @type {string | null} */
let me = null;
/** The last tournament drawn. @type {any} */
let shown = null;
/** The players and rounds the crosstable was last drawn from (JSON), to draw it again only when
 * they changed (a link with the focus, or hovered, keeps it). */
let crosstableDrawn = '';

/** Each result's score for Silver, then for Red, as a crosstable writes it. @type {Record<string, [string, string]>} */
const SCORES = {
  '1-0': ['1', '0'], '0-1': ['0', '1'], '1/2-1/2': ['½', '½'],
  '+/-': ['+', '−'], '-/+': ['−', '+'], '-/-': ['−', '−'],
};

/** @param {string} tag @param {string} [text] @returns {HTMLElement} */
function el(tag, text) {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  return e;
}

/** @param {{initial_ms: number, increment_ms: number}} clock */
function clockText(clock) {
  return `${clock.initial_ms / 60000}+${clock.increment_ms / 1000}`;
}

/** @param {{type: string, rounds?: number, double?: boolean, minutes?: number}} kind */
function kindText(kind) {
  switch (kind.type) {
    case 'swiss': return `Swiss, ${kind.rounds} ${kind.rounds === 1 ? 'round' : 'rounds'}`;
    case 'round-robin': return kind.double ? 'Double round robin' : 'Round robin';
    case 'arena': return `Arena, ${kind.minutes} minutes`;
    default: return kind.type;
  }
}

/** @param {number} points */
function pointsText(points) {
  return String(points);
}

/** @param {string} status */
function statusText(status) {
  return { created: 'Not started', running: 'Under way', paused: 'Paused', finished: 'Finished' }[status] ?? status;
}

/** @param {any} t */
function drawTournament(t) {
  document.title = `Khet: ${t.name}`;
  /** @type {HTMLElement} */ (document.getElementById('title')).textContent = t.name;
  const about = `${kindText(t.kind)} · ${t.setup} · ${clockText(t.clock)}${t.rated ? ' · rated' : ''}`;
  /** @type {HTMLElement} */ (document.getElementById('about')).textContent = about;
  /** @type {HTMLElement} */ (document.getElementById('status')).textContent = statusText(t.status);
  const arena = t.kind.type === 'arena';
  /** @type {HTMLElement} */ (document.getElementById('tiebreak-1')).textContent = arena ? 'Score' : 'Buchholz';
  /** @type {HTMLElement} */ (document.getElementById('tiebreak-2')).textContent = arena ? '' : 'Sonneborn–Berger';
  const body = /** @type {HTMLElement} */ (document.querySelector('#standings tbody'));
  body.replaceChildren(...t.players.map((/** @type {any} */ p, /** @type {number} */ i) => {
    const row = el('tr');
    row.dataset.player = p.id;
    row.append(
      el('td', String(i + 1)),
      el('td', p.withdrawn ? `${p.name} (withdrawn)` : p.name),
      el('td', pointsText(p.points)),
      el('td', arena ? String(p.arena_score ?? 0) : pointsText(p.buchholz)),
      el('td', arena ? '' : pointsText(p.sonneborn_berger)),
      el('td', String(p.games)),
    );
    return row;
  }));
  const rounds = /** @type {HTMLElement} */ (document.getElementById('rounds'));
  rounds.replaceChildren(...t.rounds.map((/** @type {any[]} */ round, /** @type {number} */ n) => {
    const section = el('section');
    section.append(el('h3', arena ? `Pairings ${n + 1}` : `Round ${n + 1}`));
    const list = el('ol');
    list.className = 'pairings';
    for (const p of round) {
      const item = el('li');
      if (p.red === null) {
        item.append(el('span', `${p.silver}: ${p.result ?? ''}`));
      } else {
        const result = p.result ?? (p.code ? 'in play' : t.status === 'finished' ? 'not played' : 'to play');
        const text = `${p.silver} – ${p.red}: ${result}`;
        if (p.code) {
          const link = /** @type {HTMLAnchorElement} */ (el('a', text));
          link.href = p.result ? `/games/${p.code}.ron` : `/watch/${p.code}`;
          item.append(link);
        } else {
          item.append(el('span', text));
        }
      }
      list.append(item);
    }
    section.append(list);
    return section;
  }));
  drawCrosstable(t);
}

/** What the crosstable's cells are written from: each player's number (their place in the
 * standings), and whether the tournament is over (a game left unplayed then is no longer `…`).
 * @typedef {{ranks: Map<string, number>, over: boolean}} Cross */

/** A player's game of a round in the crosstable: `3s1` (against number 3, with Silver, won),
 * `5r½`, `2s+` or `2s−` (a forfeit), `bye`, `rest`, `4r…` (in play or to play); empty when
 * they were not paired. @param {any} p the pairing, if any @param {string} id the player
 * @param {Cross} x */
function crossText(p, id, x) {
  if (!p) return '';
  if (p.red_id === null) return p.result === 'rest' ? 'rest' : 'bye';
  const silver = p.silver_id === id;
  const opponent = x.ranks.get(silver ? p.red_id : p.silver_id) ?? '?';
  const unplayed = x.over ? '' : '…';
  const score = p.result === null ? unplayed : (SCORES[p.result]?.[silver ? 0 : 1] ?? '');
  return `${opponent}${silver ? 's' : 'r'}${score}`;
}

/** One round's cell of player `id`'s row: their game, linked as the rounds' games are (the
 * watch page in play, the record once over). @param {any[]} round @param {number} n 1-based
 * @param {string} id @param {Cross} x */
function crossCell(round, n, id, x) {
  const p = round.find((/** @type {any} */ q) => q.silver_id === id || q.red_id === id);
  const cell = el('td');
  cell.dataset.round = String(n);
  const text = crossText(p, id, x);
  if (p && p.red_id !== null) cell.title = `Round ${n}: ${p.silver} – ${p.red}${p.result ? `, ${p.result}` : ''}`;
  if (p && p.code) {
    const link = /** @type {HTMLAnchorElement} */ (el('a', text));
    link.href = p.result ? `/games/${p.code}.ron` : `/watch/${p.code}`;
    cell.append(link);
  } else {
    cell.textContent = text;
  }
  return cell;
}

/** The crosstable's head: number, player, a column a round, points and tie-breaks.
 * @param {number} rounds */
function crossHead(rounds) {
  const row = el('tr');
  const names = ['#', 'Player', ...Array.from({ length: rounds }, (_, i) => String(i + 1)),
    'Points', 'Buchholz', 'Sonneborn–Berger'];
  for (const name of names) {
    const th = el('th', name);
    th.setAttribute('scope', 'col');
    if (/^\d+$/.test(name)) {
      th.title = `Round ${name}`;
      th.className = 'round';
    }
    row.append(th);
  }
  return row;
}

/** Player `p`'s row, number `rank`: their game of each round, their points and tie-breaks.
 * @param {any} p @param {number} rank @param {any[][]} rounds @param {Cross} x */
function crossRow(p, rank, rounds, x) {
  const row = el('tr');
  row.dataset.player = p.id;
  row.append(el('td', String(rank)), el('td', p.withdrawn ? `${p.name} (withdrawn)` : p.name),
    ...rounds.map((round, n) => crossCell(round, n + 1, p.id, x)),
    el('td', pointsText(p.points)), el('td', pointsText(p.buchholz)),
    el('td', pointsText(p.sonneborn_berger)));
  return row;
}

/** The crosstable of a Swiss or a round robin, as FIDE's are laid out: a row a player in
 * standings order, a cell a round; none for an arena, nor before the first round is paired.
 * Drawn again only when what it shows changed. @param {any} t */
function drawCrosstable(t) {
  const wanted = t.kind.type !== 'arena' && t.rounds.length > 0;
  /** @type {HTMLElement} */ (document.getElementById('crosstable-section')).hidden = !wanted;
  const json = wanted ? JSON.stringify([t.code, t.status, t.players, t.rounds]) : '';
  if (json === crosstableDrawn) return;
  crosstableDrawn = json;
  const table = /** @type {HTMLTableElement} */ (document.getElementById('crosstable'));
  const players = wanted ? t.players : [];
  const rounds = wanted ? t.rounds : [];
  /** @type {Cross} */
  const x = { ranks: new Map(players.map((/** @type {any} */ p, /** @type {number} */ i) => [p.id, i + 1])), over: t.status === 'finished' };
  /** @type {HTMLElement} */ (table.tHead).replaceChildren(crossHead(rounds.length));
  table.tBodies[0].replaceChildren(...players.map((/** @type {any} */ p, /** @type {number} */ i) => crossRow(p, i + 1, rounds, x)));
}

/** @param {any[]} list */
function drawList(list) {
  /** @type {HTMLElement} */ (document.getElementById('status')).textContent =
    list.length === 0 ? 'No tournaments yet.' : list.length === 1 ? '1 tournament' : `${list.length} tournaments`;
  const body = /** @type {HTMLElement} */ (document.querySelector('#list tbody'));
  body.replaceChildren(...list.map((t) => {
    const row = el('tr');
    const name = el('td');
    const link = /** @type {HTMLAnchorElement} */ (el('a', t.name));
    link.href = `/tournaments/${t.code}`;
    name.append(link);
    row.append(name, el('td', kindText(t.kind)), el('td', clockText(t.clock)), el('td', String(t.players)), el('td', statusText(t.status)));
    return row;
  }));
}

/** The entry panel: join or withdraw, and this player's game to play now.
 * @param {any} t */
function drawEntry(t) {
  const entry = /** @type {HTMLElement} */ (document.getElementById('entry'));
  const store = new Store(() => {});
  entry.hidden = !store.name || t.status === 'finished';
  if (!store.name) {
    /** @type {HTMLElement} */ (document.getElementById('entry-note')).textContent =
      'Choose your name on the play page to join tournaments.';
    return;
  }
  const mine = me === null ? undefined : t.players.find((/** @type {any} */ p) => p.id === me);
  const button = /** @type {HTMLButtonElement} */ (document.getElementById('enter'));
  button.textContent = mine && !mine.withdrawn ? 'Withdraw' : 'Join';
  const yours = /** @type {HTMLElement} */ (document.getElementById('yours'));
  yours.replaceChildren();
  for (const p of t.rounds.flat()) {
    if (me !== null && p.code && p.result === null && (p.silver_id === me || p.red_id === me)) {
      const link = /** @type {HTMLAnchorElement} */ (el('a', 'Your game: play it'));
      link.href = `/play/${p.code}`;
      link.id = 'your-game';
      yours.append(link);
    }
  }
}

/** Sends `message` for this browser's player over the protocol: the tournament it answers.
 * @param {object} message @returns {Promise<any>} */
function tell(message) {
  const store = new Store(() => {});
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
  const ws = new WebSocket(`${scheme}//${location.host}/ws`);
  return new Promise((resolve, reject) => {
    ws.onopen = () => ws.send(JSON.stringify({ type: 'hello', version: VERSION, identity: store.identity, name: store.name }));
    ws.onmessage = (e) => {
      const msg = JSON.parse(e.data);
      if (msg.type === 'welcome') {
        me = msg.player.id;
        ws.send(JSON.stringify(message));
      } else if (msg.type === 'tournament') {
        ws.close();
        resolve(msg.tournament);
      } else if (msg.type === 'refused') {
        ws.close();
        reject(new Error(msg.reason));
      }
    };
    ws.onerror = () => reject(new Error('the server cannot be reached'));
  });
}

/** Joins or withdraws, as the button says. */
async function enter() {
  if (!shown) return;
  const button = /** @type {HTMLButtonElement} */ (document.getElementById('enter'));
  const type = button.textContent === 'Withdraw' ? 'withdraw_tournament' : 'join_tournament';
  const note = /** @type {HTMLElement} */ (document.getElementById('entry-note'));
  try {
    const t = await tell({ type, code: shown.code });
    note.textContent = type === 'join_tournament' ? 'You are in.' : 'You have withdrawn.';
    shown = t;
    drawTournament(t);
    drawEntry(t);
  } catch (e) {
    note.textContent = `Not done: ${e instanceof Error ? e.message : e}`;
  }
}

async function refresh() {
  const path = location.pathname.replace(/\/$/, '');
  const one = path.startsWith('/tournaments/');
  try {
    const answer = await fetch(`${path}.json`, { cache: 'no-store' });
    if (!answer.ok) throw new Error(await answer.text());
    const data = await answer.json();
    if (one) {
      shown = data;
      drawTournament(data);
      drawEntry(data);
    } else {
      drawList(data);
    }
    if (one && data.status === 'finished') return;
  } catch (e) {
    /** @type {HTMLElement} */ (document.getElementById('status')).textContent = `Cannot reach the server: ${e}`;
  }
  setTimeout(refresh, EVERY_MS);
}

document.getElementById('enter')?.addEventListener('click', enter);
// Who this browser's player is, for its place and its game (a hello answers with it).
if (location.pathname.startsWith('/tournaments/') && new Store(() => {}).name) {
  const code = location.pathname.split('/')[2];
  tell({ type: 'tournament', code }).then((t) => { shown = t; drawEntry(t); }, () => {});
}
refresh();

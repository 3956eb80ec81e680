// The play page: a person plays from a browser through the server's own protocol (the /ws
// socket, docs/online-protocol.md), or the computer in the page (computer.js). Shaped as
// lichess's round is: the controller holds the state and what a player may do
// (play-ctrl.js), the view draws the page from it (play-view.js), the board's input calls the
// controller (play-input.js), and the connection is socket.js's, shared with the watch page.
// This file puts them together and hands the page's forms and buttons to the controller.

import { parsePace } from "./clock.js";
import { PlayCtrl } from "./play-ctrl.js";
import { listen } from "./play-input.js";
import { $, PlayView } from "./play-view.js";

/** @type {PlayView} */
let view;
let drawing = false;
/** The address's Challenge button and the empty label before it, once made. @type {HTMLElement[] | null} */
let wantedNodes = null;
const ctrl = new PlayCtrl(() => {
  // Drawn once for a burst of changes, in the same task (tests and players read the page
  // straight after a click).
  if (!view || drawing) return;
  drawing = true;
  try {
    view.render();
    drawWanted();
  } finally {
    drawing = false;
  }
});
view = new PlayView(ctrl);
listen(ctrl, $("board"));

/** Runs `f` on a form's submission instead of the browser's.
 * @param {string} id @param {() => void} f */
function onSubmit(id, f) {
  $(id).addEventListener("submit", (/** @type {Event} */ e) => {
    e.preventDefault();
    f();
  });
}

/** @param {string} id @param {() => void} f */
function onClick(id, f) {
  $(id).addEventListener("click", f);
}

onSubmit("name-form", () => ctrl.setName($("name").value));
/** The game of the "Play a friend" form: created, or a challenge's. Its clock or its days a move
 * (`days_per_move`, left out for a live game).
 * @returns {import("./protocol.js").NewGame} */
const settings = () => ({
  setup: $("setup").value,
  ...parsePace($("clock").value),
  color: $("color").value,
  rated: $("rated").checked,
  listed: $("listed").checked,
});
onSubmit("create-form", () => ctrl.create(settings()));
onSubmit("join-form", () => ctrl.joinText($("code").value));
onSubmit("computer-form", () => ctrl.playComputer({
  setup: $("computer-setup").value, level: $("level").value, you: $("computer-color").value,
}));
onClick("seek", () => ctrl.seek($("clock").value, $("rated").checked));
// The lobby's Join buttons, drawn with its list.
$("lobby").addEventListener("click", (/** @type {Event} */ e) => {
  const button = e.target instanceof Element ? e.target.closest("[data-join]") : null;
  if (button instanceof HTMLElement && button.dataset.join) ctrl.open(button.dataset.join);
});

// "Your games": a game whose seat this browser holds opens here, as the lobby's Join does (a
// click with a modifier key is the browser's: a new tab loads the page at the game).
$("my-games").addEventListener("click", (/** @type {MouseEvent} */ e) => {
  const link = e.target instanceof Element ? e.target.closest("a[data-open]") : null;
  if (!(link instanceof HTMLElement) || !link.dataset.open) return;
  if (e.button !== 0 || e.ctrlKey || e.metaKey || e.shiftKey || e.altKey) return;
  e.preventDefault();
  ctrl.open(link.dataset.open);
});

/** A Challenge button clicked (`data-challenge`: the player's id): a challenge to a game of
 * the settings of "Play a friend". @param {Event} e */
function challengeClicked(e) {
  const button = e.target instanceof Element ? e.target.closest("[data-challenge]") : null;
  if (button instanceof HTMLElement && button.dataset.challenge) {
    ctrl.challenge(button.dataset.challenge, settings());
  }
}

/** The Challenge button of the player the address names (`#challenge=ID&name=NAME`, from their
 * page), put after the create form's Create button (in its grid, beside an empty label).
 * @param {{id: string, name: string}} wanted @returns {HTMLElement[]} */
function wantedButton(wanted) {
  const button = document.createElement("button");
  button.type = "button";
  button.id = "challenge-player";
  button.dataset.challenge = wanted.id;
  button.textContent = `Challenge ${wanted.name}`;
  button.title = `Challenge ${wanted.name} to a game of these settings`;
  const label = document.createElement("span");
  for (const node of [label, button]) node.hidden = true;
  $("create").after(label, button);
  return [label, button];
}

/** Shows the address's Challenge button at the lobby once welcomed, until the challenge is sent. */
function drawWanted() {
  if (!wantedNodes && ctrl.wanted) wantedNodes = wantedButton(ctrl.wanted);
  if (!wantedNodes) return;
  const shown = !!ctrl.wanted && ctrl.welcomed && ctrl.screen === "home";
  for (const node of wantedNodes) {
    if (node.hidden === shown) node.hidden = !shown;
  }
}

// The leaderboard's Challenge buttons and the address's (beside Create), and the Accept,
// Decline and Withdraw of challenges.
$("best").addEventListener("click", challengeClicked);
$("create-form").addEventListener("click", challengeClicked);
$("challenge-list").addEventListener("click", (/** @type {Event} */ e) => {
  const button = e.target instanceof Element ? e.target.closest("[data-answer]") : null;
  if (!(button instanceof HTMLElement) || !button.dataset.id) return;
  const answer = button.dataset.answer;
  if (answer === "accept_challenge" || answer === "decline_challenge" ||
    answer === "withdraw_challenge") ctrl.answer(button.dataset.id, answer);
});
onClick("rematch", () => ctrl.rematch());

for (const id of ["offer-draw", "accept-draw", "decline-draw", "claim-repetition", "takeback",
  "accept-takeback", "decline-takeback", "claim-win", "claim-draw", "claim-time",
  "claim-time-draw"]) {
  onClick(id, () => ctrl.act(id));
}
onClick("resign", () => {
  if (confirm("Resign this game?")) ctrl.act("resign");
});
onClick("hint", () => ctrl.askHint());
onClick("new-game", () => ctrl.newGame());
onClick("flip", () => ctrl.flip());
onClick("copy", async () => {
  $("link").select();
  try {
    await navigator.clipboard.writeText($("link").value);
    ctrl.say("The link is copied.");
  } catch (_) {
    ctrl.say("Select the link and copy it.");
  }
  ctrl.redraw();
});

window.addEventListener("popstate", () => ctrl.addressChanged());
// The clocks count down, and a gone opponent's time runs out, between the server's messages.
setInterval(() => ctrl.redraw(), 250);
// The player's games, asked for again every minute at the lobby (a correspondence opponent's
// move may come at any time).
setInterval(() => {
  if (ctrl.screen === "home") ctrl.refreshMyGames();
}, 60000);
ctrl.start();
ctrl.redraw();

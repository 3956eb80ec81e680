// Starts the 3D game in the page: the game built for WebAssembly (scripts/build-game-web) draws
// into the canvas through WebGL2. Without WebGL2 the page says so and offers the 2D page; on a
// small touch screen it offers the 2D page beside the game, which is made for phones.
import init, { squares } from "./khet.js";

const elsewhere = document.getElementById("elsewhere");
const loading = document.getElementById("loading");

/** The 2D page of the same game: /play/CODE for /3d/CODE, else /play. */
function flatPage() {
  const code = location.pathname.match(/\/3d\/([A-Za-z0-9]+)$/);
  return code ? `/play/${code[1]}` : "/play";
}

function offerFlat(why) {
  document.getElementById("why").textContent = why;
  document.getElementById("flat").href = flatPage();
  elsewhere.hidden = false;
}

function hasWebGL2() {
  try {
    return !!document.createElement("canvas").getContext("webgl2");
  } catch {
    return false;
  }
}

if (!hasWebGL2()) {
  loading.hidden = true;
  offerFlat("This browser cannot draw the 3D game: it has no WebGL2 (or it is turned off).");
} else {
  if (matchMedia("(pointer: coarse)").matches && Math.min(screen.width, screen.height) < 600) {
    offerFlat("On a small touch screen the 2D page plays better.");
  }
  try {
    await init({ module_or_path: new URL("khet_bg.wasm", import.meta.url) });
  } catch (e) {
    // winit ends its start-up by throwing to hand the loop to the browser: not an error.
    if (!String(e).includes("Using exceptions for control flow")) {
      loading.textContent = `The game could not start: ${e}`;
      throw e;
    }
  }
  loading.hidden = true;
  document.getElementById("khet").focus();
}

/** Where each square of the board is on the page (CSS pixels, the canvas's corner at 0,0):
 * `{"a1": [x, y], …}`, for tests and tools that click the board as a player does. */
window.khetSquares = () => JSON.parse(squares());

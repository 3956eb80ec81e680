// The computer's thinking, off the page's thread: this same game, built for WebAssembly, loaded
// a second time in a Web Worker, where it opens no window and answers the page's jobs (its
// `think` export; src/offload.rs). Each request is {id, name, job}; each answer {id, answer} or
// {id, error}. While it searches, the page keeps drawing.
import init, { think } from "./khet.js";

const ready = init({ module_or_path: new URL("khet_bg.wasm", import.meta.url) });

onmessage = async (event) => {
  const { id, name, job } = event.data;
  try {
    await ready;
    postMessage({ id, answer: think(name, job) });
  } catch (e) {
    postMessage({ id, error: String(e && e.message ? e.message : e) });
  }
};

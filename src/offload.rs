//! Work that must not hold up a frame: the computer's search, a hint, an analysis. On the
//! desktop it is a task on Bevy's `AsyncComputeTaskPool`, on its own threads. A page in a browser
//! has one thread, and a search there would stop the drawing; so in the browser build the same
//! job goes, as text, to a Web Worker running this same program (`web/think-worker.js` calls its
//! `think` export, which is `khet::think`), and the answer comes back as text. The caller holds
//! a `Task` and polls it either way, and never knows which ran it.
//!
//! A job names itself ([`Job::NAME`]); `khet::think` is the table of every kind the worker
//! knows, in the crate's root (it names every feature's jobs, which name this module).

use crate::frames::Waker;
use bevy::tasks::{AsyncComputeTaskPool, Task};
use khet_engine::record::Record;
use khet_engine::{Game, Position, Rules};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A piece of work done away from the frame.
pub trait Job: Serialize + DeserializeOwned + Send + 'static {
    /// Its name in `khet::think`'s table.
    const NAME: &'static str;
    type Answer: Serialize + DeserializeOwned + Send + Sync + 'static;
    /// Does the work (on a worker thread, or in the browser's worker).
    fn run(self) -> Self::Answer;
}

/// A game in a job: sent as its record's RON, and replayed (so checked) where the job runs.
pub struct SentGame(pub Game);

impl Serialize for SentGame {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        Record::from_game(&self.0, "").to_ron().serialize(s)
    }
}

impl<'de> Deserialize<'de> for SentGame {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<SentGame, D::Error> {
        let text = String::deserialize(d)?;
        Record::from_ron(&text, "the game")
            .and_then(|r| r.replay(&text, "the game"))
            .map(SentGame)
            .map_err(serde::de::Error::custom)
    }
}

/// A position in a job: its rules and its text, read (so checked) where the job runs.
pub struct SentPosition(pub Position);

impl Serialize for SentPosition {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        (self.0.rules(), self.0.to_string()).serialize(s)
    }
}

impl<'de> Deserialize<'de> for SentPosition {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<SentPosition, D::Error> {
        let (rules, text) = <(Rules, String)>::deserialize(d)?;
        khet_engine::parse_position_with(&text, rules)
            .map(SentPosition)
            .map_err(serde::de::Error::custom)
    }
}

/// A search of a position to a fixed depth, on one thread: its nodes and time (microseconds).
/// Not the game's work: how the engine in the page's worker is measured against native, node
/// for node the tree `khet-engine search --depth D --threads 1` searches (the 3D page's test
/// sends it to the worker).
#[derive(Serialize, Deserialize)]
pub struct Measure {
    pub position: SentPosition,
    pub depth: u32,
}

impl Job for Measure {
    const NAME: &'static str = "measure";
    type Answer = (u64, u64);

    fn run(self) -> (u64, u64) {
        let limits = khet_engine::Limits::depth(self.depth);
        let r = khet_engine::Searcher::default().search(&self.position.0, limits, |_| {});
        (
            r.nodes,
            u64::try_from(r.elapsed.as_micros()).unwrap_or(u64::MAX),
        )
    }
}

/// Starts `job` away from the frame; `waker` wakes the game's loop when the answer is in.
#[cfg(not(target_arch = "wasm32"))]
pub fn spawn<J: Job>(job: J, waker: Waker) -> Task<J::Answer> {
    AsyncComputeTaskPool::get().spawn(async move {
        let answer = job.run();
        waker.wake();
        answer
    })
}

/// Starts `job` in the page's worker; if the worker cannot take it (the browser refused to
/// start one), the job runs here, holding up the frames, rather than never answering.
#[cfg(target_arch = "wasm32")]
pub fn spawn<J: Job>(job: J, waker: Waker) -> Task<J::Answer> {
    let text = ron::to_string(&job).unwrap_or_default();
    AsyncComputeTaskPool::get().spawn(async move {
        let answer = match worker::call(J::NAME, &text).await {
            Ok(reply) => ron::from_str(&reply).map_err(|e| e.to_string()),
            Err(e) => Err(e),
        };
        let answer = answer.unwrap_or_else(|why| {
            bevy::log::warn!("the worker did not answer ({why}); thinking on the page's thread");
            job.run()
        });
        waker.wake();
        answer
    })
}

/// Does the job `J` given as text, and gives its answer as text: what the browser's worker does
/// with each request (the table of every kind is `khet::think`).
pub fn answer<J: Job>(text: &str) -> Result<String, String> {
    let job: J = ron::from_str(text).map_err(|e| format!("{}: {e}", J::NAME))?;
    ron::to_string(&job.run()).map_err(|e| e.to_string())
}

/// The page's end of the worker: one worker, started on first use, and the answers it owes.
#[cfg(target_arch = "wasm32")]
mod worker {
    use std::cell::RefCell;
    use std::collections::HashMap;
    use wasm_bindgen::JsCast;
    use wasm_bindgen::prelude::*;
    use web_sys::{MessageEvent, Worker, WorkerOptions, WorkerType};

    struct Waiting {
        worker: Worker,
        next: u32,
        /// Each request's `resolve` and `reject`.
        owed: HashMap<u32, (js_sys::Function, js_sys::Function)>,
        _answered: Closure<dyn FnMut(MessageEvent)>,
    }

    thread_local! {
        static WORKER: RefCell<Option<Waiting>> = const { RefCell::new(None) };
    }

    fn start() -> Result<Waiting, String> {
        let options = WorkerOptions::new();
        options.set_type(WorkerType::Module);
        // Beside the page's own script (`scripts/build-game-web` puts it there).
        let worker =
            Worker::new_with_options("think-worker.js", &options).map_err(|e| format!("{e:?}"))?;
        let answered = Closure::<dyn FnMut(MessageEvent)>::new(|e: MessageEvent| {
            let data = e.data();
            let get = |k: &str| js_sys::Reflect::get(&data, &k.into()).unwrap_or_default();
            let Some(id) = get("id").as_f64() else { return };
            let owed = WORKER.with_borrow_mut(|w| w.as_mut()?.owed.remove(&(id as u32)));
            if let Some((resolve, reject)) = owed {
                let error = get("error");
                let _ = if error.is_undefined() {
                    resolve.call1(&JsValue::NULL, &get("answer"))
                } else {
                    reject.call1(&JsValue::NULL, &error)
                };
            }
        });
        worker.set_onmessage(Some(answered.as_ref().unchecked_ref()));
        Ok(Waiting {
            worker,
            next: 0,
            owed: HashMap::new(),
            _answered: answered,
        })
    }

    /// Sends the job and waits for its answer. A job whose caller went away is still answered
    /// (the worker finishes what it started, within the job's own budget), and the answer is
    /// dropped.
    pub async fn call(name: &str, text: &str) -> Result<String, String> {
        let mut failed = None;
        let promise = js_sys::Promise::new(&mut |resolve, reject| {
            let sent = WORKER.with_borrow_mut(|slot| -> Result<(), String> {
                if slot.is_none() {
                    *slot = Some(start()?);
                }
                let Some(w) = slot.as_mut() else {
                    return Err("no worker".into());
                };
                w.next += 1;
                let id = w.next;
                let msg = js_sys::Object::new();
                let set = |k: &str, v: JsValue| js_sys::Reflect::set(&msg, &k.into(), &v);
                let _ = set("id", id.into());
                let _ = set("name", name.into());
                let _ = set("job", text.into());
                w.worker.post_message(&msg).map_err(|e| format!("{e:?}"))?;
                w.owed.insert(id, (resolve, reject));
                Ok(())
            });
            failed = sent.err();
        });
        if let Some(why) = failed {
            return Err(why);
        }
        let answer = wasm_bindgen_futures::JsFuture::from(promise)
            .await
            .map_err(|e| e.as_string().unwrap_or_else(|| format!("{e:?}")))?;
        answer
            .as_string()
            .ok_or_else(|| "the worker's answer is not text".into())
    }
}

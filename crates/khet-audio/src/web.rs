//! The browser build's sound: Web Audio. The page's audio context asks for samples as it needs
//! them (a script processor node, on the page's one thread), and the shared mixer renders them,
//! as the desktop's sound thread does. Browsers start a page's sound only after the player's
//! first click or key: the context is made suspended, and resumed by the first one.
//!
//! A page has one thread, so the context and its callbacks live in a thread-local; the
//! [`Output`] is the handle the game keeps, and dropping it closes the context.

use crate::{Mixer, OpenError, RATE};
use std::cell::RefCell;
use std::sync::{Arc, Mutex};
use wasm_bindgen::JsCast;
use wasm_bindgen::closure::Closure;
use web_sys::{AudioContext, AudioContextOptions, AudioProcessingEvent, ScriptProcessorNode};

/// Samples rendered per callback: about 46 ms at 44.1 kHz, enough that a busy frame does not
/// starve the sound, short enough that a cue starts with its flare.
const BLOCK: u32 = 2048;

struct Playing {
    context: AudioContext,
    _node: ScriptProcessorNode,
    _render: Closure<dyn FnMut(AudioProcessingEvent)>,
    _resume: Closure<dyn FnMut()>,
}

thread_local! {
    static PLAYING: RefCell<Option<Playing>> = const { RefCell::new(None) };
}

/// Plays a shared mixer through the page's audio until dropped.
pub struct Output(());

impl Output {
    /// Opens the page's audio (`device` is the desktop's; a page has one output).
    pub fn open(_device: &str, mixer: Arc<Mutex<Mixer>>) -> Result<Output, OpenError> {
        let fail = |e: wasm_bindgen::JsValue| OpenError(format!("Web Audio: {e:?}"));
        let options = AudioContextOptions::new();
        options.set_sample_rate(RATE as f32);
        let context = AudioContext::new_with_context_options(&options).map_err(fail)?;
        let node = context
            .create_script_processor_with_buffer_size_and_number_of_input_channels_and_number_of_output_channels(BLOCK, 0, 1)
            .map_err(fail)?;
        let mut mono = vec![0.0f32; BLOCK as usize];
        let render =
            Closure::<dyn FnMut(AudioProcessingEvent)>::new(move |e: AudioProcessingEvent| {
                let Ok(buffer) = e.output_buffer() else {
                    return;
                };
                mono.resize(buffer.length() as usize, 0.0);
                match mixer.lock() {
                    Ok(mut m) => m.render(&mut mono),
                    Err(_) => mono.fill(0.0),
                }
                let _ = buffer.copy_to_channel(&mono, 0);
            });
        node.set_onaudioprocess(Some(render.as_ref().unchecked_ref()));
        node.connect_with_audio_node(&context.destination())
            .map_err(fail)?;
        // The first click or key lets the page make sound.
        let resume = Closure::<dyn FnMut()>::new(|| {
            PLAYING.with_borrow(|p| {
                if let Some(p) = p {
                    let _ = p.context.resume();
                }
            });
        });
        if let Some(document) = web_sys::window().and_then(|w| w.document()) {
            for event in ["pointerdown", "keydown"] {
                let _ = document
                    .add_event_listener_with_callback(event, resume.as_ref().unchecked_ref());
            }
        }
        PLAYING.with_borrow_mut(|p| {
            *p = Some(Playing {
                context,
                _node: node,
                _render: render,
                _resume: resume,
            });
        });
        Ok(Output(()))
    }

    /// Why the sound stopped, if it did: a page's audio does not stop by itself.
    pub fn failure(&self) -> Option<String> {
        None
    }
}

impl Drop for Output {
    fn drop(&mut self) {
        if let Some(p) = PLAYING.with_borrow_mut(Option::take) {
            let _ = p.context.close();
        }
    }
}

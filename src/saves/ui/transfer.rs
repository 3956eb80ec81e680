//! The browser build's way in and out for saved games: a save downloaded as its `.ron` file, and
//! `.ron` files from the disk taken into the saved games. The desktop game's saves are the same
//! RON, so games move between the page and the desktop (where the files are at hand already).

use crate::files::js_reason;
use crate::frames::Waker;
use crate::news::News;
use crate::saves::{RefreshSaves, SaveDir};
use bevy::prelude::*;
use khet_engine::record::MAX_RECORD_BYTES;
use std::path::Path;
use std::sync::{Arc, Mutex};
use wasm_bindgen::JsCast;
use wasm_bindgen::closure::Closure;

/// Files picked from the disk (each its name and its text, or why it could not be read), read
/// by the browser after the frame that asked, taken in by [`take_picked`].
#[derive(Resource, Clone, Default)]
pub struct Picked(Arc<Mutex<Vec<(String, Result<String, String>)>>>);

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<Picked>()
        .add_systems(Update, (ask_for_files, take_picked));
}

/// The Open screen's "Open .ron files…", asked for in this frame: the browser's file chooser
/// (within the click's user activation, which browsers require of it).
fn ask_for_files(
    mut asked: MessageReader<super::PickFiles>,
    picked: Res<Picked>,
    waker: Res<Waker>,
    mut news: MessageWriter<News>,
) {
    if asked.read().count() > 0
        && let Err(e) = pick(&picked, &waker)
    {
        news.write(News::SaveFailed(format!("no file chooser: {e}")));
    }
}

/// Offers the save at `path` to the browser as a download under its own name.
pub fn download(path: &Path) -> Result<(), String> {
    let bytes = crate::files::read_bounded(path, MAX_RECORD_BYTES).map_err(|e| e.to_string())?;
    let name = path
        .file_name()
        .map_or_else(|| "game.ron".into(), |n| n.to_string_lossy().into_owned());
    let document = web_sys::window()
        .and_then(|w| w.document())
        .ok_or("no page")?;
    let parts = js_sys::Array::of1(&js_sys::Uint8Array::from(&bytes[..]));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type("application/octet-stream");
    let blob = web_sys::Blob::new_with_u8_array_sequence_and_options(&parts, &options)
        .map_err(js_reason)?;
    let url = web_sys::Url::create_object_url_with_blob(&blob).map_err(js_reason)?;
    let link = document.create_element("a").map_err(js_reason)?;
    link.set_attribute("href", &url).map_err(js_reason)?;
    link.set_attribute("download", &name).map_err(js_reason)?;
    if let Ok(link) = link.dyn_into::<web_sys::HtmlElement>() {
        link.click();
    }
    // The download has taken the blob's address by now; the blob can go.
    let _ = web_sys::Url::revoke_object_url(&url);
    Ok(())
}

/// Asks the browser for `.ron` files; each one read arrives in `picked`, and wakes the game.
pub fn pick(picked: &Picked, waker: &Waker) -> Result<(), String> {
    let document = web_sys::window()
        .and_then(|w| w.document())
        .ok_or("no page")?;
    let input: web_sys::HtmlInputElement = document
        .create_element("input")
        .map_err(js_reason)?
        .dyn_into()
        .map_err(|_| "no file input")?;
    input.set_type("file");
    input.set_accept(".ron");
    input.set_multiple(true);
    let (target, picked, waker) = (input.clone(), picked.0.clone(), waker.clone());
    // Called once, when the player has chosen, and freed then (a cancelled choice never calls
    // it: the input and its closure stay unreachable, a few bytes).
    let chosen = Closure::once_into_js(move || {
        let files = js_sys::Reflect::get(&target, &"files".into()).unwrap_or_default();
        for file in js_sys::Array::from(&files).iter() {
            let Ok(file) = file.dyn_into::<web_sys::File>() else {
                continue;
            };
            let (picked, waker) = (picked.clone(), waker.clone());
            wasm_bindgen_futures::spawn_local(async move {
                let name = file.name();
                let text = if file.size() > MAX_RECORD_BYTES as f64 {
                    Err(format!("{name}: too big for a game record"))
                } else {
                    wasm_bindgen_futures::JsFuture::from(file.text())
                        .await
                        .ok()
                        .and_then(|t| t.as_string())
                        .ok_or_else(|| format!("{name}: the browser could not read it"))
                };
                if let Ok(mut p) = picked.lock() {
                    p.push((name, text));
                }
                waker.wake();
            });
        }
    });
    input.set_onchange(Some(chosen.unchecked_ref()));
    input.click();
    Ok(())
}

/// Each picked file that reads as a game record (replayed by the rules, as the list reads every
/// save) is kept in the saved games under its own name (another if that is taken); one that
/// does not is refused with its `file:line: reason`, and nothing is kept.
fn take_picked(
    picked: Res<Picked>,
    dir: Option<Res<SaveDir>>,
    mut news: MessageWriter<News>,
    mut refresh: MessageWriter<RefreshSaves>,
) {
    let files = match picked.0.lock() {
        Ok(mut p) if !p.is_empty() => std::mem::take(&mut *p),
        _ => return,
    };
    let Some(dir) = dir else {
        return;
    };
    for (name, text) in files {
        let kept = text.and_then(|text| {
            crate::saves::parse(text.as_bytes(), &name)?;
            let stem = Path::new(&name)
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            let path = crate::saves::free_path(&dir.0, &crate::saves::file_name(&stem));
            crate::files::write_atomic(&path, text.as_bytes())
                .map_err(|e| format!("{}: {e}", path.display()))?;
            Ok(path)
        });
        match kept {
            Ok(path) => {
                news.write(News::Saved(path.display().to_string()));
                refresh.write(RefreshSaves);
            }
            Err(e) => {
                news.write(News::SaveFailed(e));
            }
        }
    }
}

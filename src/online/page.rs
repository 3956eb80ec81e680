//! The browser build's page address. The server the page came from is the Online screen's
//! server unless the player chose another, and `/3d/CODE`, a friend's link, opens the Online
//! screen and joins game CODE there, as `/play/CODE` does on the 2D page.
//!
//! The 3D page and the 2D page of one server are one player: they share the browser's identity,
//! name and seats, which the 2D page keeps in its local storage (`khet.identity`, `khet.name`,
//! `khet.seats`, see the server's `web/store.js`). So a game opened in 3D from the 2D page (or the
//! other way) is played from the same seat, not watched, and the rating is one.

use super::connection::read_files;
use super::seats::Seat;
use super::{Online, OnlineFiles, OnlineRequest};
use crate::files::local_storage;
use crate::screen::Screen;
use crate::settings::Settings;
use bevy::prelude::*;
use khet_protocol::ClientMsg;
use std::collections::BTreeMap;

pub(super) fn plugin(app: &mut App) {
    app.add_systems(
        Startup,
        (adopt_flat_page, read_address).chain().after(read_files),
    )
    .add_systems(
        Update,
        (
            join_linked.run_if(resource_exists::<Linked>.and_then(resource_exists::<Online>)),
            share_seats.run_if(resource_changed::<OnlineFiles>),
        )
            .in_set(crate::GameSet::Logic),
    );
}

/// The game the page's address names, joined once connected.
#[derive(Resource)]
struct Linked(String);

/// The page's origin (`https://host:port`), when it was served over HTTP(S).
#[derive(Resource)]
struct PageOrigin(String);

/// The 2D page's keys in the local storage.
const IDENTITY: &str = "khet.identity";
const NAME: &str = "khet.name";
const SEATS: &str = "khet.seats";

/// A seat as the 2D page keeps it (its other fields are the 2D page's own).
#[derive(serde::Serialize, serde::Deserialize)]
struct FlatSeat {
    secret: String,
    #[serde(default)]
    color: serde_json::Value,
    #[serde(default)]
    since: f64,
}

/// A JSON value the 2D page kept under `key`, if it is there and reads as a `T`.
fn flat<T: serde::de::DeserializeOwned>(storage: &web_sys::Storage, key: &str) -> Option<T> {
    let text = storage.get_item(key).ok().flatten()?;
    serde_json::from_str(&text).ok()
}

fn keep<T: serde::Serialize>(storage: &web_sys::Storage, key: &str, value: &T) {
    if let Ok(text) = serde_json::to_string(value) {
        // A full storage keeps the 2D page as it was; the 3D game's own file still has it all.
        let _ = storage.set_item(key, &text);
    }
}

/// Takes the 2D page's identity, name and seats (the identity the 2D page has wins: it is the
/// one the server's link first met), and gives it the 3D game's where it has none.
fn adopt_flat_page(
    mut files: ResMut<OnlineFiles>,
    mut settings: ResMut<Settings>,
    mut news: MessageWriter<crate::news::News>,
) {
    let Some(storage) = local_storage() else {
        return;
    };
    let mut changed = false;
    match flat::<String>(&storage, IDENTITY).filter(|i| khet_protocol::is_secret(i)) {
        Some(identity) if identity != files.file.identity => {
            files.file.identity = identity;
            changed = true;
        }
        Some(_) => {}
        None => {
            if files.file.ensure_identity().unwrap_or(false) {
                changed = true;
            }
            if khet_protocol::is_secret(&files.file.identity) {
                keep(&storage, IDENTITY, &files.file.identity);
            }
        }
    }
    let name = flat::<String>(&storage, NAME).filter(|n| khet_protocol::check_name(n).is_ok());
    match name {
        Some(name) if settings.online_name.is_empty() => settings.online_name = name,
        None if !settings.online_name.is_empty() => keep(&storage, NAME, &settings.online_name),
        _ => {}
    }
    if changed {
        files.save(&mut news);
    }
}

/// The 2D page's seats, oldest first, valid ones only.
fn flat_seats(storage: &web_sys::Storage) -> Vec<(String, FlatSeat)> {
    let seats: BTreeMap<String, FlatSeat> = flat(storage, SEATS).unwrap_or_default();
    let mut seats: Vec<_> = seats
        .into_iter()
        .filter(|(code, seat)| {
            khet_protocol::check_code(code).is_ok() && khet_protocol::is_secret(&seat.secret)
        })
        .collect();
    seats.sort_by(|a, b| a.1.since.total_cmp(&b.1.since));
    seats
}

fn read_address(
    mut settings: ResMut<Settings>,
    mut files: ResMut<OnlineFiles>,
    mut next: ResMut<NextState<Screen>>,
    mut requests: MessageWriter<OnlineRequest>,
    mut commands: Commands,
) {
    let Some(location) = web_sys::window().map(|w| w.location()) else {
        return;
    };
    let (Ok(protocol), Ok(host), Ok(path)) =
        (location.protocol(), location.host(), location.pathname())
    else {
        return;
    };
    // A page opened from a file has no server.
    if protocol != "http:" && protocol != "https:" {
        return;
    }
    let page = format!("{protocol}//{host}");
    if settings.online_server == Settings::default().online_server {
        settings.online_server.clone_from(&page);
    }
    // The 2D page's seats are this server's.
    if let Some(storage) = local_storage() {
        for (code, seat) in flat_seats(&storage) {
            if files.file.seat(&code).is_none() {
                files.file.remember(Seat {
                    server: page.clone(),
                    code,
                    secret: seat.secret,
                    over: false,
                });
            }
        }
    }
    commands.insert_resource(PageOrigin(page.clone()));
    let code = path
        .rsplit_once("/3d/")
        .and_then(|(_, code)| khet_protocol::check_code(code).ok());
    if let Some(code) = code {
        settings.online_server = page;
        next.set(Screen::Online);
        if files.file.seat(&code).is_some() {
            // The player's own game: played from the seat, not joined again.
            requests.write(OnlineRequest::Return(code));
        } else {
            requests.write(OnlineRequest::Connect);
            commands.insert_resource(Linked(code));
        }
    }
}

fn join_linked(
    linked: Res<Linked>,
    mut requests: MessageWriter<OnlineRequest>,
    mut commands: Commands,
) {
    requests.write(OnlineRequest::Send(ClientMsg::Join {
        code: linked.0.clone(),
    }));
    commands.remove_resource::<Linked>();
}

/// Gives the 2D page the seats this page took on its server, so that `/play/CODE` plays them.
fn share_seats(files: Res<OnlineFiles>, origin: Option<Res<PageOrigin>>) {
    let (Some(storage), Some(origin)) = (local_storage(), origin) else {
        return;
    };
    let mut seats: BTreeMap<String, FlatSeat> = flat(&storage, SEATS).unwrap_or_default();
    let mut added = false;
    let now = js_sys::Date::now();
    for seat in files.file.unfinished() {
        if seat.server == origin.0 && !seats.contains_key(&seat.code) {
            seats.insert(
                seat.code.clone(),
                FlatSeat {
                    secret: seat.secret.clone(),
                    color: serde_json::Value::Null,
                    since: now,
                },
            );
            added = true;
        }
    }
    if added {
        keep(&storage, SEATS, &seats);
    }
}

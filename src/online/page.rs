//! The browser build's page address. The server the page came from is the Online screen's
//! server unless the player chose another, and `/3d/CODE`, a friend's link, opens the Online
//! screen and joins game CODE there, as `/play/CODE` does on the 2D page.

use super::{Online, OnlineRequest};
use crate::screen::Screen;
use crate::settings::Settings;
use bevy::prelude::*;
use khet_protocol::ClientMsg;

pub(super) fn plugin(app: &mut App) {
    app.add_systems(Startup, read_address).add_systems(
        Update,
        join_linked
            .run_if(resource_exists::<Linked>.and_then(resource_exists::<Online>))
            .in_set(crate::GameSet::Logic),
    );
}

/// The game the page's address names, joined once connected.
#[derive(Resource)]
struct Linked(String);

fn read_address(
    mut settings: ResMut<Settings>,
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
    let code = path
        .rsplit_once("/3d/")
        .and_then(|(_, code)| khet_protocol::check_code(code).ok());
    if let Some(code) = code {
        settings.online_server = page;
        next.set(Screen::Online);
        requests.write(OnlineRequest::Connect);
        commands.insert_resource(Linked(code));
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

//! The connection half of online play: `online.ron` read at start, and the requests of the
//! Online screen and the table carried out (connect, return to a seat, send, disconnect).

use super::link::Link;
use super::seats::{self, OnlineFile};
use super::state::{LinkState, Online, OnlineFiles, OnlineNotice, OnlineRequest};
use super::table::OnlineTable;
use crate::frames::Waker;
use crate::news::News;
use crate::settings::Settings;
use bevy::prelude::*;
use khet_protocol::ClientMsg;

/// Reads `online.ron` at start (unless a test put its own in place).
pub(super) fn read_files(
    present: Option<Res<OnlineFiles>>,
    mut commands: Commands,
    mut news: MessageWriter<News>,
) {
    if present.is_some() {
        return;
    }
    let path = seats::path();
    let (file, notice) = match &path {
        Some(p) => OnlineFile::read(p),
        None => (OnlineFile::default(), None),
    };
    if let Some(n) = notice {
        news.write(News::Damaged(n));
    }
    commands.insert_resource(OnlineFiles { file, path });
}

pub(super) fn requests(
    mut requests: MessageReader<OnlineRequest>,
    online: Option<Res<Online>>,
    settings: Res<Settings>,
    mut files: ResMut<OnlineFiles>,
    waker: Res<Waker>,
    mut notice: ResMut<OnlineNotice>,
    mut news: MessageWriter<News>,
    mut commands: Commands,
) {
    for request in requests.read() {
        match request {
            OnlineRequest::Connect | OnlineRequest::Return(_) if online.is_none() => {
                let name = match khet_protocol::check_name(&settings.online_name) {
                    Ok(name) => name,
                    Err(e) => {
                        notice.0 = Some(format!("Your name: {e}."));
                        continue;
                    }
                };
                match files.file.ensure_identity() {
                    Ok(true) => files.save(&mut news),
                    Ok(false) => {}
                    Err(e) => {
                        notice.0 = Some(e);
                        continue;
                    }
                }
                notice.0 = None;
                let server = settings.online_server.trim().to_string();
                let link = Link::start(
                    server.clone(),
                    files.file.identity.clone(),
                    name,
                    waker.clone(),
                );
                if let OnlineRequest::Return(code) = request
                    && let Some(seat) = files.file.seat(code)
                {
                    link.send(ClientMsg::Play {
                        code: seat.code.clone(),
                        secret: seat.secret.clone(),
                        since: None,
                    });
                }
                commands.insert_resource(Online {
                    link,
                    server,
                    state: LinkState::Connecting,
                    lobby: Vec::new(),
                    leaders: Vec::new(),
                    waiting: None,
                    mine: Vec::new(),
                    challenges: Vec::new(),
                    tournaments: Vec::new(),
                    tournament: None,
                });
            }
            OnlineRequest::Connect => {}
            OnlineRequest::Return(code) => {
                if let (Some(online), Some(seat)) = (&online, files.file.seat(code)) {
                    online.send(ClientMsg::Play {
                        code: seat.code.clone(),
                        secret: seat.secret.clone(),
                        since: None,
                    });
                }
            }
            OnlineRequest::Disconnect => {
                commands.remove_resource::<Online>();
                commands.remove_resource::<OnlineTable>();
            }
            OnlineRequest::Send(msg) => {
                if let Some(online) = &online {
                    online.send(msg.clone());
                }
            }
            OnlineRequest::Host(_) | OnlineRequest::StopHosting => {}
        }
    }
}

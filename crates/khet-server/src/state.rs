//! What every request handler shares.

use crate::hub::Hub;
use crate::limits::Limits;
use std::sync::Arc;

/// What every request handler shares.
#[derive(Clone)]
pub struct AppState {
    pub(crate) hub: Hub,
    pub(crate) limits: Arc<Limits>,
}

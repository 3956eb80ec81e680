//! "Is it fair?" in the background: the engine's batch of quick games
//! (`khet_engine::fairness`) from the editor's board, away from the frame ([`crate::offload`]),
//! its progress while it runs (on the desktop; the browser's worker reports only the end), and
//! its report. A new request stops the running batch.

use crate::offload::{Job, SentPosition};
use bevy::prelude::*;
use bevy::tasks::Task;
use bevy::tasks::futures::check_ready;
use khet_engine::Position;
use khet_engine::fairness::{Batch, FairReport, measure};
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

/// Ask for a batch of games from this board (one the engine finds no problem with).
#[derive(Message, Clone, Copy, Debug)]
pub struct CheckFairness {
    pub batch: Batch,
    pub board: Position,
}

/// The batch running, or its report.
#[derive(Resource, Default)]
pub enum Fairness {
    #[default]
    None,
    Running {
        task: Task<FairReport>,
        done: Arc<AtomicU32>,
        stop: Arc<AtomicBool>,
        games: u32,
        board: Position,
    },
    Done {
        report: FairReport,
        board: Position,
    },
}

impl Fairness {
    /// Finished games, of how many, while running.
    pub fn progress(&self) -> Option<(u32, u32)> {
        match self {
            Fairness::Running { done, games, .. } => Some((done.load(Ordering::Relaxed), *games)),
            _ => None,
        }
    }
}

pub(super) fn plugin(app: &mut App) {
    crate::frames::add_waking_message::<CheckFairness>(app)
        .init_resource::<Fairness>()
        .add_systems(
            Update,
            (start, finish).chain().in_set(crate::GameSet::Logic),
        );
}

fn start(
    mut requests: MessageReader<CheckFairness>,
    mut fairness: ResMut<Fairness>,
    waker: Res<crate::frames::Waker>,
) {
    let Some(&CheckFairness { batch, board }) = requests.read().last() else {
        return;
    };
    // Games only from a board the engine accepts (the button waits until it does).
    if !board.problems().is_empty() {
        return;
    }
    if let Fairness::Running { stop, .. } = &*fairness {
        stop.store(true, Ordering::Relaxed);
    }
    let done = Arc::new(AtomicU32::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let job = Play {
        board: SentPosition(board),
        batch,
        done: Some(done.clone()),
        stop: Some(stop.clone()),
    };
    let task = crate::offload::spawn(job, waker.clone());
    *fairness = Fairness::Running {
        task,
        done,
        stop,
        games: batch.games,
        board,
    };
}

/// The batch of games, away from the frame.
#[derive(Serialize, Deserialize)]
pub struct Play {
    board: SentPosition,
    batch: Batch,
    /// Counts finished games, and ends the batch; the browser's worker has neither.
    #[serde(skip)]
    done: Option<Arc<AtomicU32>>,
    #[serde(skip)]
    stop: Option<Arc<AtomicBool>>,
}

impl Job for Play {
    const NAME: &'static str = "fairness";
    type Answer = FairReport;

    fn run(self) -> FairReport {
        let done = self.done.unwrap_or_default();
        let stop = self.stop.unwrap_or_default();
        measure(self.board.0, self.batch, &done, &stop)
    }
}

fn finish(mut fairness: ResMut<Fairness>, mut frames: ResMut<crate::frames::NextFrame>) {
    // Polled every frame without marking the resource changed; it changes when the task ends.
    let Fairness::Running { task, board, .. } = fairness.bypass_change_detection() else {
        return;
    };
    // The panel counts the games as they end.
    frames.within(std::time::Duration::from_millis(500));
    let board = *board;
    if let Some(report) = check_ready(task) {
        *fairness = Fairness::Done { report, board };
    }
}

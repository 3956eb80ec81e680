//! "Is it fair?" in the background: the engine's batch of quick games
//! (`khet_engine::fairness`) from the editor's board on Bevy's async compute pool, its
//! progress while it runs, and its report. A new request stops the running batch.

use bevy::prelude::*;
use bevy::tasks::futures::check_ready;
use bevy::tasks::{AsyncComputeTaskPool, Task};
use khet_engine::Position;
use khet_engine::fairness::{Batch, FairReport, measure};
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
    let (d, s) = (done.clone(), stop.clone());
    let waker = waker.clone();
    let task = AsyncComputeTaskPool::get().spawn(async move {
        let report = measure(board, batch, &d, &s);
        waker.wake();
        report
    });
    *fairness = Fairness::Running {
        task,
        done,
        stop,
        games: batch.games,
        board,
    };
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

//! Leases with fencing, on the store itself, on SQLite and on a real PostgreSQL: one node at a
//! time holds a game, a lease that ran out passes to another, and the node that lost it can
//! write nothing more, whatever it believes.

mod common;

use common::{Backend, Db};
use khet_protocol::{ClockSpec, SeatChoice, Status};
use khet_server::store::{GameRow, Lease, Store};

fn open_game(code: &str, owner: &str, until_ms: u64) -> GameRow {
    GameRow {
        code: code.into(),
        setup: "Classic".into(),
        start: khet_engine::Setup::builtin("classic")
            .unwrap()
            .position
            .to_string(),
        rated: false,
        listed: false,
        clock: Some(ClockSpec::minutes(5, 0)),
        creator_choice: SeatChoice::Silver,
        players: [None, None],
        secrets: [None, None],
        status: Status::Playing,
        result: None,
        clocks_ms: [300_000; 2],
        event: 0,
        created_ms: 1,
        started_ms: None,
        ended_ms: None,
        lease: Lease {
            owner: Some(owner.into()),
            token: 1,
            until_ms,
        },
        tournament: None,
        days_per_move: None,
        turn_ms: None,
    }
}

async fn store(db: &Db) -> Store {
    let args = db.args();
    let url = if args[0] == "--database" {
        args[1].to_string_lossy().to_string()
    } else {
        let dir = std::path::PathBuf::from(&args[1]);
        format!("sqlite://{}?mode=rwc", dir.join("test.sqlite3").display())
    };
    Store::open(&url).await.expect("the database opens")
}

fn one_node_at_a_time_and_the_one_that_lost_writes_nothing(backend: Backend) {
    let db = Db::new(backend, "fencing");
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let store = store(&db).await;
        store
            .insert_game(&open_game("fencegam", "a", 10_000))
            .await
            .unwrap();
        // B cannot take what A holds until it runs out…
        assert_eq!(
            store
                .acquire("fencegam", "b", 5_000, 20_000, false)
                .await
                .unwrap(),
            None
        );
        // …A renews it…
        assert_eq!(
            store.renew("a", 30_000).await.unwrap(),
            vec!["fencegam".to_string()]
        );
        assert_eq!(
            store
                .acquire("fencegam", "b", 20_000, 40_000, false)
                .await
                .unwrap(),
            None
        );
        // …and once it ran out, B takes it, with a new token.
        let token = store
            .acquire("fencegam", "b", 31_000, 50_000, false)
            .await
            .unwrap();
        assert_eq!(token, Some(2));
        // A, believing it still owns the game, tries to write: every kind of write is refused,
        // and nothing changed.
        let fenced = |r: Result<(), khet_server::store::StoreError>| {
            assert!(
                r.as_ref()
                    .is_err_and(khet_server::store::StoreError::is_fenced),
                "{:?}",
                r.err()
            );
        };
        fenced(store.add_move("fencegam", 1, 0, "c1d2", [1, 1], 1, 2).await);
        fenced(store.set_event("fencegam", 1, 1).await);
        fenced(store.take_back("fencegam", 1, 0, [1, 1], 1, 2).await);
        let draw = khet_engine::GameResult::Draw {
            reason: khet_engine::DrawReason::Agreement,
        };
        fenced(
            store
                .finish("fencegam", 1, draw, [1, 1], 1, 2, &[], &[])
                .await,
        );
        assert!(store.moves("fencegam").await.unwrap().is_empty());
        let row = store.game("fencegam").await.unwrap().unwrap();
        assert_eq!((row.event, row.status), (0, Status::Playing));
        // A's renewal no longer covers it; B's does, and B's writes go through.
        assert!(store.renew("a", 60_000).await.unwrap().is_empty());
        store
            .add_move("fencegam", 2, 0, "c1d2", [1, 1], 1, 2)
            .await
            .unwrap();
        assert_eq!(
            store.moves("fencegam").await.unwrap(),
            vec!["c1d2".to_string()]
        );
        // A node alone on its database takes its games whatever their leases say.
        let token = store.acquire("fencegam", "c", 0, 1, true).await.unwrap();
        assert_eq!(token, Some(3));
        store.close().await;
    });
}

on_each_backend!(one_node_at_a_time_and_the_one_that_lost_writes_nothing);

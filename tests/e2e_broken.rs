//! The window test's checks can fail: the scripted tour again, with every drawn part left out
//! (`KHET_BROKEN=all`, `src/dev/broken.rs`: the pieces' models, the beam, the highlights, the
//! effects, the laser preview, the editor's marks, the side panels and the overlays), and every
//! picture's check must fail, and every picture must differ from its reference frame. The tour
//! itself still runs to its end: the game's state never waits on what is drawn.
//!
//! Needs what `tests/e2e.rs` needs; `KHET_SKIP_E2E=1` skips it with `cargo test`.

mod common;

use common::tour::{PICTURES, Run, run_tour, say};

#[test]
fn with_its_drawn_parts_left_out_the_tour_fails_every_picture_check() {
    if std::env::var_os("KHET_SKIP_E2E").is_some() {
        eprintln!("skipped: KHET_SKIP_E2E is set");
        return;
    }
    let dir = run_tour("khet-e2e-broken", Some("all"));
    let run = Run::load(&dir);
    let mut passed = Vec::new();
    let mut matched = Vec::new();
    let mut reasons = Vec::new();
    for p in PICTURES {
        let failures = (p.check)(&run);
        match failures.first() {
            Some(first) => reasons.push(format!("{}: {first}", p.name)),
            None => passed.push(p.name),
        }
        match run.against_reference(p) {
            Ok(c) if c.failed.is_empty() => matched.push(p.name),
            Ok(_) => {}
            Err(e) => panic!("{}: {e}", p.name),
        }
    }
    let n = PICTURES.len();
    say(&format!(
        "e2e, broken: {} of {n} picture checks failed, {} of {n} pictures differ from their references",
        n - passed.len(),
        n - matched.len()
    ));
    for r in &reasons {
        say(&format!("  {r}"));
    }
    assert!(
        passed.is_empty(),
        "checks that pass with the drawn parts left out: {passed:?}"
    );
    assert!(
        matched.is_empty(),
        "pictures that match their references with the drawn parts left out: {matched:?}"
    );
    if std::env::var_os("KHET_E2E_DIR").is_none() {
        let _ = std::fs::remove_dir_all(&dir);
    }
}

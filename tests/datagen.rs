//! `amalgam datagen` from the command line: bad arguments are refused with a
//! message and change nothing; a run appends, and a second run adds to the
//! first; the same seed gives the same data, with any number of threads.

mod common;

use common::run_amalgam;

#[test]
fn datagen_appends_repeats_with_its_seed_and_refuses_bad_arguments() {
    let dir = std::env::temp_dir().join(format!("amalgam-datagen-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let file = |n: &str| dir.join(n).to_string_lossy().into_owned();
    let (a, b) = (file("a.txt"), file("b.txt"));
    let args = |out: &str, seed: &str| {
        vec![
            "datagen", "compound", "--games", "2", "--nodes", "500", "--seed", seed, "--out", out,
        ]
        .into_iter()
        .map(String::from)
        .collect::<Vec<_>>()
    };
    assert!(run_amalgam(&args(&a, "3")).0);
    assert!(run_amalgam(&args(&b, "3")).0);
    let first = std::fs::read_to_string(&a).expect("data");
    assert_eq!(
        first,
        std::fs::read_to_string(&b).expect("data"),
        "same seed, same data"
    );
    // Games finish out of order on several threads; the file keeps game
    // order, so it is the one-thread file.
    let threaded = |out: &str, threads: &str| {
        [
            "datagen",
            "chess",
            "--games",
            "8",
            "--nodes",
            "300",
            "--seed",
            "5",
            "--threads",
            threads,
            "--out",
            out,
        ]
        .map(String::from)
        .to_vec()
    };
    let (c, d) = (file("c.txt"), file("d.txt"));
    assert!(run_amalgam(&threaded(&c, "1")).0);
    assert!(run_amalgam(&threaded(&d, "3")).0);
    assert_eq!(
        std::fs::read_to_string(&c).expect("data"),
        std::fs::read_to_string(&d).expect("data"),
        "one thread and three, same data"
    );
    let lines = |t: &str| t.lines().filter(|l| !l.starts_with('#')).count();
    assert!(lines(&first) > 0);
    assert!(run_amalgam(&args(&a, "4")).0);
    let both = std::fs::read_to_string(&a).expect("data");
    assert!(
        both.starts_with(&first) && lines(&both) > lines(&first),
        "appended"
    );
    for bad in [
        "--games 2",
        "--games 0 --nodes 9",
        "--games x --nodes 9",
        "--games 1 --nodes 9 --threads 0",
        "--games 1 --nodes 99999999999999999999",
        "--games 1 --nodes 9 --openings /nonexistent",
    ] {
        let before = std::fs::read_to_string(&b).expect("data");
        let line = format!("datagen compound {bad} --out {b}");
        let (ok, _) = run_amalgam(&line.split_whitespace().collect::<Vec<_>>());
        assert!(!ok, "{bad}");
        assert_eq!(before, std::fs::read_to_string(&b).expect("data"), "{bad}");
    }
    let (ok, _) = run_amalgam(&[
        "datagen", "nosuch", "--games", "1", "--nodes", "9", "--out", &b,
    ]);
    assert!(!ok);
    let _ = std::fs::remove_dir_all(&dir);
}

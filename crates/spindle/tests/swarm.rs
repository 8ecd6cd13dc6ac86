//! Swarm test: random valid stacks built from the TOML vocabulary (seeded), short random
//! workloads through them, and the engine's invariants checked on every run. A failing
//! stack prints its seed and its TOML so it can be replayed.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use spindle::config::RunConfig;
use spindle::engine::{self, RunOptions, Source};
use spindle::workload::{try_open_workload, Arrivals};
use spindle::workload::{ClosedLoop, ClosedSpec, GenSpec, OpenSpec, Pattern, Sizes, Think};

const STACKS: u64 = 240;
const DISKS: [&str; 4] = [
    "hp-c2247a",
    "mimic-base",
    "mimic-less-capacity",
    "cheetah9lp",
];

fn scheduler(rng: &mut ChaCha8Rng, on_drive: bool) -> String {
    let kinds: &[&str] = if on_drive {
        &[
            "fcfs",
            "sstf",
            "look",
            "clook",
            "greedy",
            "fcfs",
            "sstf",
            "look",
            "clook",
            "greedy",
            "smtf",
            "smtf-max",
            "online-set:clook",
            "online-priority:sstf",
            "freeblock",
        ]
    } else {
        &["fcfs", "sstf", "look", "clook"]
    };
    let kind = kinds[rng.gen_range(0..kinds.len())];
    let mut s = format!("kind = \"{kind}\", queue-depth = {}", rng.gen_range(1..=4));
    if rng.gen_bool(0.3) {
        s += &format!(", max-wait-ms = {}", rng.gen_range(1..200));
    }
    if rng.gen_bool(0.3) {
        s += ", hold-overlapping = true";
    }
    if rng.gen_bool(0.3) {
        s += &format!(", merge-kib = {}", [4, 64, 256][rng.gen_range(0..3)]);
    }
    if kind.starts_with("smtf") || kind == "freeblock" {
        // A coarse Disk Mimic: the schedulers' paths, not their accuracy, are tested.
        s += ", mimic-samples = 2";
    }
    if kind == "freeblock" {
        s += &format!(", background-outstanding = {}", rng.gen_range(0..32));
    }
    if kind == "greedy" && rng.gen_bool(0.5) {
        s += &format!(", window = {}", rng.gen_range(1..8));
    }
    s
}

/// A random device subtree as TOML lines under `prefix` (`device`, `device.member`).
fn device(rng: &mut ChaCha8Rng, prefix: &str, depth: u32, out: &mut String) {
    let kinds = ["disk", "raid0", "raid1", "raid4", "raid5", "volumes"];
    let kind = if depth >= 2 {
        "disk"
    } else {
        kinds[rng.gen_range(0..kinds.len())]
    };
    *out += &format!("[{prefix}]\nkind = \"{kind}\"\n");
    if kind == "disk" {
        *out += &format!("disk = \"{}\"\n", DISKS[rng.gen_range(0..DISKS.len())]);
        if rng.gen_bool(0.5) {
            *out += &format!("scheduler = {{ {} }}\n", scheduler(rng, true));
        }
        return;
    }
    let min = match kind {
        "raid5" => 3,
        "raid1" | "raid4" => 2,
        _ => 1,
    };
    *out += &format!("count = {}\n", rng.gen_range(min..=min + 2));
    if kind != "raid1" && kind != "volumes" {
        *out += &format!("stripe-kib = {}\n", [4, 16, 64, 128][rng.gen_range(0..4)]);
    }
    if kind == "raid1" {
        let choice = ["least-busy", "seek", "positioning"][rng.gen_range(0..3)];
        *out += &format!("replica-choice = \"{choice}\"\n");
    }
    let spindles = ["aligned", "spaced", "random"][rng.gen_range(0..3)];
    let mut member = String::new();
    device(rng, &format!("{prefix}.member"), depth + 1, &mut member);
    // Spindles set the angles of member drives, so only an array of drives has them.
    if member.starts_with(&format!("[{prefix}.member]\nkind = \"disk\"")) {
        *out += &format!("spindles = \"{spindles}\"\n");
    }
    *out += &member;
}

fn stack_toml(seed: u64) -> String {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut t = format!(
        "seed = {seed}\n[workload]\ntrace = \"unused\"\n[scheduler]\n{}\n",
        scheduler(&mut rng, true).replace(", ", "\n")
    );
    // Layers above everything, top first.
    for _ in 0..rng.gen_range(0..=2) {
        t += &match rng.gen_range(0..4) {
            0 => format!(
                "[[layer]]\nkind = \"split\"\nmax-kib = {}\n",
                [1, 4, 44, 1024][rng.gen_range(0..4)]
            ),
            1 => format!(
                "[[layer]]\nkind = \"stripe-lock\"\nstripe-kib = {}\n",
                [1, 16, 48, 4096][rng.gen_range(0..4)]
            ),
            _ => format!(
                "[[layer]]\nkind = \"cache\"\nsize-kib = {}\nhit-us = {}\n",
                [4, 64, 1024, 65536][rng.gen_range(0..4)],
                rng.gen_range(0..100)
            ),
        };
    }
    let mut dev = String::new();
    device(&mut rng, "device", 0, &mut dev);
    // A host queue above the whole tree, LBN-ordered (it has no drive model to ask).
    if rng.gen_bool(0.4) {
        t += &format!(
            "[array-scheduler]\n{}\n",
            scheduler(&mut rng, false).replace(", ", "\n")
        );
    }
    t + &dev
}

#[test]
fn random_stacks_keep_the_engine_invariants() {
    let mut kinds_seen = std::collections::BTreeSet::new();
    let mut layered = 0;
    for seed in 0..STACKS {
        let toml = stack_toml(seed);
        let ctx = format!("swarm seed {seed}:\n{toml}");
        let c = RunConfig::from_toml(&toml, "swarm.toml").unwrap_or_else(|e| panic!("{ctx}\n{e}"));
        kinds_seen.insert(c.device_tree().unwrap().kind());
        layered += usize::from(!c.layer.is_empty());
        let run = || {
            let mut built = c.build().unwrap_or_else(|e| panic!("{ctx}\n{e}"));
            let cap = built.units.units[0].1;
            let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0xABCD);
            let gen = GenSpec {
                pattern: if rng.gen_bool(0.5) {
                    Pattern::Uniform
                } else {
                    Pattern::Sequential { run_len: 8 }
                },
                sizes: Sizes::Uniform { min: 1, max: 256 },
                read_fraction: rng.gen_range(0.0..=1.0),
                align: None,
                start: 0,
                span: Some(cap.min(1 << 22)),
                capacity: Some(cap),
            };
            let n = rng.gen_range(50..250u64);
            let mut logs = Vec::new();
            let totals = if rng.gen_bool(0.5) {
                let recs = try_open_workload(&OpenSpec {
                    gen,
                    arrivals: Arrivals::Poisson {
                        rate_per_s: rng.gen_range(20.0..2000.0),
                    },
                    count: n,
                    seed,
                    device: 0,
                })
                .unwrap();
                engine::run(
                    built.root.as_mut(),
                    &built.units,
                    Source::records(&recs),
                    RunOptions::default(),
                    &mut |l| logs.push(*l),
                )
            } else {
                let mut w = ClosedLoop::new(&ClosedSpec {
                    processes: rng.gen_range(1..8),
                    think: Think::None,
                    requests: n,
                    gen,
                    seed,
                    device: 0,
                })
                .unwrap();
                engine::run(
                    built.root.as_mut(),
                    &built.units,
                    Source::Closed(&mut w),
                    RunOptions::default(),
                    &mut |l| logs.push(*l),
                )
            }
            .unwrap_or_else(|e| panic!("{ctx}\n{e}"));
            // Every request completed exactly once.
            assert_eq!(totals.requests, n, "{ctx}");
            let mut ids: Vec<u64> = logs
                .iter()
                .filter(|l| !l.background)
                .map(|l| l.id)
                .collect();
            ids.sort_unstable();
            ids.dedup();
            assert_eq!(ids.len() as u64, n, "{ctx}");
            // Each request's life is in order, and the stack drained.
            for l in &logs {
                assert!(
                    l.arrival <= l.dispatch && l.dispatch <= l.start && l.start <= l.done,
                    "{ctx}\n{l:?}"
                );
            }
            assert_eq!(built.root.outstanding(), 0, "{ctx}");
            assert_eq!(built.root.next_wake(), None, "{ctx}");
            logs
        };
        // Same seed, same run, bit for bit.
        let a = run();
        let b = run();
        assert_eq!(format!("{a:?}"), format!("{b:?}"), "{ctx}");
    }
    assert!(kinds_seen.len() >= 6, "{kinds_seen:?}");
    assert!(
        layered >= STACKS as usize / 3,
        "{layered} stacks with layers"
    );
}

/// Bad stacks: every number of a valid stack replaced by an extreme (0, 1, huge,
/// negative, fractional) must build or be refused with a message, never panic or hang.
#[test]
fn extreme_values_in_a_stack_are_refused_or_built() {
    let extremes = [
        "0",
        "1",
        "-1",
        "0.5",
        "4294967295",
        "18446744073709551615",
        "9223372036854775807",
        "1e308",
        "nan",
    ];
    let mut refused = 0;
    for seed in 0..40u64 {
        let base = stack_toml(seed);
        let numbers: Vec<(usize, usize)> = {
            let b = base.as_bytes();
            let mut v = Vec::new();
            let mut i = 0;
            while i < b.len() {
                if b[i].is_ascii_digit() && (i == 0 || !b[i - 1].is_ascii_alphanumeric()) {
                    let j = (i..b.len())
                        .find(|&j| !b[j].is_ascii_digit())
                        .unwrap_or(b.len());
                    if !(i > 0 && b[i - 1] == b'-') {
                        v.push((i, j));
                    }
                    i = j;
                } else {
                    i += 1;
                }
            }
            v
        };
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        for _ in 0..6 {
            let Some(&(i, j)) = numbers.get(rng.gen_range(0..numbers.len().max(1))) else {
                continue;
            };
            let x = extremes[rng.gen_range(0..extremes.len())];
            let toml = format!("{}{}{}", &base[..i], x, &base[j..]);
            let Ok(c) = RunConfig::from_toml(&toml, "bad.toml") else {
                refused += 1;
                continue;
            };
            // Building must not allocate without bound: member counts and sizes are
            // checked first.
            match c.build() {
                Ok(b) => assert!(b.drives <= 3 * 3 * 3 + 3, "{toml}"),
                Err(e) => {
                    refused += 1;
                    assert!(!e.to_string().is_empty());
                }
            }
        }
    }
    assert!(refused > 20, "{refused}");
}

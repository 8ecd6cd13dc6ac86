//! Synthetic workloads: determinism, distributions, bounds, closed-loop protocol,
//! time compression, spec (de)serialization and validation.

// Test names are prefixed by the module so `cargo test workload` selects them.
mod workload {
    use proptest::prelude::*;
    use spindle::time::SimTime;
    use spindle::trace::IoRecord;
    use spindle::workload::*;
    use std::collections::{BinaryHeap, HashMap};

    fn gen_spec(pattern: Pattern, sizes: Sizes, capacity: u64) -> GenSpec {
        GenSpec {
            pattern,
            sizes,
            read_fraction: 0.5,
            align: None,
            start: 0,
            span: None,
            capacity: Some(capacity),
        }
    }

    fn open_spec(gen: GenSpec, arrivals: Arrivals, count: u64, seed: u64) -> OpenSpec {
        OpenSpec {
            gen,
            arrivals,
            count,
            seed,
            device: 0,
        }
    }

    fn fixed(sectors: u32) -> Sizes {
        Sizes::Fixed { sectors }
    }

    const MS: u64 = 1_000_000;

    #[test]
    fn same_seed_same_output_different_seed_different() {
        let patterns = [
            Pattern::Uniform,
            Pattern::Sequential { run_len: 8 },
            Pattern::Walk { max_step: 10_000 },
            Pattern::Zipf {
                theta: 0.9,
                buckets: 100,
            },
        ];
        for pattern in patterns {
            let gen = gen_spec(pattern, Sizes::Uniform { min: 1, max: 64 }, 1 << 30);
            let spec = open_spec(gen, Arrivals::Poisson { rate_per_s: 500.0 }, 1000, 42);
            let a = open_workload(&spec);
            assert_eq!(a, open_workload(&spec));
            let b = open_workload(&OpenSpec {
                seed: 43,
                ..spec.clone()
            });
            assert_ne!(a, b);
            assert_ne!(
                a.iter().map(|r| r.arrival).collect::<Vec<_>>(),
                b.iter().map(|r| r.arrival).collect::<Vec<_>>()
            );
            // The addresses are exactly those of a RequestGen with the same seed.
            let mut g = RequestGen::new(&spec.gen, spec.seed).unwrap();
            for r in &a {
                assert_eq!(g.next(), (r.lbn, r.blocks, r.write));
            }
        }
    }

    #[test]
    fn workload_arrivals_do_not_change_addresses() {
        let gen = gen_spec(Pattern::Uniform, fixed(8), 1 << 30);
        let a = open_workload(&open_spec(
            gen.clone(),
            Arrivals::Fixed { interval_ns: MS },
            500,
            7,
        ));
        let b = open_workload(&open_spec(
            gen,
            Arrivals::Poisson { rate_per_s: 10.0 },
            500,
            7,
        ));
        assert!(a
            .iter()
            .zip(&b)
            .all(|(x, y)| (x.lbn, x.blocks, x.write) == (y.lbn, y.blocks, y.write)));
    }

    #[test]
    fn fixed_arrivals_and_device() {
        let spec = OpenSpec {
            device: 3,
            ..open_spec(
                gen_spec(Pattern::Uniform, fixed(8), 1 << 20),
                Arrivals::Fixed {
                    interval_ns: 2 * MS,
                },
                10,
                1,
            )
        };
        let recs = open_workload(&spec);
        assert_eq!(recs.len(), 10);
        for (i, r) in recs.iter().enumerate() {
            assert_eq!(r.arrival, SimTime(i as u64 * 2 * MS));
            assert_eq!(r.device, 3);
            assert!(r.content.is_empty());
        }
    }

    #[test]
    fn poisson_mean_interarrival() {
        let n = 100_000;
        let spec = open_spec(
            gen_spec(Pattern::Uniform, fixed(8), 1 << 30),
            Arrivals::Poisson { rate_per_s: 100.0 },
            n + 1,
            5,
        );
        let recs = open_workload(&spec);
        assert_eq!(recs[0].arrival, SimTime::ZERO);
        assert!(recs.windows(2).all(|w| w[0].arrival <= w[1].arrival));
        let mean = recs[n as usize].arrival.0 as f64 / n as f64;
        let expected = 1e9 / 100.0;
        assert!(
            (mean / expected - 1.0).abs() < 0.03,
            "mean interarrival {mean} ns, expected {expected}"
        );
        // Exponential: the standard deviation equals the mean.
        let gaps: Vec<f64> = recs
            .windows(2)
            .map(|w| (w[1].arrival.0 - w[0].arrival.0) as f64)
            .collect();
        let var = gaps.iter().map(|g| (g - mean).powi(2)).sum::<f64>() / gaps.len() as f64;
        assert!((var.sqrt() / expected - 1.0).abs() < 0.03);
    }

    #[test]
    fn workload_read_fraction() {
        for (frac, lo, hi) in [(0.0, 0.0, 0.0), (1.0, 1.0, 1.0), (0.66, 0.65, 0.67)] {
            let mut gen = gen_spec(Pattern::Uniform, fixed(8), 1 << 30);
            gen.read_fraction = frac;
            let recs = open_workload(&open_spec(
                gen,
                Arrivals::Fixed { interval_ns: 1 },
                50_000,
                3,
            ));
            let reads = recs.iter().filter(|r| !r.write).count() as f64 / recs.len() as f64;
            assert!(
                (lo..=hi).contains(&reads),
                "read fraction {frac}: got {reads}"
            );
        }
    }

    #[test]
    fn zipf_hottest_bucket_matches_theory() {
        let (n, theta, width) = (1000u64, 0.9, 64u64);
        let spec = gen_spec(Pattern::Zipf { theta, buckets: n }, fixed(8), n * width);
        let mut g = RequestGen::new(&spec, 11).unwrap();
        let draws = 100_000;
        let mut counts = vec![0u32; n as usize];
        for _ in 0..draws {
            let (lbn, blocks, _) = g.next();
            // Buckets are 64 sectors, requests 8-aligned: each lies in one bucket.
            assert_eq!(lbn / width, (lbn + blocks as u64 - 1) / width);
            counts[(lbn / width) as usize] += 1;
        }
        let hottest = (0..n as usize).max_by_key(|&b| counts[b]).unwrap();
        let layout = g.zipf_layout().unwrap();
        assert_eq!(
            hottest as u32, layout[0],
            "the most popular bucket is rank 1"
        );
        let h: f64 = (1..=n).map(|k| (k as f64).powf(-theta)).sum();
        let p1 = 1.0 / h;
        let f1 = counts[hottest] as f64 / draws as f64;
        assert!(
            (f1 / p1 - 1.0).abs() < 0.05,
            "hottest bucket frequency {f1}, theory {p1}"
        );
        // Rank 2 too, for good measure.
        let f2 = counts[layout[1] as usize] as f64 / draws as f64;
        let p2 = 2f64.powf(-theta) / h;
        assert!(
            (f2 / p2 - 1.0).abs() < 0.08,
            "rank-2 frequency {f2}, theory {p2}"
        );
        // Hot spots are scattered: the top ten ranks are not ten adjacent buckets.
        let mut top: Vec<u32> = layout[..10].to_vec();
        top.sort_unstable();
        assert!(top[9] - top[0] > 10);
        // Different seed, different layout.
        let g2 = RequestGen::new(&spec, 12).unwrap();
        assert_ne!(g2.zipf_layout().unwrap()[..10], layout[..10]);
    }

    #[test]
    fn uniform_covers_span() {
        let mut spec = gen_spec(Pattern::Uniform, fixed(8), 10_000_000);
        spec.start = 1_000_000;
        spec.span = Some(4_000_000);
        let mut g = RequestGen::new(&spec, 9).unwrap();
        let n = 100_000;
        let (mut sum, mut min, mut max) = (0f64, u64::MAX, 0u64);
        for _ in 0..n {
            let (lbn, blocks, _) = g.next();
            assert!(lbn >= 1_000_000 && lbn + blocks as u64 <= 5_000_000);
            sum += lbn as f64;
            min = min.min(lbn);
            max = max.max(lbn);
        }
        let mean = sum / n as f64;
        assert!(
            (mean - 3_000_000.0).abs() < 0.01 * 4_000_000.0,
            "mean {mean}"
        );
        assert!(
            min < 1_000_000 + 1000 && max > 5_000_000 - 1000,
            "min {min} max {max}"
        );
    }

    #[test]
    fn sequential_runs_are_consecutive() {
        for sizes in [fixed(8), Sizes::Uniform { min: 1, max: 128 }] {
            let run_len = 16;
            let mut spec = gen_spec(Pattern::Sequential { run_len }, sizes, 1 << 40);
            spec.align = Some(8);
            let mut g = RequestGen::new(&spec, 2).unwrap();
            let mut prev_end = None;
            let mut starts = 0;
            for i in 0..16_000u64 {
                let (lbn, blocks, _) = g.next();
                if i % run_len == 0 {
                    starts += 1;
                    assert_eq!(lbn % 8, 0, "a run starts aligned");
                    if let Some(e) = prev_end {
                        assert_ne!(
                            lbn, e,
                            "a new run starts elsewhere (with overwhelming probability)"
                        );
                    }
                } else {
                    assert_eq!(Some(lbn), prev_end, "request {i} continues its run");
                }
                prev_end = Some(lbn + blocks as u64);
            }
            assert_eq!(starts, 1000);
        }
    }

    #[test]
    fn sequential_run_cut_at_region_end() {
        // A 64-sector region, 8-sector requests, runs of 100: every run is cut short.
        let spec = gen_spec(Pattern::Sequential { run_len: 100 }, fixed(8), 64);
        let mut g = RequestGen::new(&spec, 1).unwrap();
        for _ in 0..1000 {
            let (lbn, blocks, _) = g.next();
            assert!(lbn + blocks as u64 <= 64 && lbn % 8 == 0);
        }
    }

    #[test]
    fn walk_steps_are_bounded_by_the_inter_request_distance() {
        // The thesis's inter-request distance: first block of this request minus the
        // last block of the previous one.
        let max_step = 51_200u64;
        for (sizes, align) in [
            (fixed(2), None),
            (Sizes::Uniform { min: 1, max: 64 }, Some(8)),
        ] {
            let mut spec = gen_spec(Pattern::Walk { max_step }, sizes, 1 << 24);
            spec.align = align;
            let mut g = RequestGen::new(&spec, 7).unwrap();
            let mut prev_last: Option<u64> = None;
            let (mut largest, mut lo, mut hi) = (0u64, u64::MAX, 0u64);
            for _ in 0..20_000 {
                let (lbn, blocks, _) = g.next();
                assert_eq!(lbn % align.unwrap_or(blocks as u64), 0);
                assert!(lbn + blocks as u64 <= 1 << 24);
                if let Some(p) = prev_last {
                    let d = lbn.abs_diff(p);
                    assert!(d <= max_step, "step {d} > {max_step}");
                    largest = largest.max(d);
                }
                prev_last = Some(lbn + blocks as u64 - 1);
                (lo, hi) = (lo.min(lbn), hi.max(lbn));
            }
            // The bound is reached, and the walk wanders far beyond one step.
            assert!(
                largest as f64 >= 0.99 * max_step as f64,
                "largest {largest}"
            );
            assert!(hi - lo > 10 * max_step, "covered {lo}..{hi}");
        }
        let p: Pattern = serde_json::from_str(r#"{ "kind": "walk", "max-step": 51200 }"#).unwrap();
        assert_eq!(p, Pattern::Walk { max_step: 51_200 });
    }

    #[test]
    fn walk_stays_in_its_region() {
        // Steps larger than the region, and steps smaller than the alignment (the
        // nearest aligned position is taken): always inside, always aligned.
        for max_step in [1u64, 3, 1_000_000] {
            let mut spec = gen_spec(Pattern::Walk { max_step }, fixed(8), 1 << 20);
            spec.start = 4096;
            spec.span = Some(64);
            let mut g = RequestGen::new(&spec, 3).unwrap();
            for _ in 0..1000 {
                let (lbn, blocks, _) = g.next();
                assert!((4096..4096 + 64).contains(&lbn) && lbn + blocks as u64 <= 4096 + 64);
                assert_eq!((lbn - 4096) % 8, 0);
            }
        }
    }

    #[test]
    fn windowed_replay_releases_the_trace_in_order() {
        let recs: Vec<IoRecord> = (0..7u64)
            .map(|i| IoRecord {
                arrival: SimTime(1_000 * i),
                device: 0,
                lbn: 100 * i,
                blocks: 2,
                write: i % 2 == 0,
                content: Vec::new(),
            })
            .collect();
        let mut w = WindowedReplay::new(recs.clone(), 3);
        let first = w.start();
        assert_eq!(first.len(), 3);
        for (i, (slot, r)) in first.iter().enumerate() {
            assert_eq!((*slot, r.arrival), (i as u32, SimTime::ZERO));
            assert_eq!((r.lbn, r.write), (recs[i].lbn, recs[i].write));
        }
        for i in 3..7 {
            let r = w.on_complete((i % 3) as u32, SimTime(5 * i)).unwrap();
            assert_eq!((r.lbn, r.arrival), (recs[i as usize].lbn, SimTime(5 * i)));
        }
        assert_eq!(w.issued(), 7);
        assert!(w.on_complete(0, SimTime(99)).is_none());
        // A window larger than the trace starts everything.
        assert_eq!(WindowedReplay::new(recs, 10).start().len(), 7);
    }

    #[test]
    fn alignment_holds() {
        let choice = Sizes::Choice {
            choices: vec![(3, 1.0), (8, 2.0), (24, 1.0), (128, 0.5)],
        };
        for pattern in [
            Pattern::Uniform,
            Pattern::Zipf {
                theta: 1.2,
                buckets: 777,
            },
        ] {
            // Explicit alignment, relative to start.
            let mut spec = gen_spec(pattern.clone(), choice.clone(), 1_000_000);
            spec.start = 4096;
            spec.align = Some(16);
            let mut g = RequestGen::new(&spec, 4).unwrap();
            for _ in 0..20_000 {
                let (lbn, blocks, _) = g.next();
                assert_eq!((lbn - 4096) % 16, 0);
                assert!(lbn + blocks as u64 <= 1_000_000);
            }
            // Default: each request aligned to its own size.
            spec.align = None;
            let mut g = RequestGen::new(&spec, 4).unwrap();
            for _ in 0..20_000 {
                let (lbn, blocks, _) = g.next();
                assert_eq!((lbn - 4096) % blocks as u64, 0, "{lbn} {blocks}");
            }
        }
    }

    #[test]
    fn nothing_exceeds_capacity() {
        let sizes = [
            fixed(64),
            Sizes::Uniform { min: 1, max: 100 },
            Sizes::Choice {
                choices: vec![(100, 1.0), (1, 1.0)],
            },
        ];
        let patterns = [
            Pattern::Uniform,
            Pattern::Sequential { run_len: 50 },
            Pattern::Zipf {
                theta: 0.5,
                buckets: 1000,
            },
            Pattern::Zipf {
                theta: 3.0,
                buckets: 7,
            },
        ];
        for s in &sizes {
            for p in &patterns {
                for align in [None, Some(1), Some(7), Some(5000)] {
                    let mut spec = gen_spec(p.clone(), s.clone(), 1000);
                    spec.align = align;
                    let mut g = RequestGen::new(&spec, 8).unwrap();
                    for _ in 0..5000 {
                        let (lbn, blocks, _) = g.next();
                        assert!(
                            blocks >= 1 && lbn + blocks as u64 <= 1000,
                            "{p:?} {s:?} {align:?}: {lbn}+{blocks}"
                        );
                    }
                }
            }
        }
    }

    /// Runs a closed loop against a fake drive serving one request per process at a
    /// time, taking `service(record)` ns. Checks the protocol; returns every issued
    /// request with its process.
    fn drive_closed(
        cl: &mut ClosedLoop,
        service: impl Fn(&IoRecord) -> u64,
    ) -> Vec<(u32, IoRecord)> {
        let think = match cl.spec().think {
            Think::Fixed { ns } => Some(ns),
            Think::None => Some(0),
            Think::Exponential { .. } => None,
        };
        let mut all = Vec::new();
        // Min-heap on (completion time, process).
        let mut heap = BinaryHeap::new();
        for (p, r) in cl.start() {
            assert_eq!(r.arrival, SimTime::ZERO);
            heap.push(std::cmp::Reverse((r.arrival.0 + service(&r), p)));
            all.push((p, r));
        }
        let mut outstanding: HashMap<u32, u32> = HashMap::new();
        for (p, _) in &all {
            *outstanding.entry(*p).or_default() += 1;
        }
        assert!(outstanding.values().all(|&n| n == 1));
        while let Some(std::cmp::Reverse((done, p))) = heap.pop() {
            if let Some(r) = cl.on_complete(p, SimTime(done)) {
                if let Some(t) = think {
                    assert_eq!(
                        r.arrival,
                        SimTime(done + t),
                        "arrival follows completion by the think time"
                    );
                } else {
                    assert!(r.arrival >= SimTime(done));
                }
                heap.push(std::cmp::Reverse((r.arrival.0 + service(&r), p)));
                all.push((p, r));
            }
        }
        assert_eq!(cl.remaining(), 0);
        all
    }

    fn closed_spec(processes: u32, think: Think, requests: u64, seed: u64) -> ClosedSpec {
        ClosedSpec {
            processes,
            think,
            requests,
            gen: gen_spec(
                Pattern::Zipf {
                    theta: 0.8,
                    buckets: 50,
                },
                Sizes::Uniform { min: 1, max: 16 },
                1 << 24,
            ),
            seed,
            device: 0,
        }
    }

    #[test]
    fn closed_loop_arrivals_follow_completions() {
        let spec = closed_spec(4, Think::Fixed { ns: MS }, 103, 1);
        let mut cl = ClosedLoop::new(&spec).unwrap();
        let all = drive_closed(&mut cl, |r| 3 * MS + (r.lbn % 5) * MS);
        assert_eq!(all.len(), 103);
        assert_eq!(cl.issued(), 103);
        assert_eq!(
            all[..4].iter().map(|x| x.0).collect::<Vec<_>>(),
            vec![0, 1, 2, 3]
        );
        // Once the total is reached, completions yield nothing.
        assert!(cl.on_complete(0, SimTime(u64::MAX)).is_none());

        // Deterministic.
        let again = drive_closed(&mut ClosedLoop::new(&spec).unwrap(), |r| {
            3 * MS + (r.lbn % 5) * MS
        });
        assert_eq!(all, again);
        // start() restarts.
        let restarted = drive_closed(&mut cl, |r| 3 * MS + (r.lbn % 5) * MS);
        assert_eq!(all, restarted);
        // Another seed, other requests.
        let other = drive_closed(
            &mut ClosedLoop::new(&ClosedSpec {
                seed: 2,
                ..spec.clone()
            })
            .unwrap(),
            |r| 3 * MS + (r.lbn % 5) * MS,
        );
        assert_ne!(all, other);
    }

    #[test]
    fn closed_loop_per_process_sequences_ignore_timing() {
        let spec = closed_spec(5, Think::Exponential { mean_ns: 2e6 }, 200, 3);
        let a = drive_closed(&mut ClosedLoop::new(&spec).unwrap(), |_| MS);
        let b = drive_closed(&mut ClosedLoop::new(&spec).unwrap(), |r| {
            (r.lbn % 7 + 1) * MS
        });
        for p in 0..5 {
            let pa: Vec<_> = a
                .iter()
                .filter(|x| x.0 == p)
                .map(|x| (x.1.lbn, x.1.blocks, x.1.write))
                .collect();
            let pb: Vec<_> = b
                .iter()
                .filter(|x| x.0 == p)
                .map(|x| (x.1.lbn, x.1.blocks, x.1.write))
                .collect();
            let n = pa.len().min(pb.len());
            assert!(n > 0);
            assert_eq!(pa[..n], pb[..n], "process {p}");
        }
    }

    #[test]
    fn closed_loop_fewer_requests_than_processes() {
        let spec = closed_spec(8, Think::None, 3, 1);
        let mut cl = ClosedLoop::new(&spec).unwrap();
        let first = cl.start();
        assert_eq!(first.len(), 3);
        assert!(cl.on_complete(0, SimTime(5)).is_none());
        let spec = closed_spec(2, Think::None, 0, 1);
        assert!(ClosedLoop::new(&spec).unwrap().start().is_empty());
    }

    #[test]
    fn compress_divides_times() {
        let recs = open_workload(&open_spec(
            gen_spec(Pattern::Uniform, fixed(8), 1 << 20),
            Arrivals::Poisson { rate_per_s: 1000.0 },
            1000,
            1,
        ));
        let c = compress(&recs, 4.0);
        assert_eq!(c.len(), recs.len());
        for (a, b) in recs.iter().zip(&c) {
            assert_eq!(b.arrival.0, (a.arrival.0 as f64 / 4.0).round() as u64);
            assert_eq!(
                (a.lbn, a.blocks, a.write, a.device),
                (b.lbn, b.blocks, b.write, b.device)
            );
        }
        assert!(c.windows(2).all(|w| w[0].arrival <= w[1].arrival));
        assert_eq!(compress(&recs, 1.0), recs);
        let slow = compress(&recs, 0.5);
        assert_eq!(slow[10].arrival.0, recs[10].arrival.0 * 2);
    }

    #[test]
    #[should_panic(expected = "compression factor")]
    fn compress_rejects_zero_factor() {
        compress(&[], 0.0);
    }

    #[test]
    fn overlaps_same_blocks_same_device() {
        let r = |device, lbn, blocks| IoRecord {
            arrival: SimTime::ZERO,
            device,
            lbn,
            blocks,
            write: false,
            content: vec![],
        };
        assert!(overlaps(&r(0, 100, 8), &r(0, 107, 8)));
        assert!(overlaps(&r(0, 107, 8), &r(0, 100, 8)));
        assert!(overlaps(&r(0, 100, 8), &r(0, 102, 2)));
        assert!(!overlaps(&r(0, 100, 8), &r(0, 108, 8)));
        assert!(!overlaps(&r(0, 108, 8), &r(0, 100, 8)));
        assert!(!overlaps(&r(0, 100, 8), &r(1, 100, 8)));
        assert!(overlaps(&r(0, u64::MAX - 1, 8), &r(0, u64::MAX - 1, 1)));
    }

    #[test]
    fn workload_spec_from_config_shape() {
        // The TOML example, as the equivalent JSON (same serde data model).
        let json = r#"{
            "kind": "synthetic",
            "pattern": { "kind": "zipf", "theta": 0.9, "buckets": 1000 },
            "sizes": { "kind": "fixed", "sectors": 8 },
            "read-fraction": 0.66,
            "arrivals": { "kind": "poisson", "rate-per-s": 100 },
            "count": 10000,
            "seed": 1
        }"#;
        let spec: WorkloadSpec = serde_json::from_str(json).unwrap();
        let WorkloadSpec::Synthetic(open) = &spec else {
            panic!("{spec:?}")
        };
        assert_eq!(
            open.gen.pattern,
            Pattern::Zipf {
                theta: 0.9,
                buckets: 1000
            }
        );
        assert_eq!(open.gen.sizes, Sizes::Fixed { sectors: 8 });
        assert_eq!(open.gen.read_fraction, 0.66);
        assert_eq!(open.arrivals, Arrivals::Poisson { rate_per_s: 100.0 });
        assert_eq!((open.count, open.seed, open.device), (10_000, 1, 0));
        assert_eq!(
            (
                open.gen.align,
                open.gen.start,
                open.gen.span,
                open.gen.capacity
            ),
            (None, 0, None, None)
        );
        // No capacity yet: a clear error; then filled in from the disk.
        assert_eq!(spec.validate().unwrap_err().field, "capacity");
        let spec = spec.with_capacity(17_783_240);
        spec.validate().unwrap();
        // Round trip.
        let back: WorkloadSpec =
            serde_json::from_str(&serde_json::to_string(&spec).unwrap()).unwrap();
        assert_eq!(back, spec);

        let closed = r#"{
            "kind": "closed", "processes": 8, "think": { "kind": "exponential", "mean-ns": 5e6 },
            "requests": 1000, "pattern": { "kind": "sequential", "run-len": 16 },
            "sizes": { "kind": "choice", "choices": [[8, 3], [128, 1.0]] },
            "read-fraction": 1, "align": 8, "capacity": 1000000, "device": 2
        }"#;
        let spec: WorkloadSpec = serde_json::from_str(closed).unwrap();
        let WorkloadSpec::Closed(c) = &spec else {
            panic!("{spec:?}")
        };
        assert_eq!(c.think, Think::Exponential { mean_ns: 5e6 });
        assert_eq!(
            c.gen.sizes,
            Sizes::Choice {
                choices: vec![(8, 3.0), (128, 1.0)]
            }
        );
        assert_eq!(
            (c.processes, c.requests, c.seed, c.device, c.gen.align),
            (8, 1000, 0, 2, Some(8))
        );
        spec.validate().unwrap();
        let back: WorkloadSpec =
            serde_json::from_str(&serde_json::to_string(&spec).unwrap()).unwrap();
        assert_eq!(back, spec);
        // Think defaults to none.
        let t: ClosedSpec = serde_json::from_str(
            r#"{"processes": 1, "requests": 1, "pattern": {"kind": "uniform"},
                "sizes": {"kind": "uniform", "min": 1, "max": 8}, "read-fraction": 0.5}"#,
        )
        .unwrap();
        assert_eq!(t.think, Think::None);
    }

    #[test]
    fn workload_spec_rejects_unknown_fields() {
        let bad = [
            // misspelt top-level field
            r#"{"kind": "synthetic", "pattern": {"kind": "uniform"}, "sizes": {"kind": "fixed", "sectors": 8},
                "read_fraction": 0.5, "arrivals": {"kind": "fixed", "interval-ns": 1}, "count": 1}"#,
            // unknown field inside a tagged enum
            r#"{"kind": "synthetic", "pattern": {"kind": "zipf", "theta": 1, "buckets": 2, "skew": 1},
                "sizes": {"kind": "fixed", "sectors": 8}, "read-fraction": 0.5,
                "arrivals": {"kind": "fixed", "interval-ns": 1}, "count": 1}"#,
            // unknown kind
            r#"{"kind": "synthetic", "pattern": {"kind": "hotcold"}, "sizes": {"kind": "fixed", "sectors": 8},
                "read-fraction": 0.5, "arrivals": {"kind": "fixed", "interval-ns": 1}, "count": 1}"#,
        ];
        for b in bad {
            assert!(serde_json::from_str::<WorkloadSpec>(b).is_err(), "{b}");
        }
    }

    #[test]
    fn validation_errors_name_the_field() {
        let ok = open_spec(
            gen_spec(Pattern::Uniform, fixed(8), 1000),
            Arrivals::Fixed { interval_ns: 1 },
            10,
            0,
        );
        ok.validate().unwrap();
        let check = |f: &dyn Fn(&mut OpenSpec), msg: &str| {
            let mut s = ok.clone();
            f(&mut s);
            let e = s.validate().unwrap_err();
            assert_eq!(e.to_string(), msg);
            assert_eq!(try_open_workload(&s).unwrap_err(), e);
        };
        check(
            &|s| s.gen.read_fraction = 1.5,
            "read-fraction must be within 0..=1, got 1.5",
        );
        check(
            &|s| s.gen.read_fraction = f64::NAN,
            "read-fraction must be within 0..=1, got NaN",
        );
        check(
            &|s| s.gen.capacity = None,
            "capacity must be given (device sectors; normally filled in from the disk model)",
        );
        check(
            &|s| s.gen.start = 1000,
            "start must be below the capacity (1000 sectors), got 1000",
        );
        check(
            &|s| s.gen.span = Some(1001),
            "span must end within the capacity: start 0 + span 1001 > 1000 sectors",
        );
        check(&|s| s.gen.span = Some(0), "span must be at least 1, got 0");
        check(
            &|s| s.gen.align = Some(0),
            "align must be at least 1 sector, got 0",
        );
        check(
            &|s| s.gen.sizes = fixed(0),
            "sizes.sectors must be at least 1, got 0",
        );
        check(
            &|s| s.gen.sizes = fixed(2000),
            "sizes must fit in the region: the largest request is 2000 sectors, the span 1000",
        );
        check(
            &|s| s.gen.sizes = Sizes::Uniform { min: 9, max: 8 },
            "sizes.max must be >= sizes.min (9), got 8",
        );
        check(
            &|s| s.gen.sizes = Sizes::Choice { choices: vec![] },
            "sizes.choices must not be empty",
        );
        check(
            &|s| {
                s.gen.sizes = Sizes::Choice {
                    choices: vec![(8, 1.0), (4, -1.0)],
                }
            },
            "sizes.choices[1] must have a finite weight >= 0, got -1",
        );
        check(
            &|s| {
                s.gen.sizes = Sizes::Choice {
                    choices: vec![(8, 0.0)],
                }
            },
            "sizes.choices must have a finite, positive total weight, got 0",
        );
        check(
            &|s| s.gen.pattern = Pattern::Sequential { run_len: 0 },
            "pattern.run-len must be at least 1, got 0",
        );
        check(
            &|s| s.gen.pattern = Pattern::Walk { max_step: 0 },
            "pattern.max-step must be at least 1, got 0",
        );
        check(
            &|s| {
                s.gen.pattern = Pattern::Zipf {
                    theta: -1.0,
                    buckets: 10,
                }
            },
            "pattern.theta must be finite and >= 0, got -1",
        );
        check(
            &|s| s.gen.pattern = Pattern::Zipf { theta: 1.0, buckets: 1001 },
            "pattern.buckets must be within 1..=1000 (at most one per sector of the span and at most 16777216), got 1001",
        );
        check(
            &|s| s.arrivals = Arrivals::Poisson { rate_per_s: 0.0 },
            "arrivals.rate-per-s must be within (0, 1e9] (one request per ns at most), got 0",
        );

        let c = closed_spec(0, Think::None, 10, 0);
        assert_eq!(
            ClosedLoop::new(&c).unwrap_err().to_string(),
            "processes must be within 1..=65536, got 0"
        );
        let c = closed_spec(
            1,
            Think::Exponential {
                mean_ns: f64::INFINITY,
            },
            10,
            0,
        );
        assert_eq!(
            c.validate().unwrap_err().to_string(),
            "think.mean-ns must be finite and >= 0, got inf"
        );
    }

    /// FNV-1a over every field of every record, in order.
    fn fingerprint(recs: impl IntoIterator<Item = IoRecord>) -> (u64, u64) {
        let (mut n, mut h) = (0u64, 0xcbf2_9ce4_8422_2325u64);
        let mut eat = |x: u64| {
            for b in x.to_le_bytes() {
                h = (h ^ b as u64).wrapping_mul(0x0100_0000_01b3);
            }
        };
        for r in recs {
            n += 1;
            eat(r.arrival.0);
            eat(r.device as u64);
            eat(r.lbn);
            eat(r.blocks as u64);
            eat(r.write as u64);
            eat(r.content.len() as u64);
        }
        (n, h)
    }

    /// Specs covering both arrival processes and every address pattern.
    fn stream_specs() -> Vec<OpenSpec> {
        let mut walk = gen_spec(
            Pattern::Walk { max_step: 51_200 },
            Sizes::Uniform { min: 1, max: 64 },
            1 << 24,
        );
        walk.align = Some(8);
        walk.start = 4096;
        walk.span = Some(1 << 22);
        let mut seq = gen_spec(Pattern::Sequential { run_len: 16 }, fixed(8), 1 << 30);
        seq.align = Some(8);
        seq.read_fraction = 0.66;
        let zipf = gen_spec(
            Pattern::Zipf {
                theta: 0.9,
                buckets: 100,
            },
            Sizes::Choice {
                choices: vec![(8, 3.0), (128, 1.0)],
            },
            1 << 30,
        );
        let uniform = gen_spec(
            Pattern::Uniform,
            Sizes::Uniform { min: 1, max: 64 },
            1 << 30,
        );
        vec![
            open_spec(
                uniform.clone(),
                Arrivals::Poisson { rate_per_s: 500.0 },
                5000,
                42,
            ),
            open_spec(uniform, Arrivals::Fixed { interval_ns: MS }, 3000, 1),
            open_spec(
                zipf.clone(),
                Arrivals::Fixed {
                    interval_ns: 3 * MS,
                },
                4000,
                7,
            ),
            open_spec(zipf, Arrivals::Poisson { rate_per_s: 1e4 }, 4000, 8),
            open_spec(seq, Arrivals::Poisson { rate_per_s: 1e4 }, 3000, 3),
            OpenSpec {
                device: 2,
                ..open_spec(walk, Arrivals::Poisson { rate_per_s: 100.0 }, 3000, 9)
            },
            open_spec(
                gen_spec(Pattern::Uniform, fixed(8), 1 << 20),
                Arrivals::Fixed { interval_ns: 1 },
                0,
                5,
            ),
        ]
    }

    #[test]
    fn workload_open_stream_equals_the_vec() {
        // Fingerprints of the records `open_workload` gave before it was built on the
        // stream: streaming changed no record.
        let golden = [
            (5000, 8136588775853095294),
            (3000, 13100038656159970588),
            (4000, 15253517521008969119),
            (4000, 4615977265367427861),
            (3000, 4270025767144532970),
            (3000, 9562956307281150916),
            (0, 14695981039346656037),
        ];
        for (spec, want) in stream_specs().iter().zip(golden) {
            let vec = try_open_workload(spec).unwrap();
            let mut stream = OpenStream::new(spec).unwrap();
            assert_eq!(stream.remaining(), spec.count);
            assert_eq!(stream.size_hint(), (vec.len(), Some(vec.len())));
            let mut streamed = Vec::new();
            for (i, r) in stream.by_ref().enumerate() {
                assert_eq!(r, vec[i], "record {i} of {spec:?}");
                streamed.push(r);
            }
            assert_eq!(streamed, vec);
            assert_eq!(stream.remaining(), 0);
            assert!(stream.next().is_none(), "the stream is fused");
            assert_eq!(fingerprint(vec), want, "{spec:?}");
        }
        // The same validation errors as the vec.
        let mut bad = stream_specs().remove(0);
        bad.gen.read_fraction = 2.0;
        assert_eq!(
            OpenStream::new(&bad).unwrap_err(),
            try_open_workload(&bad).unwrap_err()
        );
    }

    #[test]
    #[should_panic(expected = "invalid workload spec: read-fraction must be within 0..=1, got 2")]
    fn open_workload_panics_on_invalid_spec() {
        let mut gen = gen_spec(Pattern::Uniform, fixed(8), 1000);
        gen.read_fraction = 2.0;
        open_workload(&open_spec(gen, Arrivals::Fixed { interval_ns: 1 }, 1, 0));
    }

    // ---- property tests ----

    fn sizes_strategy(largest: u64) -> impl Strategy<Value = Sizes> {
        let largest = largest.min(4096) as u32;
        prop_oneof![
            (1..=largest).prop_map(|sectors| Sizes::Fixed { sectors }),
            (1..=largest, 1..=largest).prop_map(|(a, b)| Sizes::Uniform {
                min: a.min(b),
                max: a.max(b)
            }),
            prop::collection::vec((1..=largest, 0.0..10.0f64), 1..5).prop_map(|mut choices| {
                choices[0].1 += 0.1;
                Sizes::Choice { choices }
            }),
        ]
    }

    fn pattern_strategy(span: u64) -> impl Strategy<Value = Pattern> {
        prop_oneof![
            Just(Pattern::Uniform),
            (1..100u64).prop_map(|run_len| Pattern::Sequential { run_len }),
            (1..=span).prop_map(|max_step| Pattern::Walk { max_step }),
            (0.0..4.0f64, 1..=span.min(5000))
                .prop_map(|(theta, buckets)| Pattern::Zipf { theta, buckets }),
        ]
    }

    prop_compose! {
        fn region()(capacity in 1..=1u64 << 40, start_frac in 0.0..1.0f64, span_frac in 0.0..=1.0f64, explicit in any::<bool>())
            -> (u64, u64, Option<u64>) {
            let start = ((capacity as f64 * start_frac) as u64).min(capacity - 1);
            let room = capacity - start;
            let span = 1 + ((room - 1) as f64 * span_frac) as u64;
            (capacity, start, explicit.then_some(span.min(room)))
        }
    }

    prop_compose! {
        fn valid_gen()((capacity, start, span) in region())
            (pattern in pattern_strategy(span.unwrap_or(capacity - start)),
             sizes in sizes_strategy(span.unwrap_or(capacity - start)),
             align in prop::option::of(1..100_000u64),
             read_fraction in 0.0..=1.0f64,
             capacity in Just(capacity), start in Just(start), span in Just(span))
            -> GenSpec {
            GenSpec { pattern, sizes, read_fraction, align, start, span, capacity: Some(capacity) }
        }
    }

    /// Arrivals whose span fits the simulated clock for the counts below (< 200).
    fn arrivals_strategy() -> impl Strategy<Value = Arrivals> {
        prop_oneof![
            (0..1_000_000_000_000_000u64).prop_map(|interval_ns| Arrivals::Fixed { interval_ns }),
            (1e-3..1e9f64).prop_map(|rate_per_s| Arrivals::Poisson { rate_per_s }),
        ]
    }

    fn check_record(g: &GenSpec, r: &IoRecord) {
        let cap = g.capacity.unwrap();
        let end = g.start + g.span.unwrap_or(cap - g.start);
        assert!(r.blocks >= 1 && r.blocks <= g.sizes.max_sectors());
        assert!(
            r.lbn >= g.start && r.lbn + r.blocks as u64 <= end && end <= cap,
            "{r:?} {g:?}"
        );
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        /// Arrivals that would run past the clock's range are refused, not saturated.
        #[test]
        fn workload_arrivals_past_the_clock_are_refused(
            gen in valid_gen(), interval_ns in 10_000_000_000_000_000u64.., count in 200..10_000u64
        ) {
            let spec = OpenSpec { gen, arrivals: Arrivals::Fixed { interval_ns }, count, seed: 1, device: 0 };
            prop_assert!(spec.validate().is_err());
        }

        #[test]
        fn workload_valid_open_spec_respects_bounds(
            gen in valid_gen(), arrivals in arrivals_strategy(), count in 0..200u64, seed in any::<u64>()
        ) {
            let spec = OpenSpec { gen, arrivals, count, seed, device: 0 };
            prop_assert_eq!(spec.validate(), Ok(()));
            let recs = open_workload(&spec);
            prop_assert_eq!(recs.len() as u64, count);
            for r in &recs {
                check_record(&spec.gen, r);
                if !matches!(spec.gen.pattern, Pattern::Sequential { .. }) {
                    let align = spec.gen.align.unwrap_or(r.blocks as u64);
                    prop_assert_eq!((r.lbn - spec.gen.start) % align, 0);
                }
            }
            prop_assert!(recs.windows(2).all(|w| w[0].arrival <= w[1].arrival));
            prop_assert_eq!(&recs, &open_workload(&spec));
        }

        /// Think times whose total would run past the clock's range are refused, not
        /// saturated.
        #[test]
        fn workload_thinking_past_the_clock_is_refused(
            gen in valid_gen(), think_ns in 1_000_000_000_000_000_000u64.., requests in 1..100u64
        ) {
            let spec = ClosedSpec { processes: 1, think: Think::Fixed { ns: think_ns }, requests, gen, seed: 1, device: 0 };
            prop_assert!(spec.validate().unwrap_err().to_string().contains("simulated time"));
        }

        #[test]
        fn workload_valid_closed_spec_respects_bounds(
            gen in valid_gen(), processes in 1..20u32, requests in 0..100u64, think_ns in 0..1_000_000_000_000_000u64,
            mean in 0.0..1e12f64, exp in any::<bool>(), seed in any::<u64>()
        ) {
            let think = if exp { Think::Exponential { mean_ns: mean } } else { Think::Fixed { ns: think_ns } };
            let spec = ClosedSpec { processes, think, requests, gen, seed, device: 1 };
            let mut cl = ClosedLoop::new(&spec).unwrap();
            let mut queue: std::collections::VecDeque<(u32, IoRecord)> = cl.start().into();
            let mut n = queue.len() as u64;
            while let Some((p, r)) = queue.pop_front() {
                check_record(&spec.gen, &r);
                if let Some(next) = cl.on_complete(p, SimTime(r.arrival.0.saturating_add(1000))) {
                    n += 1;
                    queue.push_back((p, next));
                }
            }
            prop_assert_eq!(n, requests);
        }

        /// Arbitrary, mostly invalid specs: an error or a workload, never a panic.
        #[test]
        fn workload_arbitrary_spec_never_panics(
            capacity in prop::option::of(prop_oneof![Just(0u64), 1..10_000u64, Just(u64::MAX)]),
            start in prop_oneof![Just(0u64), 0..20_000u64, Just(u64::MAX)],
            span in prop::option::of(prop_oneof![Just(0u64), 0..20_000u64, Just(u64::MAX)]),
            align in prop::option::of(prop_oneof![Just(0u64), 0..100u64, Just(u64::MAX)]),
            sectors in prop_oneof![Just(0u32), 0..20_000u32, Just(u32::MAX)],
            sectors2 in prop_oneof![Just(0u32), 0..20_000u32, Just(u32::MAX)],
            weight in prop_oneof![Just(f64::NAN), Just(-1.0), Just(f64::INFINITY), Just(f64::MAX), 0.0..1.0f64],
            size_kind in 0..3u8,
            theta in prop_oneof![Just(f64::NAN), Just(-1.0), Just(1e6), 0.0..5.0f64],
            buckets in prop_oneof![Just(0u64), 1..30_000u64, Just(u64::MAX)],
            run_len in prop_oneof![Just(0u64), 1..10u64, Just(u64::MAX)],
            pattern_kind in 0..4u8,
            read_fraction in prop_oneof![Just(f64::NAN), Just(-0.1), Just(1.1), 0.0..=1.0f64],
            rate in prop_oneof![Just(f64::NAN), Just(0.0), Just(-1.0), Just(f64::INFINITY), Just(1e-300), 1e-3..1e12f64],
            interval in any::<u64>(),
            poisson in any::<bool>(),
            processes in prop_oneof![Just(0u32), 1..5u32, Just(u32::MAX)],
        ) {
            let sizes = match size_kind {
                0 => Sizes::Fixed { sectors },
                1 => Sizes::Uniform { min: sectors, max: sectors2 },
                _ => Sizes::Choice { choices: vec![(sectors, weight), (sectors2, 1.0)] },
            };
            let pattern = match pattern_kind {
                0 => Pattern::Uniform,
                1 => Pattern::Sequential { run_len },
                2 => Pattern::Walk { max_step: run_len },
                _ => Pattern::Zipf { theta, buckets },
            };
            let gen = GenSpec { pattern, sizes, read_fraction, align, start, span, capacity };
            let arrivals = if poisson { Arrivals::Poisson { rate_per_s: rate } } else { Arrivals::Fixed { interval_ns: interval } };
            let spec = OpenSpec { gen: gen.clone(), arrivals, count: 50, seed: 1, device: 0 };
            if let Ok(recs) = try_open_workload(&spec) {
                for r in &recs {
                    check_record(&gen, r);
                }
            }
            let closed = ClosedSpec { processes, think: Think::Fixed { ns: u64::MAX }, requests: 20, gen: gen.clone(), seed: 1, device: 0 };
            if let Ok(mut cl) = ClosedLoop::new(&closed) {
                let first = cl.start();
                for (p, r) in first {
                    check_record(&gen, &r);
                    if let Some(r) = cl.on_complete(p, SimTime(u64::MAX)) {
                        check_record(&gen, &r);
                        prop_assert_eq!(r.arrival, SimTime(u64::MAX));
                    }
                }
            }
        }
    }
}

//! Streaming trace readers: every fixture and the built-in sample stream the same
//! records as the whole-file readers give, errors still name file and line, and the
//! bounded reorder buffer, extents and filters agree with the `Vec` versions.

mod trace_stream {
    use spindle::time::SimTime;
    use spindle::trace::{
        open_bytes, open_sample, open_trace, read_trace, records_until_error, resolve,
        resolve_extent, resolve_stream, sample, trace_extent, Format, IoRecord, Position,
        TraceExtent, TraceStream,
    };
    use spindle::workload::{compress, compress_stream, limit, only_device};
    use std::path::{Path, PathBuf};

    const FIXTURES: [(&str, Format); 13] = [
        ("alibaba-io_traces.csv", Format::Alibaba),
        ("tencent-cbs.csv", Format::Tencent),
        ("blkparse-sda.txt", Format::Blkparse),
        ("blktrace-sdx.bin", Format::Blktrace),
        ("blktrace-sdx-be.bin", Format::Blktrace),
        ("disksim-ascii.trace", Format::DisksimAscii),
        ("disksim-validate.trace", Format::DisksimValidate),
        ("fiu-webvm.txt", Format::Fiu),
        ("hp-small.srt", Format::HpSrt),
        ("msr-hm.csv", Format::Msr),
        ("spc-financial.spc", Format::Spc),
        ("spc-websearch.spc", Format::Spc),
        ("spindle.csv", Format::SpindleCsv),
    ];

    fn fixture(name: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/traces")
            .join(name)
    }

    fn hp_file() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/traces/ajw.1week.srt")
    }

    /// A directory of its own under the system's temporary directory.
    fn temp_dir(tag: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("spindle-trace-stream-{tag}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn collect(stream: TraceStream<'_>) -> Vec<IoRecord> {
        stream.collect::<Result<Vec<_>, _>>().unwrap()
    }

    fn stable_sorted(mut records: Vec<IoRecord>) -> Vec<IoRecord> {
        records.sort_by_key(|r| r.arrival);
        records
    }

    /// The stream, sorted stably, is the whole-file reader's result; a stream already in
    /// arrival order is it record for record; the reorder buffer gives it exactly; the
    /// one-pass extent matches the records'.
    fn check_stream_equals_vec(path: &Path, format: Format, whole: &[IoRecord]) -> bool {
        let name = path.display().to_string();
        for given in [None, Some(format)] {
            let stream = open_trace(path, given).unwrap();
            assert_eq!(stream.format(), format, "{name}");
            assert_eq!(stream.file(), name);
            let streamed = collect(stream);
            assert_eq!(stable_sorted(streamed.clone()), whole, "{name}");
            let extent = TraceExtent::of(streamed.iter().cloned());
            if extent.in_order {
                assert_eq!(streamed, whole, "{name}");
            } else {
                assert_ne!(streamed, whole, "{name}");
            }
            let reordered = open_trace(path, given)
                .unwrap()
                .sorted_within(streamed.len())
                .collect::<Result<Vec<_>, _>>()
                .unwrap();
            assert_eq!(reordered, whole, "{name}");
            let fast = trace_extent(path, given).unwrap();
            assert_eq!(
                (fast.records, fast.max_end_lbn, &fast.devices, fast.in_order),
                (
                    extent.records,
                    extent.max_end_lbn,
                    &extent.devices,
                    extent.in_order
                ),
                "{name}"
            );
            assert_eq!(fast.records, whole.len() as u64);
        }
        TraceExtent::of(collect(open_trace(path, None).unwrap())).in_order
    }

    #[test]
    fn every_fixture_streams_what_it_reads() {
        let mut out_of_order = Vec::new();
        for (name, format) in FIXTURES {
            let path = fixture(name);
            let whole = read_trace(&path, None).unwrap();
            assert!(!whole.is_empty(), "{name}");
            if !check_stream_equals_vec(&path, format, &whole) {
                out_of_order.push(name);
            }
            // In memory and through a spec, too.
            let bytes = std::fs::read(&path).unwrap();
            let in_memory = collect(open_bytes(&bytes, name, None).unwrap());
            assert_eq!(in_memory, collect(open_trace(&path, None).unwrap()));
            let spec = format!("{}:{}", format.name(), path.display());
            assert_eq!(resolve(&spec).unwrap(), whole);
            assert_eq!(
                stable_sorted(collect(resolve_stream(&spec).unwrap())),
                whole
            );
            assert_eq!(
                resolve_extent(&spec).unwrap(),
                trace_extent(&path, None).unwrap()
            );
        }
        // Every fixture but the blktrace streams is in arrival order: the stream is the
        // Vec, record for record. The blktrace fixture holds two CPUs' stretches one
        // after the other, as real multi-CPU streams do.
        assert_eq!(
            out_of_order,
            ["blktrace-sdx.bin", "blktrace-sdx-be.bin"],
            "{out_of_order:?}"
        );
    }

    fn gzip(bytes: &[u8]) -> Vec<u8> {
        use std::io::Write;
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(bytes).unwrap();
        e.finish().unwrap()
    }

    fn zstd(bytes: &[u8]) -> Vec<u8> {
        ruzstd::encoding::compress_to_vec(bytes, ruzstd::encoding::CompressionLevel::Fastest)
    }

    #[test]
    fn compressed_fixtures_stream_what_the_plain_ones_read() {
        let dir = temp_dir("compressed");
        let fixtures = FIXTURES
            .iter()
            .map(|&(name, format)| (fixture(name), format))
            .chain([(hp_file(), Format::HpSrt)]);
        for (path, format) in fixtures {
            let name = path.file_name().unwrap().to_string_lossy().to_string();
            let plain = std::fs::read(&path).unwrap();
            let whole = read_trace(&path, None).unwrap();
            // Two gzip members, as `cat a.gz b.gz` makes, read as the two halves joined.
            let cut = plain.len() / 2;
            let two_members = [gzip(&plain[..cut]), gzip(&plain[cut..])].concat();
            for (ext, bytes) in [
                ("gz", gzip(&plain)),
                ("2.gz", two_members),
                ("zst", zstd(&plain)),
            ] {
                let packed = dir.join(format!("{name}.{ext}"));
                std::fs::write(&packed, &bytes).unwrap();
                assert_eq!(read_trace(&packed, None).unwrap(), whole, "{name}.{ext}");
                check_stream_equals_vec(&packed, format, &whole);
                let in_memory = collect(open_bytes(&bytes, &name, None).unwrap());
                assert_eq!(in_memory, collect(open_trace(&path, None).unwrap()));
            }
        }
        // An error inside a compressed file names its line in the decompressed text.
        let text = std::fs::read_to_string(fixture("msr-hm.csv")).unwrap();
        let mut lines: Vec<&str> = text.lines().collect();
        lines[4] = "128166372046382405,hm,1,Read,3221221376,0,67624";
        let bad = dir.join("bad-msr.csv.gz");
        std::fs::write(&bad, gzip(lines.join("\n").as_bytes())).unwrap();
        let err = read_trace(&bad, None).unwrap_err();
        assert_eq!(err.at, Position::Line(5), "{err}");
        assert!(err.msg.starts_with("field 6 (Size)"), "{err}");
        // A truncated file is an error naming the compression, never a shorter trace.
        let packed = gzip(text.as_bytes());
        let cut = dir.join("cut-msr.csv.gz");
        std::fs::write(&cut, &packed[..packed.len() * 2 / 3]).unwrap();
        let err = read_trace(&cut, None).unwrap_err();
        assert!(err.msg.contains("gzip data"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn fixtures_out_of_order_stream_in_file_order() {
        // Each fixture with its records reversed (headers stay first): the readers sort
        // these, the streams do not, and the reorder buffer does.
        let dir = temp_dir("reversed");
        for (name, format, header_lines) in [
            ("disksim-ascii.trace", Format::DisksimAscii, 0),
            ("msr-hm.csv", Format::Msr, 0),
            ("fiu-webvm.txt", Format::Fiu, 0),
            ("spc-financial.spc", Format::Spc, 0),
            ("spindle.csv", Format::SpindleCsv, 1),
            ("blkparse-sda.txt", Format::Blkparse, 0),
        ] {
            let text = std::fs::read_to_string(fixture(name)).unwrap();
            let mut lines: Vec<&str> = text.lines().collect();
            if format == Format::Blkparse {
                // Events only: the summary must stay last.
                let end = lines.iter().position(|l| l.starts_with("CPU")).unwrap();
                lines[..end].reverse();
            } else {
                lines[header_lines..].reverse();
            }
            let path = dir.join(name);
            std::fs::write(&path, lines.join("\n")).unwrap();
            let whole = read_trace(&path, None).unwrap();
            assert!(!check_stream_equals_vec(&path, format, &whole), "{name}");
            assert!(!trace_extent(&path, None).unwrap().in_order, "{name}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_sample_streams_too() {
        let whole = sample("hplajw").unwrap();
        assert_eq!(collect(open_sample("hplajw").unwrap()), whole);
        let stream = resolve_stream("sample:hplajw").unwrap();
        assert_eq!(
            (stream.format(), stream.file()),
            (Format::HpSrt, "sample:hplajw")
        );
        assert_eq!(collect(stream), whole);
        let extent = resolve_extent("sample:hplajw").unwrap();
        assert_eq!((extent.records, extent.max_end_lbn), (44_519, 1_308_096));
        assert_eq!(
            extent.device_numbers().into_iter().collect::<Vec<_>>(),
            [0, 1]
        );
        assert_eq!(
            extent.devices[&0].records + extent.devices[&1].records,
            44_519
        );
        // The file it is built from streams it record for record: it is in order.
        assert!(check_stream_equals_vec(&hp_file(), Format::HpSrt, whole));
        assert!(resolve_stream("sample:nope").is_err());
    }

    #[test]
    fn errors_name_file_and_line_and_end_the_stream() {
        let dir = temp_dir("errors");
        let cases = [
            (
                "disksim-ascii.trace",
                3,
                "2.5 1 88016 0 0",
                "field 4 (size in blocks)",
            ),
            (
                "msr-hm.csv",
                5,
                "128166372046382405,hm,1,Read,3221221376,0,67624",
                "field 6 (Size)",
            ),
            (
                "fiu-webvm.txt",
                7,
                "5000052711020 12 pdflush 9183312 8 W 8 16 aa8f",
                "field 9 (MD5)",
            ),
            (
                "spc-financial.spc",
                6,
                "2,1603,512,r,-0.5",
                "field 5 (Timestamp)",
            ),
            ("spindle.csv", 3, "0.015280,0,21571088,8,X,", "field 5 (op)"),
            (
                "disksim-validate.trace",
                4,
                "X Hit 5418216 16 9204.0 60000.0",
                "field 1 (operation)",
            ),
            (
                "blkparse-sda.txt",
                9,
                "  8,0    1        8     0.000007702  2412  D  WS 5298176 + x [j]",
                "field 10 (sector count)",
            ),
        ];
        for (name, line, with, field) in cases {
            let text = std::fs::read_to_string(fixture(name)).unwrap();
            let mut lines: Vec<&str> = text.lines().collect();
            lines[line - 1] = with;
            let path = dir.join(name);
            std::fs::write(&path, lines.join("\n")).unwrap();
            let whole = read_trace(&path, None).unwrap_err();
            let mut stream = open_trace(&path, None).unwrap();
            let items: Vec<_> = stream.by_ref().collect();
            let err = items.last().unwrap().clone().unwrap_err();
            assert_eq!(err, whole, "{name}");
            assert_eq!(err.file, path.display().to_string());
            assert_eq!(err.at, Position::Line(line), "{name}");
            assert!(err.msg.starts_with(field), "{name}: {err}");
            // Records before the bad line came first; nothing after the error.
            assert!(items[..items.len() - 1].iter().all(Result::is_ok));
            assert!(stream.next().is_none());
            // The engine's view: records up to the error, then the error kept aside.
            let mut error = None;
            let n = records_until_error(open_trace(&path, None).unwrap(), &mut error).count();
            assert_eq!(n, items.len() - 1);
            assert_eq!(error, Some(whole));
        }
        // A missing file fails when opened.
        let missing = dir.join("missing.trace");
        let err = open_trace(&missing, None).unwrap_err();
        assert_eq!(
            (err.at, err.file),
            (Position::File, missing.display().to_string())
        );
        assert!(trace_extent(&missing, Some(Format::Spc)).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn srt_errors_name_record_and_offset() {
        let bytes = std::fs::read(fixture("hp-small.srt")).unwrap();
        let header = bytes.iter().position(|&b| b == 0x0C).unwrap() + 1;
        let mut bad = bytes.clone();
        let at = header + 2 * 56;
        bad[at + 4..at + 8].copy_from_slice(&0x4_0007i32.to_be_bytes());
        let items: Vec<_> = open_bytes(&bad, "x.srt", None).unwrap().collect();
        assert_eq!(items.len(), 3);
        let err = items[2].clone().unwrap_err();
        assert_eq!(
            err.at,
            Position::Record {
                number: 3,
                offset: at
            }
        );
        // A size word far beyond the file: the rest is counted, not held.
        let mut huge = bytes[..header + 56].to_vec();
        huge.extend_from_slice(&0x7fff_fffci32.to_be_bytes());
        huge.extend_from_slice(&[0; 100]);
        let err = open_bytes(&huge, "h.srt", None)
            .unwrap()
            .last()
            .unwrap()
            .unwrap_err();
        assert!(
            err.msg.contains("says 2147483644 bytes, only 104 remain"),
            "{err}"
        );
        // A bad header fails when opened.
        assert!(open_bytes(b"tracedate = x;\n", "h.srt", Some(Format::HpSrt)).is_err());
    }

    #[test]
    fn reorder_buffer_is_exact_within_its_window_and_fails_beyond() {
        // Record i is written at time i ms, in pairs swapped, and two equal times.
        let mut text = String::new();
        for i in 0..40u32 {
            let t = if i % 2 == 0 { i + 1 } else { i - 1 };
            text += &format!("{t}.0 0 {} 8 1\n", 100 + i);
        }
        text += "39.0 1 7 8 0\n";
        let whole = spindle::trace::parse_trace_bytes(text.as_bytes(), "t", None).unwrap();
        for window in [1, 2, 10, 1000] {
            let s = open_bytes(text.as_bytes(), "t", None)
                .unwrap()
                .sorted_within(window);
            assert_eq!(s.collect::<Result<Vec<_>, _>>().unwrap(), whole, "{window}");
        }
        let items: Vec<_> = open_bytes(text.as_bytes(), "t", None)
            .unwrap()
            .sorted_within(0)
            .collect();
        let err = items.last().unwrap().clone().unwrap_err();
        assert_eq!(err.at, Position::Line(2));
        assert!(err.msg.contains("reorder window of 0 records"), "{err}");
        assert_eq!(items.len(), 2);
    }

    #[test]
    fn filters_on_a_stream_match_the_vec_versions() {
        let path = hp_file();
        let whole = read_trace(&path, None).unwrap();
        for device in [0u32, 1] {
            let mut want = whole.clone();
            want.retain(|r| r.device == device);
            want.iter_mut().for_each(|r| r.device = 0);
            want.truncate(5_000);
            let want = compress(&want, 20.0);
            let stream = open_trace(&path, None).unwrap();
            let got = compress_stream(limit(only_device(stream, device), 5_000), 20.0)
                .collect::<Result<Vec<_>, _>>()
                .unwrap();
            assert_eq!(got, want, "device {device}");
            assert_eq!(
                TraceExtent::of(got.iter().cloned()).max_end_lbn,
                spindle::engine::device_stride(&want)
            );
        }
        assert!(whole.iter().all(|r| r.arrival >= SimTime::ZERO));
    }
}

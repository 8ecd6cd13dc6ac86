//! Trace readers on small real-format fixtures, on the real HP trace, on malformed and
//! on arbitrary input.

// One module, so that `cargo test trace` selects every test here.
mod trace {
    use proptest::prelude::*;
    use spindle::time::SimTime;
    use spindle::trace::{
        blkparse, detect, parse_trace_bytes, read_trace, resolve, sample, write_csv, Format,
        IoRecord, Position,
    };
    use std::path::PathBuf;

    fn fixture(name: &str) -> PathBuf {
        PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/traces"
        ))
        .join(name)
    }

    fn fixture_bytes(name: &str) -> Vec<u8> {
        std::fs::read(fixture(name)).unwrap()
    }

    /// Reads a fixture with format detection, checking that detection picks `format` and
    /// that naming the format gives the same records.
    fn read(name: &str, format: Format) -> Vec<IoRecord> {
        let path = fixture(name);
        let bytes = fixture_bytes(name);
        assert_eq!(detect(name, &bytes), Ok(format), "{name}");
        let detected = read_trace(&path, None).unwrap();
        assert_eq!(read_trace(&path, Some(format)).unwrap(), detected);
        assert!(
            detected.windows(2).all(|w| w[0].arrival <= w[1].arrival),
            "{name}: not sorted"
        );
        detected
    }

    fn rec(ns: u64, device: u32, lbn: u64, blocks: u32, write: bool) -> IoRecord {
        IoRecord {
            arrival: SimTime(ns),
            device,
            lbn,
            blocks,
            write,
            content: Vec::new(),
        }
    }

    fn md5(hex: &str) -> [u8; 16] {
        let mut out = [0; 16];
        for (i, b) in out.iter_mut().enumerate() {
            *b = u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).unwrap();
        }
        out
    }

    #[test]
    fn disksim_ascii_fixture() {
        let r = read("disksim-ascii.trace", Format::DisksimAscii);
        assert_eq!(r.len(), 8);
        assert_eq!(r[0], rec(0, 0, 1216, 8, false));
        // Equal times keep file order.
        assert_eq!(r[1], rec(2_431_250, 0, 1224, 8, false));
        assert_eq!(r[2], rec(2_431_250, 1, 88016, 16, true));
        assert_eq!(r[3], rec(9_875_000, 0, 530_112, 2, false)); // flags 0x1
        assert_eq!(r[6], rec(17_998_000, 0, 2_097_152, 64, true)); // flags "10" = 0x10
        assert_eq!(r[7].arrival, SimTime(25_125_000));
    }

    #[test]
    fn disksim_validate_fixture() {
        let r = read("disksim-validate.trace", Format::DisksimValidate);
        assert_eq!(r.len(), 6);
        // Closed loop: no arrival times in the file.
        assert!(r
            .iter()
            .all(|x| x.arrival == SimTime::ZERO && x.device == 0));
        assert_eq!(r[0], rec(0, 0, 1_975_456, 4, false));
        assert_eq!(r[2], rec(0, 0, 508_728, 4, true));
        assert_eq!(r[3].blocks, 16);
    }

    #[test]
    fn hp_srt_fixture() {
        let r = read("hp-small.srt", Format::HpSrt);
        // Six records, one suspect (skipped).
        assert_eq!(r.len(), 5);
        assert_eq!(r[0], rec(0, 1, 1056, 8, false));
        assert_eq!(r[1], rec(22_479_000, 1, 1040, 8, false));
        assert_eq!(r[2], rec(35_279_000, 0, 12256, 4, false));
        assert_eq!(r[3], rec(69_348_000, 1, 360, 4, false));
        // The version 3 record, flags 0x1a: a write.
        assert_eq!(r[4], rec(1_500_000_000, 0, 74488, 16, true));
    }

    #[test]
    fn msr_fixture() {
        let r = read("msr-hm.csv", Format::Msr);
        assert_eq!(r.len(), 8);
        assert_eq!(r[0], rec(0, 1, 749_016, 64, false));
        let t1 = (128_166_372_016_382_155u64 - 128_166_372_003_061_629) * 100;
        assert_eq!(r[1], rec(t1, 1, 6_160_386, 8, true));
        // 1024 bytes at byte 3154121728 = sector 6160394 exactly.
        assert_eq!((r[3].lbn, r[3].blocks), (6_160_394, 2));
        assert_eq!((r[6].lbn, r[6].blocks), (10_478_200, 1));
        assert_eq!((r[7].lbn, r[7].blocks), (10_478_201, 7));
    }

    #[test]
    fn fiu_fixture() {
        let r = read("fiu-webvm.txt", Format::Fiu);
        assert_eq!(r.len(), 10);
        assert_eq!(r[0].arrival, SimTime(0));
        assert_eq!((r[0].lbn, r[0].blocks, r[0].write), (21_571_080, 8, true));
        assert_eq!(r[0].content, vec![md5("aa8f39967deb441a6e7484963945a960")]);
        assert_eq!(r[1].arrival, SimTime(5_000_019_606_329 - 5_000_019_591_049));
        // The all-zero 4 KiB page.
        assert_eq!(r[2].content, vec![md5("620f0b67a91f7f74151bc5be745b7110")]);
        assert!(!r[4].write);
        // (8,16) is the second device seen.
        assert_eq!((r[6].device, r[5].device), (1, 0));
        assert!(r.iter().all(|x| x.content.len() == 1));
    }

    #[test]
    fn spc_fixtures() {
        let r = read("spc-financial.spc", Format::Spc);
        assert_eq!(r.len(), 8);
        assert_eq!(r[0], rec(0, 0, 303_567, 7, true));
        assert_eq!(r[1], rec(0, 1, 55590, 6, true));
        assert_eq!(r[4], rec(26_215_000, 1, 55596, 6, true));
        assert_eq!(r[5], rec(55_636_000, 2, 1603, 1, false));
        assert_eq!(r[7], rec(63_016_000, 3, 18957, 2, false));
        let r = read("spc-websearch.spc", Format::Spc);
        assert_eq!(r.len(), 6);
        assert_eq!(r[0], rec(774_000, 0, 21_741_712, 48, false));
        assert!(r.iter().all(|x| !x.write));
    }

    #[test]
    fn blkparse_fixture() {
        let r = read("blkparse-sda.txt", Format::Blkparse);
        // D events with data: the WS write, the FWFS write (flush + data), the R on 8,16
        // and the RA read; the data-less flush (FN) and the discard are skipped.
        assert_eq!(
            r,
            [
                rec(7_702, 0, 5_298_176, 16, true),
                rec(416_770, 0, 5_298_192, 8, true),
                rec(3_120_050, 1, 1_953_525_120, 8, false),
                rec(4_505_219, 0, 10_487_808, 256, false),
            ]
        );
        let bytes = fixture_bytes("blkparse-sda.txt");
        let q = blkparse::parse_with_action(&bytes, "b", Some("Q")).unwrap();
        assert_eq!(q.len(), 5); // the merged Q is a request of its own at queue level
        let c = blkparse::parse_with_action(&bytes, "b", Some("C")).unwrap();
        assert_eq!(c.len(), 3);
    }

    /// `blktrace-sdx.bin` is a small binary blktrace stream written for this test (two
    /// disks, two CPUs' stretches one after the other; a start-time note, process
    /// notes, a remap, merges, read-ahead, a FUA write, a data-less flush, a FUA-only
    /// and a data-less write, a discard, a plug, a failed read, a requeue, a SCSI
    /// pass-through read, a read of 1,000 bytes), and
    /// `blktrace-sdx-be.bin` the same in big-endian order. `blktrace-sdx.blkparse.txt` is
    /// what the real `blkparse` 1.2.0 (Debian's blktrace 1.2.0-5) printed for either
    /// (`blkparse -i - < blktrace-sdx.bin`; the stream is short enough for its batch
    /// sorting to sort it whole): the binary reader must give the records the text reader
    /// gives on that output.
    #[test]
    fn blktrace_fixture_reads_as_blkparse_prints_it() {
        let text = read("blktrace-sdx.blkparse.txt", Format::Blkparse);
        let binary = read("blktrace-sdx.bin", Format::Blktrace);
        assert_eq!(binary, text);
        assert_eq!(read("blktrace-sdx-be.bin", Format::Blktrace), text);
        // The issued reads and writes: the requeued write is issued twice; the
        // data-less commands, the discard and the pass-through read are not requests;
        // 1,000 bytes print as 1 sector. Time 0 is the first queue event, not the notes
        // before it; sda is device 0 (its first request came first) though CPU 0's
        // stretch, with sdb's, comes first in the file.
        assert_eq!(
            binary,
            [
                rec(7_702, 0, 5_298_176, 16, true),
                rec(9_500, 1, 2_111, 128, false),
                rec(414_000, 0, 5_298_192, 8, true),
                rec(900_300, 0, 77, 1, false),
                rec(1_000_100, 1, 123_456, 256, true),
                rec(1_000_300, 1, 123_456, 256, true),
                rec(1_900_000, 0, 9_000, 1, false),
            ]
        );
    }

    /// `alibaba-io_traces.csv` and `tencent-cbs.csv` are a few lines written for these
    /// tests in the published schemas (the traces themselves are far too large to ship):
    /// timed from their earliest request.
    #[test]
    fn cloud_trace_fixtures() {
        let a = read("alibaba-io_traces.csv", Format::Alibaba);
        assert_eq!(
            a,
            [
                rec(0, 0, 247_468_056, 8, false),
                rec(385_000, 0, 247_468_064, 16, true),
                rec(874_000, 3, 8, 1, false),
                rec(1_374_000, 3, 0, 3, true),
                rec(3_000_000, 0, 247_468_056, 8, false),
            ]
        );
        let t = read("tencent-cbs.csv", Format::Tencent);
        assert_eq!(
            t,
            [
                rec(0, 1063, 209_715_200, 8, false),
                rec(0, 1063, 209_715_208, 16, true),
                rec(0, 7, 5_000, 128, false),
                rec(1_000_000_000, 7, 12_345, 8, true),
                rec(2_000_000_000, 1063, 209_715_224, 8, false),
            ]
        );
    }

    #[test]
    fn spindle_csv_fixture() {
        let r = read("spindle.csv", Format::SpindleCsv);
        assert_eq!(r.len(), 4);
        assert_eq!(r[1], rec(15_280, 0, 21_571_088, 8, true));
        assert_eq!(
            r[2].content,
            [
                md5("620f0b67a91f7f74151bc5be745b7110"),
                md5("6541e7fd48680b9b60ec055ebfa31c02")
            ]
        );
        assert_eq!(r[3].arrival, SimTime(10_000_001));
    }

    /// Replaces line `line` (1-based) of a fixture and parses the result.
    fn corrupt(name: &str, format: Format, line: usize, with: &str) -> String {
        let text = String::from_utf8(fixture_bytes(name)).unwrap();
        let mut lines: Vec<&str> = text.lines().collect();
        lines[line - 1] = with;
        let err = parse_trace_bytes(lines.join("\n").as_bytes(), name, Some(format)).unwrap_err();
        assert_eq!(err.file, name);
        assert_eq!(err.at, Position::Line(line), "{err}");
        err.to_string()
    }

    #[test]
    fn malformed_lines_name_file_line_and_field() {
        let cases: &[(&str, Format, usize, &str, &str)] = &[
        (
            "disksim-ascii.trace",
            Format::DisksimAscii,
            3,
            "2.5 1 88016 0 0",
            "disksim-ascii.trace:3: field 4 (size in blocks): a request must be at least 1 block, found \"0\"",
        ),
        (
            "disksim-ascii.trace",
            Format::DisksimAscii,
            2,
            "NaN 0 1224 8 1",
            "disksim-ascii.trace:2: field 1 (arrival time (ms)): expected a finite time in milliseconds, found \"NaN\"",
        ),
        (
            "disksim-validate.trace",
            Format::DisksimValidate,
            4,
            "X Hit 5418216 16 9204.0 60000.0",
            "disksim-validate.trace:4: field 1 (operation): expected \"R\" or \"W\", found \"X\"",
        ),
        (
            "msr-hm.csv",
            Format::Msr,
            5,
            "128166372046382405,hm,1,Read,3221221376,0,67624",
            "msr-hm.csv:5: field 6 (Size): a request must be at least 1 byte, found \"0\"",
        ),
        (
            "msr-hm.csv",
            Format::Msr,
            2,
            "128166372016382155,hm,1,Flush,3154117632,4096,41264",
            "msr-hm.csv:2: field 4 (Type): expected \"Read\" or \"Write\", found \"Flush\"",
        ),
        (
            "fiu-webvm.txt",
            Format::Fiu,
            7,
            "5000052711020 12 pdflush 9183312 8 W 8 16 aa8f39967deb441a",
            "fiu-webvm.txt:7: field 9 (MD5): expected an MD5 digest (32 hex digits), found \"aa8f39967deb441a\"",
        ),
        (
            "spc-financial.spc",
            Format::Spc,
            6,
            "2,1603,512,r,-0.5",
            "spc-financial.spc:6: field 5 (Timestamp): time must not be negative, found \"-0.5\"",
        ),
        (
            "blkparse-sda.txt",
            Format::Blkparse,
            9,
            "  8,0    1        8     0.000007702  2412  D  WS 5298176 + x [jbd2/sda1-8]",
            "blkparse-sda.txt:9: field 10 (sector count): expected an unsigned integer, found \"x\"",
        ),
        (
            "blkparse-sda.txt",
            Format::Blkparse,
            4,
            "this is not an event line",
            "blkparse-sda.txt:4: field 1 (device (major,minor)): expected major,minor, found \"this\"",
        ),
        (
            "spindle.csv",
            Format::SpindleCsv,
            3,
            "0.015280,0,21571088,8,X,",
            "spindle.csv:3: field 5 (op): expected R or W, found \"X\"",
        ),
    ];
        for &(name, format, line, with, msg) in cases {
            let got = corrupt(name, format, line, with);
            assert!(got.starts_with(msg), "expected {msg:?}\n     got {got:?}");
        }
    }

    #[test]
    fn malformed_srt_names_record_and_byte_offset() {
        let bytes = fixture_bytes("hp-small.srt");
        let header = bytes.iter().position(|&b| b == 0x0C).unwrap() + 1;
        // Record 3 starts after two 56-byte records; its type word is at +4.
        let mut bad = bytes.clone();
        let at = header + 2 * 56;
        bad[at + 4..at + 8].copy_from_slice(&0x4_0007i32.to_be_bytes());
        let err = parse_trace_bytes(&bad, "x.srt", Some(Format::HpSrt)).unwrap_err();
        assert_eq!(
            err.at,
            Position::Record {
                number: 3,
                offset: at
            }
        );
        assert!(err.to_string().starts_with(&format!(
            "x.srt:record 3 (byte {at}): word 1 (record id): unexpected record type 7"
        )));
        // Cut inside the last record.
        let err = parse_trace_bytes(&bytes[..bytes.len() - 3], "x.srt", None).unwrap_err();
        assert!(err.msg.starts_with("truncated record"), "{err}");
    }

    #[test]
    fn real_hp_trace() {
        let r = sample("hplajw").unwrap();
        assert_eq!(r.len(), 44_519);
        let dev0 = r.iter().filter(|x| x.device == 0).count();
        let dev1 = r.iter().filter(|x| x.device == 1).count();
        assert_eq!((dev0, dev1), (42_252, 2_267));
        // First record: 0 s 0 µs, 4096 bytes at block 1056 on device word 0x08000107,
        // flags 0x1b (read).
        assert_eq!(r[0], rec(0, 1, 1056, 8, false));
        assert_eq!(r[1], rec(22_479_000, 1, 1040, 8, false));
        assert!(r.windows(2).all(|w| w[0].arrival <= w[1].arrival));
        // Last record at 603064 s 588892 µs: a week.
        assert_eq!(r[r.len() - 1].arrival, SimTime(603_064_588_892_000));
        assert_eq!(r.iter().filter(|x| !x.write).count(), 13_040);
        let max_end = r.iter().map(|x| x.lbn + u64::from(x.blocks)).max();
        assert_eq!(max_end, Some(1_308_096)); // reference §11.2
        assert!(r.iter().all(|x| x.blocks >= 2 && x.content.is_empty()));

        // The same through the file, the spec and detection.
        assert!(std::ptr::eq(r, sample("sample:hplajw").unwrap()));
        assert_eq!(resolve("sample:hplajw").unwrap(), r);
        let path = PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../data/traces/ajw.1week.srt"
        ));
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(detect("ajw.1week.srt", &bytes), Ok(Format::HpSrt));
        assert_eq!(read_trace(&path, None).unwrap(), r);
        assert_eq!(resolve(&format!("hp-srt:{}", path.display())).unwrap(), r);
    }

    #[test]
    fn csv_round_trip() {
        for records in [
            sample("hplajw").unwrap().to_vec(),
            read_trace(&fixture("fiu-webvm.txt"), None).unwrap(),
            read_trace(&fixture("spindle.csv"), None).unwrap(),
            Vec::new(),
        ] {
            let mut out = Vec::new();
            write_csv(&records, &mut out).unwrap();
            assert_eq!(detect("out.csv", &out), Ok(Format::SpindleCsv));
            let back = parse_trace_bytes(&out, "out.csv", None).unwrap();
            assert_eq!(back, records);
        }
    }

    /// A valid SRT header for fuzzing the record parser.
    const SRT_HEADER: &[u8] = b"$$TR_IOREC-1.3\ntracedate = \"Sat May 30 00:03:06 1992\";\n\x0c";

    fn parse_all(bytes: &[u8]) {
        let _ = detect("fuzz", bytes);
        let _ = parse_trace_bytes(bytes, "fuzz", None);
        for f in Format::ALL {
            let _ = parse_trace_bytes(bytes, "fuzz", Some(f));
        }
        let _ = blkparse::parse_with_action(bytes, "fuzz", Some("C"));
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

        #[test]
        fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
            parse_all(&bytes);
        }

        #[test]
        fn near_miss_text_never_panics(
            text in "([0-9a-fA-FRWrwx,.+ \t:-]{0,60}(Read|Write|Hit|\\[p\\])?[ 0-9,.e-]{0,20}\r?\n){0,6}"
        ) {
            parse_all(text.as_bytes());
        }

        #[test]
        fn srt_records_never_panic(words in proptest::collection::vec(any::<i32>(), 0..40),
                                   sizes in proptest::collection::vec(0usize..4, 0..4)) {
            // Mostly plausible sizes and ids, so the parser gets past the first checks.
            let mut body = Vec::new();
            for (i, w) in words.iter().enumerate() {
                let w = match (i % 14, sizes.get(i % 4)) {
                    (0, Some(&s)) => [52, 56, 60, 3][s],
                    (1, Some(&s)) => [0x4_0001, 0x4_0004, 0x1_0001, 0x3_0004][s],
                    _ => *w,
                };
                body.extend_from_slice(&w.to_be_bytes());
            }
            parse_all(&[SRT_HEADER, &body].concat());
        }
    }
}

//! Streaming a large trace holds no list of its records: a counting allocator measures
//! the most memory live at once while a few hundred thousand lines are read.
//! (A test binary of its own, so that no other test allocates meanwhile.)

use spindle::trace::{open_trace, trace_extent, Format};
use std::alloc::{GlobalAlloc, Layout, System};
use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering};

struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let live = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
        PEAK.fetch_max(live, Ordering::Relaxed);
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: `ptr` came from `alloc` above with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Bytes allocated at the peak of `f`, above what was live when it started.
fn peak_during<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let base = LIVE.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let out = f();
    (out, PEAK.load(Ordering::Relaxed) - base)
}

#[test]
fn a_large_csv_streams_in_bounded_memory() {
    const LINES: u64 = 300_000;
    let dir = std::env::temp_dir().join(format!("spindle-trace-memory-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("large.csv");
    {
        let mut w = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
        writeln!(w, "arrival_ms,device,lbn,blocks,op").unwrap();
        for i in 0..LINES {
            let op = if i % 3 == 0 { 'W' } else { 'R' };
            writeln!(
                w,
                "{}.{:06},{},{},8,{op}",
                i / 10,
                i % 10 * 100,
                i % 4,
                i * 16
            )
            .unwrap();
        }
    }
    let size = std::fs::metadata(&path).unwrap().len();
    // A list of the records would take this much (and the file is bigger still).
    let as_vec = LINES as usize * std::mem::size_of::<spindle::trace::IoRecord>();
    assert!(as_vec > 10 << 20 && size > 6 << 20, "{as_vec} {size}");

    let ((count, last), peak) = peak_during(|| {
        let mut count = 0u64;
        let mut last = None;
        for r in open_trace(&path, None).unwrap() {
            let r = r.unwrap();
            count += 1;
            last = Some(r.arrival);
        }
        (count, last)
    });
    assert_eq!(count, LINES);
    assert_eq!(
        last.map(|t| t.0),
        Some((LINES - 1) / 10 * 1_000_000 + (LINES - 1) % 10 * 100)
    );
    eprintln!("streaming {LINES} records held at most {peak} bytes at once");
    assert!(peak < 1 << 20, "streaming held {peak} bytes at once");

    let (extent, peak) = peak_during(|| trace_extent(&path, Some(Format::SpindleCsv)).unwrap());
    assert_eq!(extent.records, LINES);
    assert_eq!(extent.max_end_lbn, (LINES - 1) * 16 + 8);
    assert_eq!(extent.devices.len(), 4);
    assert!(extent.in_order);
    assert!(peak < 1 << 20, "the extent pass held {peak} bytes at once");
    std::fs::remove_dir_all(&dir).unwrap();
}

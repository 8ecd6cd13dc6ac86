use spindle::disk::{Hdd, Request};
use spindle::disksim::import::import_first_disk;
use spindle::time::SimTime;
fn main() {
    let a: Vec<String> = std::env::args().collect();
    let p = import_first_disk(std::path::Path::new(&format!("data/disksim/{}.parv", a[1]))).unwrap();
    let mut h = Hdd::new(p).unwrap();
    let mut t = SimTime(0);
    let mut i = 2;
    while i + 2 < a.len() + 1 {
        let w = a[i] == "W"; let lbn: u64 = a[i+1].parse().unwrap(); let n: u32 = a[i+2].parse().unwrap();
        let loc = h.locate(lbn).unwrap();
        let c = h.service(t, Request { id: 0, lbn, blocks: n, write: w });
        println!("{} {lbn} {n}: {:.6} ms  {:?} loc {:?}", a[i], (c.done.0 - t.0) as f64 / 1e6, c.breakdown, loc);
        t = c.done;
        i += 3;
    }
}

use spindle::disk::presets::preset;
use spindle::disk::{Drive, Request};
use spindle::time::SimTime;
fn main() {
    let mut p = preset("cheetah15k5").unwrap();
    p.firmware.queue_depth = 8;
    let mut d = Drive::new(p).unwrap();
    let geo = d.hdd().geometry().clone();
    // build semi-seq like strands.rs
    let start = 1_000_000u64;
    let mut lbns = vec![start];
    let mut prev = start;
    for _ in 1..8 {
        let ploc = geo.locate(prev).unwrap(); let (_, last) = geo.track_bounds(prev).unwrap();
        let first = last + 1; let nloc = geo.locate(first).unwrap();
        let spt = nloc.spt as u64;
        let offset = 201u64;
        let target = (ploc.angle_sectors as u64 + offset) % spt;
        let s = (target + spt - nloc.angle_sectors as u64) % spt;
        prev = first + s; lbns.push(prev);
    }
    for &l in &lbns { let x = geo.locate(l).unwrap(); println!("lbn {l} {:?} angle {}", x.pbn, x.angle_sectors); }
    let reqs: Vec<Request> = lbns.iter().enumerate().map(|(i,&l)| Request{id:i as u64, lbn:l, blocks:8, write:false}).collect();
    let t = SimTime(50_000_000);
    for c in d.run_batch(t, &reqs) { println!("id {} start {:.3} done {:.3} bd {:?}", c.completion.id, (c.completion.start.0 - t.0) as f64/1e6, (c.completion.done.0-t.0) as f64/1e6, c.completion.breakdown); }
}

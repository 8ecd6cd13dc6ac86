use spindle::disk::presets::preset;
use spindle::experiments::random_io::random_io;
use spindle::experiments::strands::{strand_table, StrandConfig};
fn main() {
    for (name, blocks) in [("cheetah15k5", 8), ("wd-re3", 8), ("st34502lw", 1)] {
        let p = preset(name).unwrap();
        let r = random_io(&p, 5000, blocks, false, 1).unwrap();
        let w = random_io(&p, 5000, blocks, true, 1).unwrap();
        println!("{name}: read {:.3} (seek {:.3} rot {:.3} xfer {:.3} ovh {:.3}) write {:.3}", r.mean_ms, r.mean_seek_ms, r.mean_rotation_ms, r.mean_transfer_ms, r.mean_overhead_ms, w.mean_ms);
    }
    for n in ["cheetah15k5","wd-re3","st34502lw","mimic-base"] { let h = spindle::disk::Hdd::new(preset(n).unwrap()).unwrap(); println!("{n} avg seek {:.3} full {:.3} seek1 {:.3}", h.average_seek_ms(), h.full_stroke_ms(), h.seek_ns(1) as f64/1e6); }
    if std::env::args().count() > 1 {
        let p = preset("cheetah15k5").unwrap();
        let t = std::time::Instant::now();
        let rep = strand_table(&p, &StrandConfig { trials: 500, ..Default::default() }).unwrap();
        for r in &rep.rows { println!("{:?} n={} {:.2} ms  {:.3} OP var {:.2}", r.placement, r.requests, r.mean_strand_ms, r.per_request_op, r.var_strand_ms2); }
        for c in &rep.checks { println!("{} {} paper {} ours {:.3} {}", c.id, c.metric, c.paper, c.ours, if c.pass {"PASS"} else {"MISS"}); }
        println!("{:?}", t.elapsed());
    }
}
#[allow(dead_code)]
fn x() {}

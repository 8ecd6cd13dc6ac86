use spindle::disk::Hdd;
use spindle::disksim::import::import_first_disk;
use spindle::validate::{replay::validate, trace::read_validate_trace};
fn main() {
    for name in std::env::args().skip(1) {
        let parv = format!("data/disksim/{name}.parv");
        let p = import_first_disk(std::path::Path::new(&parv)).unwrap_or_else(|e| panic!("{e}"));
        let tr = read_validate_trace(std::path::Path::new(&format!("data/disksim/{name}.trace"))).unwrap();
        let mut h = Hdd::new(p).unwrap();
        let t = std::time::Instant::now();
        let r = validate(&name, &mut h, &tr);
        println!("{name}: rms {:.4} meas {:.4} sim {:.4}  ({:?})", r.rms_ms, r.mean_measured_ms, r.mean_simulated_ms, t.elapsed());
    }
}

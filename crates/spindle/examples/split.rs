use spindle::disk::Hdd;
use spindle::disksim::import::import_first_disk;
use spindle::validate::{replay::replay, trace::read_validate_trace, demerit::rms_demerit};
fn main() {
    let a: Vec<String> = std::env::args().collect();
    let name = &a[1];
    let p = import_first_disk(std::path::Path::new(&format!("data/disksim/{name}.parv"))).unwrap();
    let tr = read_validate_trace(std::path::Path::new(&format!("data/disksim/{name}.trace"))).unwrap();
    let mut h = Hdd::new(p).unwrap();
    let sim = replay(&mut h, &tr);
    let meas: Vec<f64> = tr.iter().map(|r| r.measured_us/1000.0).collect();
    for w in [false, true] {
        let idx: Vec<usize> = (0..tr.len()).filter(|&i| tr[i].write == w).collect();
        let s: Vec<f64> = idx.iter().map(|&i| sim[i]).collect();
        let m: Vec<f64> = idx.iter().map(|&i| meas[i]).collect();
        println!("{} n={} rms {:.4} mean meas {:.4} sim {:.4}", if w {"W"} else {"R"}, idx.len(), rms_demerit(&s,&m), m.iter().sum::<f64>()/m.len() as f64, s.iter().sum::<f64>()/s.len() as f64);
        let mut sv = s.clone(); sv.sort_by(|a,b| a.partial_cmp(b).unwrap());
        let mut mv = m.clone(); mv.sort_by(|a,b| a.partial_cmp(b).unwrap());
        for q in [0.01, 0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99] { let k = (q * sv.len() as f64) as usize; print!("q{q}: {:.2}/{:.2}  ", mv[k], sv[k]); } println!();
    }
    if a.len() > 3 {
        let lo: f64 = a[2].parse().unwrap(); let hi: f64 = a[3].parse().unwrap();
        let wonly = a.len() > 4 && a[4] == "W";
        for i in 1..tr.len() {
            if sim[i] >= lo && sim[i] < hi && (!wonly || tr[i].write) {
                println!("prev {} {} {} think {:.0} | {} {} {} meas {:.3} sim {:.3}", if tr[i-1].write {"W"} else {"R"}, tr[i-1].lbn, tr[i-1].blocks, tr[i-1].think_us, if tr[i].write {"W"} else {"R"}, tr[i].lbn, tr[i].blocks, meas[i], sim[i]);
            }
        }
    }
}

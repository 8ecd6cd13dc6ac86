//! Samples miniMimic's full thesis grid (skip 0–300 KB × size 4–200 KB × think
//! 0–7 ms, 50 samples a cell) on SCSI Disk 1's 40 MB log and writes the table:
//! `cargo run --release --example minimimic_grid -- OUT.mimic`.

use spindle::disk::drive::Drive;
use spindle::disk::presets::preset;
use spindle::mimic::minimimic::{sample, Grid, Region};
use spindle::stack::drive_node::DriveNode;

fn main() -> Result<(), String> {
    let out = std::env::args()
        .nth(1)
        .ok_or("usage: minimimic_grid OUT.mimic")?;
    let mut dev = DriveNode::new(
        Drive::new(preset("mimic-9lzx")?).map_err(|e| e.to_string())?,
        "disk",
    );
    let grid = Grid::thesis();
    let timed = grid.cells() as u64 * u64::from(grid.samples);
    let t0 = std::time::Instant::now();
    let m = sample(
        &mut dev,
        Region {
            start: 8,
            sectors: 40 * 256 * 8,
        },
        grid,
        1,
    )?;
    let secs = t0.elapsed().as_secs_f64();
    std::fs::write(&out, m.save()).map_err(|e| format!("{out}: {e}"))?;
    println!("{timed} timed writes in {secs:.1} s; table in {out}");
    Ok(())
}

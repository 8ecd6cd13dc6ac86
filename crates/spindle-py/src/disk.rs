//! `spindle.Disk`'s engine: a drive model's pure queries (where an LBN lies, how long
//! positioning takes, the seek curve), over arrays of values at a time.

use crate::columns::{self, Col};
use crate::errors::to_py;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use spindle::disk::hdd::HeadPos;
use spindle::disk::{Hdd, Location};
use spindle::time::SimTime;

/// Most values one query takes (8 bytes each, and up to seven result columns).
pub const MAX_QUERY: usize = 50_000_000;

type PyCols<'py> = Vec<(&'static str, &'static str, Bound<'py, PyBytes>)>;

/// A zone as the geometry summarises it: first and last cylinder, sectors per track,
/// first LBN, LBN count.
type ZoneRow = (u32, u32, u32, u64, u64);

/// A drive model loaded from a preset or a DiskSim `.parv` file.
#[pyclass(module = "spindle._core", frozen)]
pub struct DiskModel {
    hdd: Hdd,
    name: String,
    source: String,
}

/// LBNs sent from Python as little-endian uint64 bytes.
fn lbns(bytes: &[u8]) -> PyResult<Vec<u64>> {
    if !bytes.len().is_multiple_of(8) {
        return Err(PyValueError::new_err("LBNs: expected uint64 bytes"));
    }
    let n = bytes.len() / 8;
    if n > MAX_QUERY {
        return Err(PyValueError::new_err(format!(
            "at most {MAX_QUERY} values per query, got {n}"
        )));
    }
    Ok(columns::read_le::<8>("lbn", bytes, n)?
        .into_iter()
        .map(u64::from_le_bytes)
        .collect())
}

impl DiskModel {
    fn locate(&self, lbn: u64) -> PyResult<Location> {
        self.hdd.locate(lbn).ok_or_else(|| {
            PyValueError::new_err(format!(
                "LBN {lbn} lies beyond disk `{}`: its LBNs are 0..{}",
                self.name,
                self.hdd.capacity()
            ))
        })
    }
}

#[pymethods]
impl DiskModel {
    /// Loads a preset by name or the first disk of a DiskSim `.parv` file (as `spindle
    /// disk-info` does).
    #[new]
    fn new(py: Python<'_>, disk: &str) -> PyResult<DiskModel> {
        // Without the GIL: a drive file on a slow or blocking path holds no other thread.
        let built = py.detach(|| -> anyhow::Result<_> {
            let loaded = spindle_cli::disks::load_disk(disk)?;
            let name = loaded.params.name.clone();
            let hdd = spindle_cli::disks::build(loaded.params)?;
            Ok((hdd, name, loaded.source))
        });
        let (hdd, name, source) = built.map_err(to_py)?;
        Ok(DiskModel { hdd, name, source })
    }

    /// `spindle disk-info NAME --json`'s text.
    #[staticmethod]
    fn info_json(disk: &str) -> PyResult<String> {
        spindle_cli::disks::disk_info(disk, true).map_err(to_py)
    }

    #[getter]
    fn name(&self) -> String {
        self.name.clone()
    }

    #[getter]
    fn source(&self) -> String {
        self.source.clone()
    }

    /// Capacity in 512-byte sectors.
    #[getter]
    fn capacity(&self) -> u64 {
        self.hdd.capacity()
    }

    #[getter]
    fn cylinders(&self) -> u32 {
        self.hdd.geometry().cylinders()
    }

    #[getter]
    fn surfaces(&self) -> u32 {
        self.hdd.geometry().surfaces()
    }

    #[getter]
    fn rpm(&self) -> f64 {
        self.hdd.params().mech.rpm
    }

    #[getter]
    fn revolution_ns(&self) -> f64 {
        self.hdd.period_ns()
    }

    #[getter]
    fn average_seek_ms(&self) -> f64 {
        self.hdd.average_seek_ms()
    }

    #[getter]
    fn full_stroke_ms(&self) -> f64 {
        self.hdd.full_stroke_ms()
    }

    /// Zones: first and last cylinder, sectors per track, first LBN, LBN count.
    fn zones<'py>(&self, py: Python<'py>) -> PyResult<PyCols<'py>> {
        let z = self.hdd.geometry().zone_summary();
        let col =
            |f: &dyn Fn(&ZoneRow) -> u64| Col::I64(z.iter().map(|r| columns::ns(f(r))).collect());
        let cols = vec![
            ("zone", Col::I64((0..z.len() as i64).collect())),
            ("first_cylinder", col(&|r| u64::from(r.0))),
            ("last_cylinder", col(&|r| u64::from(r.1))),
            ("sectors_per_track", col(&|r| u64::from(r.2))),
            ("first_lbn", col(&|r| r.3)),
            ("lbn_count", col(&|r| r.4)),
        ];
        columns::to_py(py, &cols)
    }

    /// Where each LBN lies: cylinder, head (surface), sector (index on its track in
    /// LBN order), zone, track (zone-relative), angle (sectors from the index mark),
    /// sectors per track.
    fn locate_many<'py>(&self, py: Python<'py>, lbn: &[u8]) -> PyResult<PyCols<'py>> {
        let lbns = lbns(lbn)?;
        let mut out: [Vec<i64>; 7] = Default::default();
        for &l in &lbns {
            let loc = self.locate(l)?;
            let v = [
                i64::from(loc.pbn.cyl),
                i64::from(loc.pbn.head),
                i64::from(loc.pbn.sector),
                loc.zone as i64,
                columns::ns(loc.track),
                i64::from(loc.angle_sectors),
                i64::from(loc.spt),
            ];
            for (c, x) in out.iter_mut().zip(v) {
                c.push(x);
            }
        }
        let names = [
            "cylinder",
            "head",
            "sector",
            "zone",
            "track",
            "angle_sectors",
            "sectors_per_track",
        ];
        let cols = names.into_iter().zip(out.map(Col::I64)).collect();
        columns::to_py(py, &cols)
    }

    /// The LBN at (cylinder, head, sector), or None for a spare or unmapped sector.
    fn lbn_of(&self, cylinder: u32, head: u32, sector: u32) -> Option<u64> {
        self.hdd.geometry().lbn_of(spindle::disk::Pbn {
            cyl: cylinder,
            head,
            sector,
        })
    }

    /// Positioning (seek with head switch and write settle, ns) and rotational latency
    /// (ns) from the track of each `from` LBN to the first sector of each `to` LBN, the
    /// head arriving over `from` at `now_ns` (the platters at their angle at that time,
    /// angle 0 at time 0). Pure: the model's state is not touched.
    fn positioning_many<'py>(
        &self,
        py: Python<'py>,
        from: &[u8],
        to: &[u8],
        write: bool,
        now_ns: u64,
    ) -> PyResult<PyCols<'py>> {
        let (from, to) = (lbns(from)?, lbns(to)?);
        if from.len() != to.len() {
            return Err(PyValueError::new_err(format!(
                "from and to must have the same length, got {} and {}",
                from.len(),
                to.len()
            )));
        }
        let (mut seek, mut rot) = (Vec::new(), Vec::new());
        for (&f, &t) in from.iter().zip(&to) {
            let at = self.locate(f)?;
            self.locate(t)?;
            let head = HeadPos {
                cyl: at.pbn.cyl,
                head: at.pbn.head,
            };
            let (s, r) = self
                .hdd
                .positioning_time(head, SimTime(now_ns), t, write)
                .ok_or_else(|| PyValueError::new_err(format!("LBN {t} cannot be located")))?;
            seek.push(columns::ns(s));
            rot.push(columns::ns(r));
        }
        let cols = vec![("seek_ns", Col::I64(seek)), ("rotation_ns", Col::I64(rot))];
        columns::to_py(py, &cols)
    }

    /// Seek time (ns) for every distance 0..=`max_distance` cylinders.
    fn seek_curve<'py>(&self, py: Python<'py>, max_distance: u32) -> PyResult<PyCols<'py>> {
        if max_distance as usize > MAX_QUERY {
            return Err(PyValueError::new_err(format!(
                "max_distance must be at most {MAX_QUERY}, got {max_distance}"
            )));
        }
        let d: Vec<i64> = (0..=i64::from(max_distance)).collect();
        let s: Vec<i64> = (0..=max_distance)
            .map(|x| columns::ns(self.hdd.seek_ns(x)))
            .collect();
        let cols = vec![("distance", Col::I64(d)), ("seek_ns", Col::I64(s))];
        columns::to_py(py, &cols)
    }
}

/// The built-in presets as `spindle disks --json` lists them (with `flash`, the flash
/// presets, `spindle disks --flash --json`).
#[pyfunction]
#[pyo3(signature = (flash=false))]
pub fn presets(flash: bool) -> PyResult<String> {
    spindle_cli::disks::disks(true, flash).map_err(to_py)
}

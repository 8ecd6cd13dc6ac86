//! DiskSim `.parv` → spindle disks.
//!
//! Follows `reference/disksim-format.md` §3–§5 and §8: the `disksim_disk` block (with
//! its `dm_disk` model, G1 layout and G1 mechanics) becomes a [`DiskParams`]; the bus
//! the disk hangs on in the topology supplies the per-block transfer time. Parameters
//! that DiskSim accepts but ignores are accepted; values asking for behaviour spindle
//! does not model are refused with the file and line that asked for them.
//!
//! # Accepted and ignored in the bundled suite files
//!
//! Measured by perturbing each parameter of the eight `synth*.parv` files and of the
//! drive files they and the validation `.parv` files source (each number ×1.5, ×0.5 or
//! ±1, each name swapped for another valid one), running `spindle run --disksim` and
//! DiskSim on the result, and comparing the response figures. These change neither
//! spindle's nor DiskSim's, so ignoring them is safe:
//!
//! - Output only: `Stat definition file`, every `Print … stats` and `Print stats`, the
//!   logorg `Time stamp …` settings.
//! - `Init Seed`: the `Real Seed` after it is what DiskSim seeds the generator with.
//! - Settings of a feature these files switch off: the driver queue's `Maximum concat
//!   size` and `Sequential stream diff maximum` (sequential stream scheme 0), `Timeout
//!   time/weight` and `Timeout scheduling` (timeout scheme 0), `Priority scheduling`
//!   (priority scheme 0), `Cylinder mapping strategy` (LBN-ordered policies); a
//!   one-disk `Parts`/`Asis`/`Noredun` logorg's striping, copy and parity settings;
//!   `Think time from call to request`/`from request to return` (no system calls);
//!   the time-limited think times and the sequential and local inter-arrival times
//!   and distances of a generator whose matching probability is 0; `Maximum time of
//!   trace generated` (the request count stops every run first); the extra-disconnect
//!   delays (`Extra write disconnect = 0`); a cache's `Flush period` under `Flush
//!   policy = 0`, and `Flush max line cluster` and `Max gather` with idle flushing off
//!   (`Flush idle delay = -1`); a cache's `Max request size` larger than any request.
//! - Settings that cannot matter here: `Use queueing in subsystem` and `Max queue
//!   length` where every disk takes one request at a time; the timing and arbitration
//!   type of a bus no disk hangs on (a pass-through controller moves data on the
//!   disk's bus only) and the arbitration type of a bus one disk uses; the drive
//!   parameters of disks no generator reaches (`synthopen`'s `disk0` and `disk1`: one
//!   processor runs only the last generator, in DiskSim too).
//! - Values DiskSim derives rather than reads: `Block count` and `Number of cylinders`
//!   of a `dm_disk` (the zones decide both), the `Seek distances measured` count
//!   (DiskSim reads every row), `Percent error in rpms` (DiskSim 4.0 ignores it).
//! - Disk cache and overhead settings the suite's workloads never reach (for example
//!   `Allow almost read hits`, `Read-ahead over requested`, `Minimum seek delay`,
//!   `Set watermark by reqsize`); DiskSim's figures do not move either.
//! - `Extra write disconnect` and the `Extradisc …` times in a whole configuration
//!   (`spindle run --disksim`): the DiskSim build the suite is measured with never marks
//!   a write for the extra disconnect (that code is commented out), so these change
//!   nothing there, and a whole configuration drops them too (hp_c2247a then gives
//!   DiskSim's 21.107 ms exactly). A drive imported alone, as for validation against
//!   its traces, keeps them.
//! - The direction of `disksim_simpledisk` requests (`Probability of read access` in
//!   synthsimpledisk): the simple disk takes the same time for reads and writes
//!   (DiskSim with one generator process: 11.2248 ms for all reads and for all
//!   writes). A read starts its access at once and raises no ready-to-transfer
//!   interrupt, so with several processes the direction reorders which process draws
//!   next from DiskSim's one random stream; over twelve seeds all reads give
//!   13.49 ± 0.24 ms and all writes 13.46 ± 0.15 ms. The single change 0.66 → 0.99
//!   (13.57 → 13.99 ms at seed 42) is that scatter, not a read/write difference.
//! - Changes below DiskSim's floating-point noise or at most one request: atlas10k's
//!   `Read miss over. after write` and `Write hit over. after write` (DiskSim's figures
//!   move by under 0.00001 ms), `Immediate buffer write = 1` on hp_c3323a (synthmixed
//!   22.1234 → 22.1232 ms), and a one-sector `defects` remap such as `[1000, 1001]`
//!   (remaps are modelled; DiskSim moves by at most 0.0002 ms because at most one of
//!   its requests crosses the sector, and spindle's request stream is not DiskSim's).
//! - An intelligent controller queue's `Sequential stream scheme`: spindle never
//!   concatenates requests there. DiskSim does only with bit 2 (writes), which the
//!   shipped 3 sets: synthcachedev 29.026 ms with 2, 3 or 7 against 29.038 with 0, 1,
//!   4, 8 or 16 (0.04 %, inside the suite's tolerance); the stream bits change nothing.
//!
//! Modelled as DiskSim does, after the same perturbation showed them moving DiskSim
//! alone (seed 42): `Never disconnect = 1` on a drive that is the only one of its bus
//! that requests reach (a write arriving during a write-back goes into the buffer at
//! once, a read hit is sent at once: synthopen DiskSim 10.937 → 10.622 ms, spindle
//! 10.935 → 10.608; on hp_c3323a synthmixed 23.24 against 23.20, synthraid5 34.98
//! against 34.99, synthcachemem 24.14 against 24.01); `Read disconnect afterread`/`afterwrite` in
//! mid-transfer (atlas10k +0.036/+0.012 ms in both); `Write disconnect overhead` of a
//! write-back drive that disconnects at arrival (synthopen DiskSim +0.0023 ms, spindle
//! +0.0021);
//! `Hold bus entire read xfer = 0` for a partial hit riding the read-ahead, which
//! disconnects when the buffer runs dry (synthraid5 on hp_c3323a: DiskSim +0.033 ms,
//! spindle +0.009; synthcachemem +0.067 against +0.002). The rest of that last
//! difference, at most 0.3 %, is left: DiskSim's drive gives the bus to other disks
//! while it waits, which spindle's shared bus does not model for partial hits.
//!
//! Refused because DiskSim's result moves with them and spindle does not model them: a
//! bus `type` of 2 (interleaved) that disks hang on (synthopen 10.94 → 13.14 ms in
//! DiskSim), any `Arbitration time` on a `disksim_simpledisk` bus (13.57 → 17.28 ms),
//! `Seek type` other than `extracted` beside a `Full seek curve` (DiskSim then uses
//! that type's seek function: synthclosed 87.82 → 54.76 ms with `constant`); a
//! generator device that no logorg covers (DiskSim stops at its first request); and
//! `Never disconnect = 1` on a drive sharing its bus with other disks that requests
//! reach. Such a drive owns the bus from each command to its completion, seeks and
//! rotations included, and the others queue for it; spindle's hand-over of the bus
//! then misses DiskSim's (syntharrays, four drives a bus behind pass-through
//! controllers: 2741.5 ms against 1466.7; synthcachedev, two on an intelligent
//! controller's bus: 40.73 against 29.76), though the drive alone matches
//! (synthcachedev with its disks on buses of their own: 27.32 against 27.07).

use super::param::{parse_file, Block, Loc, ParamError, ParamFile, Topology, Value};
use crate::disk::geometry::{GeometrySpec, Sparing, TrackOrder, ZoneSpec};
use crate::disk::params::{
    AfterPrev, Cache, Controller, DiskParams, ExtraDisconnect, Firmware, FirmwarePolicy, Mechanics,
    ReadAhead,
};
use crate::disk::params::{
    MAX_CACHE_SEGMENTS, MAX_CYLINDERS, MAX_FIRMWARE_QUEUE_DEPTH, MAX_RPM, MAX_SECTORS_PER_TRACK,
    MAX_SEGMENT_BLOCKS, MAX_SURFACES, MAX_TIME_MS, MIN_RPM,
};
use crate::disk::seek::SeekCurve;
use std::path::Path;

#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    #[error("{0}")]
    Param(#[from] ParamError),
    #[error("{loc}: {msg}")]
    At { loc: String, msg: String },
    #[error("{file}: {msg}")]
    File { file: String, msg: String },
}

fn at<T>(loc: &Loc, msg: impl Into<String>) -> Result<T, ImportError> {
    Err(ImportError::At {
        loc: loc.to_string(),
        msg: msg.into(),
    })
}

/// One simulated disk found in a `.parv`: its instance name and parameters.
#[derive(Clone, Debug)]
pub struct ImportedDisk {
    pub instance: String,
    pub params: DiskParams,
    /// The bus it hangs on in the topology (its instance name), if any.
    pub bus: Option<String>,
}

/// Reads the auxiliary files a parameter file names (the `.seek` curve): from disk, or
/// from files built into the binary for presets.
pub type FileReader<'a> = &'a dyn Fn(&Path) -> std::io::Result<String>;

/// Reads an auxiliary file of at most [`super::param::MAX_PARAM_BYTES`] (a device
/// such as /dev/zero, or a huge file, is refused before it fills memory).
pub(crate) fn read_from_disk(p: &Path) -> std::io::Result<String> {
    use std::io::Read;
    super::param::note_read(p);
    let limit = super::param::MAX_PARAM_BYTES;
    let mut text = String::new();
    std::fs::File::open(p)?
        .take(limit + 1)
        .read_to_string(&mut text)?;
    if text.len() as u64 > limit {
        return Err(std::io::Error::other(format!(
            "larger than {limit} bytes, the limit for a parameter file"
        )));
    }
    Ok(text)
}

/// Loads every disk of a `.parv` system, in topology order.
pub fn import_parv(path: &Path) -> Result<Vec<ImportedDisk>, ImportError> {
    let file = parse_file(path)?;
    import_system(&file, path, &read_from_disk)
}

/// Loads every disk of a `.parv` system already parsed from `path`, reading auxiliary
/// files through `reader`.
pub(crate) fn import_parsed(
    file: &ParamFile,
    path: &Path,
    reader: FileReader,
) -> Result<Vec<ImportedDisk>, ImportError> {
    import_system(file, path, reader)
}

/// Loads every disk of a parameter text that is already in memory (sources spliced in),
/// reading auxiliary files through `reader`. `path` names the text in messages.
pub fn import_parv_text(
    text: &str,
    path: &Path,
    reader: FileReader,
) -> Result<Vec<ImportedDisk>, ImportError> {
    let file = super::param::parse_str(text, path)?;
    import_system(&file, path, reader)
}

/// Loads the first disk of a `.parv` (the validation files have exactly one).
pub fn import_first_disk(path: &Path) -> Result<DiskParams, ImportError> {
    let disks = import_parv(path)?;
    disks
        .into_iter()
        .next()
        .map(|d| d.params)
        .ok_or_else(|| ImportError::File {
            file: path.display().to_string(),
            msg: "no disksim_disk is instantiated in the topology".into(),
        })
}

fn import_system(
    file: &ParamFile,
    path: &Path,
    reader: FileReader,
) -> Result<Vec<ImportedDisk>, ImportError> {
    // instance name → spec block name
    let mut spec_of = std::collections::HashMap::new();
    for inst in &file.instantiations {
        for n in &inst.names {
            spec_of.insert(n.clone(), (inst.spec.clone(), inst.loc.clone()));
        }
    }
    let mut found = Vec::new();
    for topo in &file.topologies {
        collect_disks(topo, None, &mut found);
    }
    if found.is_empty() {
        // No topology: accept a file that defines a single disk block directly.
        for b in &file.blocks {
            if b.resolved(file).type_name == "disksim_disk" {
                let name = b.name.clone().unwrap_or_default();
                let params = import_disk_block(file, b, None, path, reader)?;
                check_model(&params, path)?;
                return Ok(vec![ImportedDisk {
                    instance: name,
                    params,
                    bus: None,
                }]);
            }
        }
        return Err(ImportError::File {
            file: path.display().to_string(),
            msg: "no disksim_disk in the topology and no disksim_disk block".into(),
        });
    }
    if found.len() > MAX_DISKS {
        return Err(ImportError::File {
            file: path.display().to_string(),
            msg: format!(
                "the topology holds {} disks; at most {MAX_DISKS} are imported from one file",
                found.len()
            ),
        });
    }
    let mut out: Vec<ImportedDisk> = Vec::new();
    // Disks of one spec on buses of one spec import alike: an array's members are
    // read and checked once.
    let mut done: Vec<(&str, Option<&str>, usize)> = Vec::new();
    for (disk, bus, loc) in found {
        let Some((spec, iloc)) = spec_of.get(&disk) else {
            return at(
                &loc,
                format!("disk `{disk}` appears in the topology but is never instantiated"),
            );
        };
        let Some(block) = file.block(spec) else {
            return at(
                iloc,
                format!("`{disk}` is instantiated as `{spec}`, which is not defined"),
            );
        };
        let bus_block = match &bus {
            Some(b) => match spec_of.get(b) {
                Some((bspec, _)) => file.block(bspec),
                None => {
                    return at(
                        &loc,
                        format!("bus `{b}` appears in the topology but is never instantiated"),
                    )
                }
            },
            None => None,
        };
        let bus_spec = bus_block.and_then(|b| b.name.as_deref());
        let key = (spec.as_str(), bus_spec);
        let params = match done.iter().find(|d| (d.0, d.1) == key) {
            Some(&(_, _, i)) => out[i].params.clone(),
            None => {
                let params = import_disk_block(file, block, bus_block, path, reader)?;
                check_model(&params, path)?;
                done.push((key.0, key.1, out.len()));
                params
            }
        };
        out.push(ImportedDisk {
            instance: disk,
            params,
            bus,
        });
    }
    Ok(out)
}

/// Most disks one parameter file's topology may hold.
pub const MAX_DISKS: usize = 1024;

/// Builds the drive model once, so a parameter set the model cannot run (a seek curve
/// beyond its limits, a geometry with no sectors) is refused naming the file.
fn check_model(params: &DiskParams, path: &Path) -> Result<(), ImportError> {
    crate::disk::Hdd::new(params.clone())
        .map(|_| ())
        .map_err(|e| ImportError::File {
            file: path.display().to_string(),
            msg: format!("disk `{}`: {e}", params.name),
        })
}

fn collect_disks(
    t: &Topology,
    parent_bus: Option<&str>,
    out: &mut Vec<(String, Option<String>, Loc)>,
) {
    if t.type_name == "disksim_disk" {
        out.push((
            t.name.clone(),
            parent_bus.map(str::to_string),
            t.loc.clone(),
        ));
    }
    let bus = if t.type_name == "disksim_bus" {
        Some(t.name.as_str())
    } else {
        parent_bus
    };
    for c in &t.children {
        collect_disks(c, bus, out);
    }
}

/// Typed access to a block's parameters, with errors that point at the file and line.
struct P<'a> {
    b: Block,
    file: &'a ParamFile,
}

impl<'a> P<'a> {
    fn new(b: &Block, file: &'a ParamFile) -> P<'a> {
        P {
            b: b.resolved(file),
            file,
        }
    }

    fn what(&self) -> String {
        match &self.b.name {
            Some(n) => format!("{} `{n}`", self.b.type_name),
            None => self.b.type_name.clone(),
        }
    }

    fn missing<T>(&self, name: &str) -> Result<T, ImportError> {
        at(
            &self.b.loc,
            format!("{} lacks the required parameter `{name}`", self.what()),
        )
    }

    fn float_opt(&self, name: &str) -> Result<Option<f64>, ImportError> {
        match self.b.get(name) {
            None => Ok(None),
            Some(p) => match &p.value {
                Value::Float(f) if f.is_finite() => Ok(Some(*f)),
                Value::Float(f) => at(
                    &p.loc,
                    format!("`{name}` must be a finite number, found {f}"),
                ),
                Value::Int(i) => Ok(Some(*i as f64)),
                v => at(
                    &p.loc,
                    format!("`{name}` must be a number, found {}", shown(v)),
                ),
            },
        }
    }

    fn float_or(&self, name: &str, default: f64) -> Result<f64, ImportError> {
        Ok(self.float_opt(name)?.unwrap_or(default))
    }

    fn int_opt(&self, name: &str) -> Result<Option<i64>, ImportError> {
        match self.b.get(name) {
            None => Ok(None),
            Some(p) => match &p.value {
                Value::Int(i) => Ok(Some(*i)),
                Value::Float(f) => at(&p.loc, format!("`{name}` must be an integer, found {f}")),
                v => at(
                    &p.loc,
                    format!("`{name}` must be an integer, found {}", shown(v)),
                ),
            },
        }
    }

    fn int(&self, name: &str) -> Result<i64, ImportError> {
        self.int_opt(name)?.map_or_else(|| self.missing(name), Ok)
    }

    fn int_or(&self, name: &str, default: i64) -> Result<i64, ImportError> {
        Ok(self.int_opt(name)?.unwrap_or(default))
    }

    fn uint(&self, name: &str) -> Result<u64, ImportError> {
        let v = self.int(name)?;
        if v < 0 {
            return at(
                self.loc(name),
                format!("`{name}` must not be negative, found {v}"),
            );
        }
        Ok(v as u64)
    }

    /// An integer within `lo..=hi`, or `default` when the parameter is absent. The
    /// error names the parameter, its value and the range (nothing is clamped).
    fn int_in(&self, name: &str, default: i64, lo: i64, hi: i64) -> Result<i64, ImportError> {
        let v = self.int_or(name, default)?;
        if v < lo || v > hi {
            let expected = if hi == i64::MAX {
                format!("at least {lo}")
            } else {
                format!("within {lo}..={hi}")
            };
            return at(
                self.loc(name),
                format!("`{name}` must be {expected}, found {v}"),
            );
        }
        Ok(v)
    }

    /// A required integer within `lo..=hi`.
    fn uint_in(&self, name: &str, lo: u64, hi: u64) -> Result<u64, ImportError> {
        let v = self.int(name)?;
        if v < lo as i64 || v as u64 > hi {
            return at(
                self.loc(name),
                format!("`{name}` must be within {lo}..={hi}, found {v}"),
            );
        }
        Ok(v as u64)
    }

    /// A time in ms: finite and within `0..=MAX_TIME_MS` (absent: `default`).
    fn time_or(&self, name: &str, default: f64) -> Result<f64, ImportError> {
        let v = self.float_or(name, default)?;
        if !(0.0..=MAX_TIME_MS).contains(&v) {
            return at(
                self.loc(name),
                format!("`{name}` must be a time within 0..={MAX_TIME_MS} ms, found {v}"),
            );
        }
        Ok(v)
    }

    fn flag(&self, name: &str) -> Result<bool, ImportError> {
        Ok(self.int_or(name, 0)? != 0)
    }

    fn string_opt(&self, name: &str) -> Result<Option<String>, ImportError> {
        match self.b.get(name) {
            None => Ok(None),
            Some(p) => match &p.value {
                Value::Str(s) => Ok(Some(s.clone())),
                _ => at(&p.loc, format!("`{name}` must be a word")),
            },
        }
    }

    fn block(&self, name: &str) -> Result<P<'a>, ImportError> {
        match self.b.get(name) {
            None => self.missing(name),
            Some(p) => match &p.value {
                Value::Block(b) => Ok(P::new(b, self.file)),
                _ => at(&p.loc, format!("`{name}` must be a block")),
            },
        }
    }

    fn loc(&self, name: &str) -> &Loc {
        self.b.get(name).map(|p| &p.loc).unwrap_or(&self.b.loc)
    }

    /// Refuses a parameter whose value asks for behaviour spindle does not model.
    fn require(&self, name: &str, ok: impl Fn(f64) -> bool, why: &str) -> Result<(), ImportError> {
        if let Some(v) = self.float_opt(name)? {
            if !ok(v) {
                return at(
                    self.loc(name),
                    format!("`{name}` = {v}: {why} is not modelled"),
                );
            }
        }
        Ok(())
    }
}

/// Refuses a parameter name outside its block type's DiskSim table, in `block` and
/// every block nested in it (after inheritance, so a parent's names are checked too).
pub(crate) fn check_names(block: &Block, file: &ParamFile) -> Result<(), ImportError> {
    let (type_name, params) = block.resolved_ref(file);
    if let Some(valid) = super::names::known(type_name) {
        for p in &params {
            if valid.contains(&p.name.as_str()) {
                continue;
            }
            let hint = match super::names::nearest(&p.name, valid) {
                Some(n) => format!("; did you mean `{n}`?"),
                None => String::new(),
            };
            return at(
                &p.loc,
                format!(
                    "`{}` is not a parameter of {type_name} (DiskSim would ignore it and use its default){hint}",
                    p.name
                ),
            );
        }
    }
    for p in &params {
        check_value_names(&p.value, file)?;
    }
    Ok(())
}

fn check_value_names(v: &Value, file: &ParamFile) -> Result<(), ImportError> {
    match v {
        Value::Block(inner) => check_names(inner, file),
        Value::List(items) => items
            .iter()
            .try_for_each(|i| check_value_names(&i.value, file)),
        _ => Ok(()),
    }
}

/// Builds one disk from its `disksim_disk` block and (optionally) the bus it is on.
pub fn import_disk_block(
    file: &ParamFile,
    block: &Block,
    bus: Option<&Block>,
    parv: &Path,
    reader: FileReader,
) -> Result<DiskParams, ImportError> {
    check_names(block, file)?;
    if let Some(bus) = bus {
        check_names(bus, file)?;
    }
    let d = P::new(block, file);
    if d.b.type_name != "disksim_disk" {
        return at(
            &d.b.loc,
            format!("expected a disksim_disk block, found {}", d.b.type_name),
        );
    }
    let model = d.block("Model")?;
    if model.b.type_name != "dm_disk" {
        return at(
            &model.b.loc,
            format!(
                "`Model` must be a dm_disk block, found {}",
                model.b.type_name
            ),
        );
    }
    // DiskSim derives these two from the zones, but its loader still reads them as
    // integers: a value of another kind is an error there too.
    for derived in ["Block count", "Number of cylinders"] {
        model.int_opt(derived)?;
    }
    let geometry = import_layout(&model)?;
    let mech = import_mechanics(&model, reader)?;

    // Unmodelled controller features: refuse rather than guess.
    d.require(
        "Per-request overhead time",
        |v| v == 0.0,
        "a per-request overhead",
    )?;
    d.require(
        "Allow sneaky full read hits",
        |v| v == 0.0,
        "sneaky read hits",
    )?;
    d.require(
        "Allow sneaky partial read hits",
        |v| v == 0.0,
        "sneaky read hits",
    )?;
    d.require(
        "Allow sneaky intermediate read hits",
        |v| v == 0.0,
        "sneaky read hits",
    )?;
    d.require(
        "Allow write prebuffering",
        |v| v == 0.0,
        "write prebuffering",
    )?;
    d.require("Preseeking level", |v| v == 0.0, "preseeking")?;
    d.require(
        "Disconnect write if seek",
        |v| v == 0.0,
        "disconnect-write-if-seek",
    )?;
    d.require(
        "Minimum read-ahead (blks)",
        |v| v == 0.0,
        "a non-pre-emptible read-ahead minimum",
    )?;
    d.require(
        "Read directly to buffer",
        |v| v == 1.0,
        "reading through a separate sector buffer",
    )?;
    d.require(
        "Immed transfer partial hit",
        |v| v == 1.0,
        "delaying partial-hit transfers",
    )?;
    // The drive always stops a running read-ahead for a write that takes a segment
    // (DiskSim's behaviour with 1).
    d.require(
        "Write hit stop prefetch",
        |v| v == 1.0,
        "a read-ahead running on past a write",
    )?;

    let scale = d.float_or("Time scale for overheads", 1.0)?;
    if !(0.0..=1e6).contains(&scale) {
        return at(
            d.loc("Time scale for overheads"),
            format!("`Time scale for overheads` must be within 0..=1000000, found {scale}"),
        );
    }
    let ap = |r: &str, w: &str| -> Result<AfterPrev, ImportError> {
        Ok(AfterPrev {
            after_read: d.time_or(r, 0.0)? * scale,
            after_write: d.time_or(w, 0.0)? * scale,
        })
    };
    let bulk = d.time_or("Bulk sector transfer time", 0.0)?;
    let (bus_r, bus_w) = match bus {
        Some(b) => {
            let b = P::new(b, file);
            (
                b.time_or("Read block transfer time", 0.0)?,
                b.time_or("Write block transfer time", 0.0)?,
            )
        }
        None => (0.0, 0.0),
    };
    let extra = if d.flag("Extra write disconnect")? {
        Some(ExtraDisconnect {
            command_ms: d.time_or("Extradisc command overhead", 0.0)? * scale,
            disconnect_ms: d.time_or("Extradisc disconnect overhead", 0.0)? * scale,
            inter_disconnect_ms: d.time_or("Extradisc inter-disconnect delay", 0.0)? * scale,
            second_disconnect_ms: d.time_or("Extradisc 2nd disconnect overhead", 0.0)? * scale,
            seek_delta_ms: d.float_or("Extradisc seek delta", 0.0)?,
        })
    } else {
        None
    };
    let ctrl = Controller {
        read_hit: ap("Read hit over. after read", "Read hit over. after write")?,
        read_miss: ap("Read miss over. after read", "Read miss over. after write")?,
        write_hit: ap("Write hit over. after read", "Write hit over. after write")?,
        write_miss: ap(
            "Write miss over. after read",
            "Write miss over. after write",
        )?,
        read_complete_ms: d.time_or("Read completion overhead", 0.0)? * scale,
        write_complete_ms: d.time_or("Write completion overhead", 0.0)? * scale,
        data_prep_ms: d.time_or("Data preparation overhead", 0.0)? * scale,
        first_reselect_ms: d.time_or("First reselect overhead", 0.0)? * scale,
        other_reselect_ms: d.time_or("Other reselect overhead", 0.0)? * scale,
        read_disconnect: ap("Read disconnect afterread", "Read disconnect afterwrite")?,
        write_disconnect_ms: d.time_or("Write disconnect overhead", 0.0)? * scale,
        extra_write_disconnect: extra,
        min_seek_ms: d.time_or("Minimum seek delay", 0.0)?,
        bus_read_block_ms: bulk.max(bus_r),
        bus_write_block_ms: bulk.max(bus_w),
        hold_bus_read: d.flag("Hold bus entire read xfer")?,
        hold_bus_write: d.flag("Hold bus entire write xfer")?,
        never_disconnect: d.flag("Never disconnect")?,
    };

    let segments = d.uint_in("Number of buffer segments", 1, MAX_CACHE_SEGMENTS as u64)?;
    let seg_size = d.uint_in("Segment size (in blks)", 1, MAX_SEGMENT_BLOCKS as u64)?;
    let mode = d.int_or("Buffer continuous read", 0)?;
    let read_ahead = match mode {
        0 => ReadAhead::None,
        1 => ReadAhead::ToTrackEnd,
        2 => ReadAhead::ToCylinderEnd,
        3 => ReadAhead::Max,
        4 => ReadAhead::OneTrackAhead,
        v => {
            return at(
                d.loc("Buffer continuous read"),
                format!("`Buffer continuous read` must be 0–4, found {v}"),
            )
        }
    };
    let max_ra = d.uint("Maximum read-ahead (blks)")?;
    if max_ra > seg_size {
        return at(
            d.loc("Maximum read-ahead (blks)"),
            format!("maximum read-ahead {max_ra} exceeds the segment size {seg_size}"),
        );
    }
    let cache = Cache {
        enabled: d.int_or("Enable caching in buffer", 1)? != 0,
        segments: segments as u32,
        segment_blocks: seg_size as u32,
        max_write_segments: d.int_in("Maximum number of write segments", 1, 1, segments as i64)?
            as u32,
        separate_write_segment: d.flag("Use separate write segment")?,
        read_ahead,
        max_read_ahead: max_ra as u32,
        read_ahead_over_requested: d.int_in("Read-ahead over requested", 1, -1, 1)? as i32,
        read_ahead_on_idle_hit: d.flag("Read-ahead on idle hit")?,
        read_any_free_blocks: d.flag("Read any free blocks")?,
        read_hits_on_write_data: d.flag("Allow read hits on write data")?,
        fast_write_level: d.int_in("Fast write level", 0, 0, 2)? as u32,
        combine_seq_writes: d.flag("Combine seq writes")?,
        stop_prefetch_in_sector: d.flag("Stop prefetch in sector")?,
        immediate_read: d.flag("Immediate buffer read")?,
        immediate_write: d.flag("Immediate buffer write")?,
        high_water: d.time_or("High (read) water mark", 0.0)?,
        low_water: d.time_or("Low (write) water mark", 0.0)?,
        watermark_by_reqsize: d.flag("Set watermark by reqsize")?,
        almost_read_hits: d.flag("Allow almost read hits")?,
        disksim_write_segment: false,
        buffer_residual: Default::default(),
    };

    let depth = d.int_in("Max queue length", 1, 1, MAX_FIRMWARE_QUEUE_DEPTH as i64)? as u32;
    let policy = match d.b.get("Scheduler").map(|p| &p.value) {
        Some(Value::Block(b)) => {
            let s = P::new(b, file);
            // Only the policy of the drive's own queue is modelled; its other schemes
            // (which DiskSim applies once the drive holds several requests) must be off.
            for (key, what) in [
                (
                    "Scheduling priority scheme",
                    "a priority queue inside the drive",
                ),
                (
                    "Sequential stream scheme",
                    "joining sequential requests inside the drive",
                ),
                (
                    "Overlapping request scheme",
                    "overlapping-request handling inside the drive",
                ),
                (
                    "Scheduling timeout scheme",
                    "request timeouts inside the drive",
                ),
                (
                    "Write initiation delay",
                    "an initiation delay inside the drive",
                ),
                (
                    "Read initiation delay",
                    "an initiation delay inside the drive",
                ),
            ] {
                s.require(key, |v| v == 0.0, what)?;
            }
            match s.int_or("Scheduling policy", 1)? {
                1 => FirmwarePolicy::Fcfs,
                8 => FirmwarePolicy::Sptf,
                v => {
                    return at(
                        s.loc("Scheduling policy"),
                        format!("disk scheduling policy {v} is not modelled inside the drive (1 = FCFS and 8 = SPTF are)"),
                    )
                }
            }
        }
        _ => FirmwarePolicy::Fcfs,
    };

    let name = block.name.clone().unwrap_or_else(|| "disk".into());
    Ok(DiskParams {
        name,
        provenance: format!("imported from DiskSim parameter file {}", parv.display()),
        geometry,
        mech,
        ctrl,
        cache,
        firmware: Firmware {
            queue_depth: depth,
            policy,
            turnaround_ms: 0.0,
            write_cache_sectors: 0,
        },
    })
}

fn import_layout(model: &P) -> Result<GeometrySpec, ImportError> {
    let surfaces = model.uint_in("Number of data surfaces", 1, MAX_SURFACES as u64)?;
    let layout = model.block("Layout Model")?;
    if layout.b.type_name != "dm_layout_g1" {
        return at(
            &layout.b.loc,
            format!(
                "layout `{}` is not modelled (only dm_layout_g1 is)",
                layout.b.type_name
            ),
        );
    }
    let order = match layout.int_or("LBN-to-PBN mapping scheme", 0)? {
        0 => TrackOrder::Conventional,
        1 => TrackOrder::SerpentineZoneRelative,
        2 => TrackOrder::SerpentineAbsolute,
        v => {
            return at(
                layout.loc("LBN-to-PBN mapping scheme"),
                format!("mapping scheme must be 0–2, found {v}"),
            )
        }
    };
    let range = layout.int_in("Rangesize for sparing", 1, 1, u32::MAX as i64)? as u32;
    let sparing = match layout.int("Sparing scheme used")? {
        0 => Sparing::None,
        1 => Sparing::TracksAtZoneEnd,
        2 | 5 => Sparing::PerCylinder,
        3 => Sparing::PerTrack,
        4 | 6 => Sparing::PerCylinderSlipToEnd,
        7 => Sparing::SlipsOnly,
        8 => Sparing::PerRange { range },
        9 => Sparing::ZoneEnd,
        10 => Sparing::ZoneEndSlipToEnd,
        v => {
            return at(
                layout.loc("Sparing scheme used"),
                format!("sparing scheme must be 0–10, found {v}"),
            )
        }
    };
    let layout_revs = match layout.string_opt("Skew units")?.as_deref() {
        None | Some("sectors") => false,
        Some("revolutions") => true,
        Some(u) => {
            return at(
                layout.loc("Skew units"),
                format!("`Skew units` must be sectors or revolutions, found `{u}`"),
            )
        }
    };
    let zones_param = match layout.b.get("Zones") {
        Some(p) => p,
        None => return layout.missing("Zones"),
    };
    let Value::List(items) = &zones_param.value else {
        return at(
            &zones_param.loc,
            "`Zones` must be a list of dm_layout_g1_zone blocks",
        );
    };
    let mut zones = Vec::with_capacity(items.len());
    for item in items {
        let Value::Block(zb) = &item.value else {
            return at(&item.loc, "each zone must be a dm_layout_g1_zone block");
        };
        let z = P::new(zb, model.file);
        let revs = match z.string_opt("Skew units")?.as_deref() {
            None => layout_revs,
            Some("sectors") => false,
            Some("revolutions") => true,
            Some(u) => {
                return at(
                    z.loc("Skew units"),
                    format!("`Skew units` must be sectors or revolutions, found `{u}`"),
                )
            }
        };
        let spt = z.uint_in("Blocks per track", 1, MAX_SECTORS_PER_TRACK as u64)?;
        // Sector units truncate to whole sectors; revolution units convert by spt.
        let to_sectors = |name: &str| -> Result<u32, ImportError> {
            let v = z.float_or(name, 0.0)?;
            if v < 0.0 {
                return at(
                    z.loc(name),
                    format!("`{name}` must not be negative, found {v}"),
                );
            }
            Ok(if revs {
                ((v - v.floor()) * spt as f64).round() as u32 % spt as u32
            } else {
                (v.trunc() as u64 % spt) as u32
            })
        };
        let first = z.uint_in("First cylinder number", 0, MAX_CYLINDERS as u64 - 1)?;
        let last = z.uint_in("Last cylinder number", 0, MAX_CYLINDERS as u64 - 1)?;
        if last < first {
            return at(
                z.loc("Last cylinder number"),
                format!("last cylinder {last} is before first cylinder {first}"),
            );
        }
        // DiskSim takes slips as listed; real files (atlas_III) list a few out of order,
        // each in its own cylinder, where sorting gives DiskSim's mapping exactly.
        let mut slips = int_list(&z, "slips")?;
        slips.sort_unstable();
        let remaps = pair_list(&z, "defects")?;
        zones.push(ZoneSpec {
            first_cyl: first as u32,
            last_cyl: last as u32,
            spt: spt as u32,
            offset_sectors: to_sectors("Offset of first block")?,
            empty_front: z.int_in("Empty space at zone front", 0, 0, i64::MAX)? as u64,
            track_skew: to_sectors("Skew for track switch")?,
            cyl_skew: to_sectors("Skew for cylinder switch")?,
            spares: z.int_in("Number of spares", 0, 0, i64::MAX)? as u64,
            slips,
            remaps,
        });
    }
    if zones.is_empty() {
        return at(&zones_param.loc, "`Zones` is empty");
    }
    let spec = GeometrySpec {
        surfaces: surfaces as u32,
        order,
        sparing,
        zones,
    };
    if let Err(e) = crate::disk::geometry::Geometry::new(&spec) {
        return at(&zones_param.loc, e.to_string());
    }
    Ok(spec)
}

fn int_list(z: &P, name: &str) -> Result<Vec<u64>, ImportError> {
    let Some(p) = z.b.get(name) else {
        return Ok(Vec::new());
    };
    let Value::List(items) = &p.value else {
        return at(&p.loc, format!("`{name}` must be a list of integers"));
    };
    items
        .iter()
        .map(|it| match it.value {
            Value::Int(v) if v >= 0 => Ok(v as u64),
            _ => at(
                &it.loc,
                format!("`{name}` entries must be non-negative integers"),
            ),
        })
        .collect()
}

fn pair_list(z: &P, name: &str) -> Result<Vec<(u64, u64)>, ImportError> {
    let flat = int_list(z, name)?;
    if flat.len() % 2 != 0 {
        return at(
            z.loc(name),
            format!(
                "`{name}` must hold (bad, replacement) pairs; it has {} numbers",
                flat.len()
            ),
        );
    }
    Ok(flat.chunks(2).map(|c| (c[0], c[1])).collect())
}

fn import_mechanics(model: &P, reader: FileReader) -> Result<Mechanics, ImportError> {
    let m = model.block("Mechanical Model")?;
    if m.b.type_name != "dm_mech_g1" {
        return at(
            &m.b.loc,
            format!(
                "mechanics `{}` is not modelled (only dm_mech_g1 is)",
                m.b.type_name
            ),
        );
    }
    let seek_type = m
        .string_opt("Seek type")?
        .unwrap_or_else(|| "extracted".into());
    let curve_file = m.string_opt("Full seek curve")?;
    let seek = if let Some(f) = curve_file {
        // DiskSim loads the curve but keeps the seek function the named type chose
        // (dm_mech_g1_param.c): only `extracted` uses the curve's table.
        if seek_type != "extracted" {
            return at(
                m.loc("Full seek curve"),
                format!(
                    "`Full seek curve` needs `Seek type = extracted`, found `{seek_type}` \
                     (DiskSim would load the curve and still time seeks by `{seek_type}`, \
                     which spindle does not model)"
                ),
            );
        }
        let base = m
            .loc("Full seek curve")
            .file
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default();
        SeekCurve::Table {
            points: read_seek_file(&base.join(&f), m.loc("Full seek curve"), reader)?,
        }
    } else {
        match seek_type.as_str() {
            "hpl" | "hplplus10" => {
                let p = m.b.get("HPL seek equation values");
                let Some(p) = p else { return m.missing("HPL seek equation values") };
                let Value::List(items) = &p.value else {
                    return at(&p.loc, "`HPL seek equation values` must be a list of six numbers");
                };
                let nums: Vec<f64> = items
                    .iter()
                    .map(|it| match it.value {
                        Value::Int(i) => Ok(i as f64),
                        Value::Float(f) => Ok(f),
                        _ => at(&it.loc, "HPL values must be numbers"),
                    })
                    .collect::<Result<_, _>>()?;
                if nums.len() != 6 {
                    return at(&p.loc, format!("`HPL seek equation values` needs 6 numbers, found {}", nums.len()));
                }
                if !(nums[0] >= 0.0 && nums[0] <= MAX_CYLINDERS as f64) {
                    return at(&p.loc, format!("the first HPL value (the switch distance) must be within 0..={MAX_CYLINDERS} cylinders, found {}", nums[0]));
                }
                let switch = nums[0] as u32;
                if seek_type == "hpl" {
                    let single = (nums[5] != -1.0).then_some(nums[5]);
                    SeekCurve::Hpl { switch, a: nums[1], b: nums[2], c: nums[3], e: nums[4], single }
                } else {
                    let Some(ft) = m.b.get("First ten seek times") else {
                        return m.missing("First ten seek times");
                    };
                    let Value::List(items) = &ft.value else {
                        return at(&ft.loc, "`First ten seek times` must be a list of ten numbers");
                    };
                    if items.len() != 10 {
                        return at(&ft.loc, format!("`First ten seek times` needs 10 numbers, found {}", items.len()));
                    }
                    let mut first_ten = [0.0; 10];
                    for (slot, it) in first_ten.iter_mut().zip(items) {
                        *slot = match it.value {
                            Value::Int(i) => i as f64,
                            Value::Float(f) => f,
                            _ => return at(&it.loc, "seek times must be numbers"),
                        };
                    }
                    SeekCurve::HplPlus10 { first_ten, switch, a: nums[1], b: nums[2], c: nums[3], e: nums[4] }
                }
            }
            other => {
                return at(
                    m.loc("Seek type"),
                    format!("seek type `{other}` is not modelled (DiskSim 4.0 itself cannot use it); use extracted with a `Full seek curve`, hpl or hplplus10"),
                )
            }
        }
    };
    let rpm = match m.b.get("Rotation speed (in rpms)") {
        Some(p) => match p.value {
            Value::Int(i) if i >= MIN_RPM as i64 && i <= MAX_RPM as i64 => i as f64,
            Value::Int(i) if i > 0 => {
                return at(
                    &p.loc,
                    format!("`Rotation speed (in rpms)` must be within {MIN_RPM}..={MAX_RPM} rpm, found {i}"),
                )
            }
            Value::Int(i) => {
                return at(
                    &p.loc,
                    format!("rotation speed must be positive, found {i}"),
                )
            }
            Value::Float(f) => {
                return at(
                    &p.loc,
                    format!("`Rotation speed (in rpms)` must be an integer (DiskSim rejects {f})"),
                )
            }
            ref v => {
                return at(
                    &p.loc,
                    format!("`Rotation speed (in rpms)` must be an integer, found {}", shown(v)),
                )
            }
        },
        None => return m.missing("Rotation speed (in rpms)"),
    };
    Ok(Mechanics {
        seek,
        head_switch_ms: m.time_or("Head switch time", 0.0)?,
        write_settle_ms: {
            let v = m.float_or("Add. write settling delay", 0.0)?;
            if !(-MAX_TIME_MS..=MAX_TIME_MS).contains(&v) {
                return at(
                    m.loc("Add. write settling delay"),
                    format!("`Add. write settling delay` must be within -{MAX_TIME_MS}..={MAX_TIME_MS} ms, found {v}"),
                );
            }
            v
        },
        rpm,
        // DiskSim 4.0 ignores `Percent error in rpms`; so do we (constant speed).
        rpm_variation_pct: 0.0,
        rpm_variation_period_s: 60.0,
        rpm_variation_seed: 0,
        read_residual: Default::default(),
    })
}

/// Reads a `.seek` file: optional `Seek distances measured: n` header, then
/// `distance, time_ms[, stddev]` lines.
pub fn read_seek_file(
    path: &Path,
    asked_at: &Loc,
    reader: FileReader,
) -> Result<Vec<(u32, f64)>, ImportError> {
    let text = match reader(path) {
        Ok(t) => t,
        Err(e) => {
            return at(
                asked_at,
                format!("cannot read seek curve {}: {e}", path.display()),
            )
        }
    };
    parse_seek_text(&text, path)
}

pub fn parse_seek_text(text: &str, path: &Path) -> Result<Vec<(u32, f64)>, ImportError> {
    let err = |line: usize, msg: String| ImportError::At {
        loc: format!("{}:{line}", path.display()),
        msg,
    };
    let mut points: Vec<(u32, f64)> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || (i == 0 && line.starts_with("Seek distances measured")) {
            continue;
        }
        let mut fields = line.split(',').map(str::trim);
        let d = fields.next().unwrap_or("");
        let t = fields.next().unwrap_or("");
        let d: u32 = d.parse().map_err(|_| {
            err(
                i + 1,
                format!("expected a seek distance (cylinders), found `{d}`"),
            )
        })?;
        let t: f64 = t
            .parse()
            .map_err(|_| err(i + 1, format!("expected a seek time in ms, found `{t}`")))?;
        if !(0.0..=MAX_TIME_MS).contains(&t) {
            return Err(err(
                i + 1,
                format!("seek time must be a number of ms within 0..={MAX_TIME_MS}, found {t}"),
            ));
        }
        if let Some(&(pd, _)) = points.last() {
            if d <= pd {
                return Err(err(
                    i + 1,
                    format!("seek distances must increase; {d} follows {pd}"),
                ));
            }
        }
        points.push((d, t));
    }
    if points.is_empty() {
        return Err(ImportError::File {
            file: path.display().to_string(),
            msg: "the seek curve has no points".into(),
        });
    }
    Ok(points)
}

/// The directory holding DiskSim's validation set in this repository (tests only: a
/// run reads the built-in copies, see `disksim::suite_files` and `disk::presets`).
#[cfg(test)]
pub(crate) fn bundled_disksim_dir() -> std::path::PathBuf {
    std::path::PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/disksim"))
}
/// A value as an error names it: numbers as written, words quoted, lists and blocks
/// by kind (a word such as `1e300` is not a number DiskSim's grammar reads).
fn shown(v: &Value) -> String {
    match v {
        Value::Int(i) => i.to_string(),
        Value::Float(f) => f.to_string(),
        Value::Str(s) => format!("`{s}`{}", number_form_hint(s)),
        Value::List(_) => "a list".into(),
        Value::Block(_) => "a block".into(),
    }
}

/// For a word that reads as a number everywhere but in DiskSim's parameter files (`1e5`,
/// `.5`, `1.`, `1.5E-3`), how to write it so DiskSim reads it; empty otherwise.
pub(crate) fn number_form_hint(word: &str) -> String {
    match word.parse::<f64>() {
        Ok(v) if v.is_finite() => format!(
            " (DiskSim reads a number as digits, with a point between digits and a \
             lower-case exponent e+N or e-N, and takes `{word}` for a word: write `{}`)",
            // A whole number reads as an integer too, which integer parameters need.
            if v.fract() == 0.0 && v.abs() < 9.0e15 {
                format!("{}", v as i64)
            } else {
                disksim_float(v)
            }
        ),
        _ => String::new(),
    }
}

/// `v` in the one float form DiskSim's lexer reads: `d.d` with an `e±N` exponent.
fn disksim_float(v: f64) -> String {
    let e = format!("{v:e}");
    let (m, x) = e.split_once('e').unwrap_or((&e, "0"));
    let m = if m.contains('.') {
        m.to_string()
    } else {
        format!("{m}.0")
    };
    let x: i32 = x.parse().unwrap_or(0);
    format!("{m}e{}{}", if x < 0 { '-' } else { '+' }, x.abs())
}

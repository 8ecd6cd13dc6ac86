//! DiskSim's synthetic workload blocks → a spindle [`SynthSpec`]: `disksim_synthio`
//! (stop conditions and the list of `disksim_synthgen` generators) and `disksim_pf`
//! (the number of processors, which decides which generators run; see
//! [`crate::workload::synth`]). Every value is checked as DiskSim's tables check it,
//! plus spindle's limits; anything out of range or not modelled is refused with the
//! file and line that asked for it.

use super::import::{check_names, ImportError};
use super::param::{Block, Item, Loc, ParamFile, Value};
use crate::workload::synth::{Dist, SynthGen, SynthSpec, SynthStream};

fn at<T>(loc: &Loc, msg: impl Into<String>) -> Result<T, ImportError> {
    Err(ImportError::At {
        loc: loc.to_string(),
        msg: msg.into(),
    })
}

/// Reads the `disksim_synthio` block of `file`, if it has one. `resolve` turns a
/// generator's device name (a disk instance or a logorg) into a device number, or
/// refuses it.
pub fn read_synthio(
    file: &ParamFile,
    resolve: &mut dyn FnMut(&str, &Loc) -> Result<u32, ImportError>,
) -> Result<Option<SynthSpec>, ImportError> {
    let mut blocks = file
        .blocks
        .iter()
        .map(|b| b.resolved(file))
        .filter(|b| b.type_name == "disksim_synthio");
    let Some(sio) = blocks.next() else {
        return Ok(None);
    };
    if let Some(again) = blocks.next() {
        return at(
            &again.loc,
            "a second disksim_synthio block (DiskSim refuses to redefine the generators)",
        );
    }
    check_names(&sio, file)?;
    let requests = int(&sio, "Number of I/O requests to generate")?;
    if requests.0 <= 0 {
        return at(
            &requests.1,
            format!(
                "`Number of I/O requests to generate` = {}: must be at least 1",
                requests.0
            ),
        );
    }
    let max_s = float(&sio, "Maximum time of trace generated")?;
    if max_s.0.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) {
        return at(
            &max_s.1,
            format!(
                "`Maximum time of trace generated` = {}: must be greater than 0 (seconds)",
                max_s.0
            ),
        );
    }
    if let Some(p) = sio.get("System call/return with each request") {
        match number(&p.value) {
            Some(0.0) => {}
            Some(1.0) => {
                return at(
                    &p.loc,
                    "`System call/return with each request` = 1: system-call events around requests are not modelled",
                )
            }
            _ => {
                return at(
                    &p.loc,
                    "`System call/return with each request` must be 0 or 1",
                )
            }
        }
    }
    for name in [
        "Think time from call to request",
        "Think time from request to return",
    ] {
        if let Some(p) = sio.get(name) {
            match number(&p.value) {
                Some(v) if v >= 0.0 => {}
                _ => return at(&p.loc, format!("`{name}` must be a number of ms >= 0")),
            }
        }
    }
    let gens = sio
        .get("Generators")
        .ok_or_else(|| missing(&sio, "Generators"))?;
    let Value::List(items) = &gens.value else {
        return at(
            &gens.loc,
            "`Generators` must be a list of disksim_synthgen blocks",
        );
    };
    let mut generators = Vec::new();
    for item in items {
        let Value::Block(b) = &item.value else {
            return at(&item.loc, "a generator must be a disksim_synthgen block");
        };
        let b = b.resolved(file);
        if b.type_name != "disksim_synthgen" {
            return at(
                &b.loc,
                format!("`{}` in Generators: expected disksim_synthgen", b.type_name),
            );
        }
        generators.push(read_gen(&b, file, resolve)?);
    }
    if generators.is_empty() {
        return at(&gens.loc, "`Generators` lists no generator");
    }

    let cpus = read_cpus(file, &sio.loc)?;
    let seed = match file
        .blocks
        .iter()
        .find(|b| b.resolved(file).type_name == "disksim_global")
    {
        Some(g) => global_seed(g, file)?,
        None => 0,
    };
    let spec = SynthSpec {
        generators,
        requests: requests.0 as u64,
        max_time_ms: max_s.0 * 1000.0,
        cpus,
        seed,
        // DiskSim's own random numbers, so the requests are the ones it makes.
        stream: SynthStream::Disksim,
    };
    spec.validate().map_err(|e| ImportError::At {
        loc: sio.loc.to_string(),
        msg: format!("disksim_synthio: {e}"),
    })?;
    Ok(Some(spec))
}

/// The processor count of the `disksim_pf` block (required with a generator).
fn read_cpus(file: &ParamFile, synthio: &Loc) -> Result<u32, ImportError> {
    let Some(pf) = file
        .blocks
        .iter()
        .map(|b| b.resolved(file))
        .find(|b| b.type_name == "disksim_pf")
    else {
        return at(
            synthio,
            "disksim_synthio needs a disksim_pf block (its `Number of processors` decides which generators run)",
        );
    };
    check_names(&pf, file)?;
    let (n, loc) = int(&pf, "Number of processors")?;
    if !(1..=i64::from(u16::MAX)).contains(&n) {
        return at(
            &loc,
            format!("`Number of processors` = {n}: must be within 1..=65535"),
        );
    }
    if let Some(p) = pf.get("Process-Flow Time Scale") {
        match number(&p.value) {
            Some(1.0) => {}
            Some(v) if v >= 0.0 => {
                return at(
                    &p.loc,
                    format!("`Process-Flow Time Scale` = {v}: scaled computation times are not modelled (only 1.0)"),
                )
            }
            _ => {
                return at(
                    &p.loc,
                    "`Process-Flow Time Scale` must be a number >= 0",
                )
            }
        }
    }
    Ok(n as u32)
}

fn read_gen(
    b: &Block,
    file: &ParamFile,
    resolve: &mut dyn FnMut(&str, &Loc) -> Result<u32, ImportError>,
) -> Result<SynthGen, ImportError> {
    check_names(b, file)?;
    let (cap, cap_loc) = int(b, "Storage capacity per device")?;
    if cap <= 0 || cap > i64::from(i32::MAX) {
        return at(
            &cap_loc,
            format!(
                "`Storage capacity per device` = {cap}: must be within 1..={}",
                i32::MAX
            ),
        );
    }
    let (bf, bf_loc) = int(b, "Blocking factor")?;
    if bf <= 0 || bf > cap {
        return at(
            &bf_loc,
            format!("`Blocking factor` = {bf}: must be within 1..=the capacity {cap}"),
        );
    }
    if cap / bf < 2 {
        return at(
            &cap_loc,
            format!("`Storage capacity per device` = {cap}: must hold at least 2 blocks of {bf} sectors"),
        );
    }
    let devs = b.get("devices").ok_or_else(|| missing(b, "devices"))?;
    let Value::List(items) = &devs.value else {
        return at(&devs.loc, "`devices` must be a list of device names");
    };
    let mut devices = Vec::new();
    for item in items {
        let Value::Str(name) = &item.value else {
            return at(&item.loc, "`devices` must list device names");
        };
        devices.push(resolve(name, &item.loc)?);
    }
    if devices.is_empty() {
        return at(&devs.loc, "`devices` lists no device");
    }
    let p = |name: &str| -> Result<f64, ImportError> {
        let (v, loc) = float(b, name)?;
        if !(0.0..=1.0).contains(&v) {
            return at(&loc, format!("`{name}` = {v}: must be within 0..=1"));
        }
        Ok(v)
    };
    let p_seq = p("Probability of sequential access")?;
    let p_local = p("Probability of local access")?;
    if p_seq + p_local > 1.0 + 1e-12 {
        return at(
            b.get("Probability of local access")
                .map_or(&b.loc, |p| &p.loc),
            format!("sequential ({p_seq}) plus local ({p_local}) access probabilities exceed 1"),
        );
    }
    let p_critical = p("Probability of time-critical request")?;
    let p_limited = p("Probability of time-limited request")?;
    if p_critical + p_limited > 1.0 + 1e-12 {
        return at(
            b.get("Probability of time-limited request").map_or(&b.loc, |p| &p.loc),
            format!("time-critical ({p_critical}) plus time-limited ({p_limited}) probabilities exceed 1"),
        );
    }
    let gen = SynthGen {
        devices,
        capacity: cap as u64,
        blocking: bf as u32,
        p_seq,
        p_local,
        p_read: p("Probability of read access")?,
        p_critical,
        p_limited,
        time_limit: dist(b, "Time-limited think times")?,
        general_think: dist(b, "General inter-arrival times")?,
        seq_think: dist(b, "Sequential inter-arrival times")?,
        local_think: dist(b, "Local inter-arrival times")?,
        local_distance: dist(b, "Local distances")?,
        sizes: dist(b, "Sizes")?,
    };
    gen.validate("generator").map_err(|e| ImportError::At {
        loc: b.loc.to_string(),
        msg: format!("disksim_synthgen: {e}"),
    })?;
    Ok(gen)
}

/// A distribution list: `[ uniform, min, max ]`, `[ normal, mean, sd ]`,
/// `[ exponential, base, mean ]`, `[ poisson, base, mean ]`,
/// `[ twovalue, default, second, probability of second ]`.
fn dist(b: &Block, name: &str) -> Result<Dist, ImportError> {
    let p = b.get(name).ok_or_else(|| missing(b, name))?;
    let Value::List(items) = &p.value else {
        return at(
            &p.loc,
            format!("`{name}` must be a list [ distribution, numbers.. ]"),
        );
    };
    let Some(Item {
        value: Value::Str(kind),
        ..
    }) = items.first()
    else {
        return at(&p.loc, format!("`{name}` must start with a distribution name (uniform, normal, exponential, poisson, twovalue)"));
    };
    let want = if kind == "twovalue" { 3 } else { 2 };
    let nums: Vec<f64> = items[1..].iter().filter_map(|i| number(&i.value)).collect();
    if let Some(word) = items[1..].iter().find_map(|i| match &i.value {
        Value::Str(w) => Some(w),
        _ => None,
    }) {
        return at(
            &p.loc,
            format!(
                "`{name}`: {kind} takes {want} numbers, and `{word}` is not one{}",
                crate::disk::parv::import::number_form_hint(word)
            ),
        );
    }
    if nums.len() != items.len() - 1 || nums.len() != want {
        return at(
            &p.loc,
            format!(
                "`{name}`: {kind} takes {want} numbers, got {}",
                items.len() - 1
            ),
        );
    }
    let d = match kind.as_str() {
        "uniform" => Dist::Uniform {
            min: nums[0],
            max: nums[1],
        },
        "normal" => Dist::Normal {
            mean: nums[0],
            sd: nums[1],
        },
        "exponential" => Dist::Exponential {
            base: nums[0],
            mean: nums[1],
        },
        "poisson" => Dist::Poisson {
            base: nums[0],
            mean: nums[1],
        },
        "twovalue" => Dist::TwoValue {
            default: nums[0],
            second: nums[1],
            p_second: nums[2],
        },
        other => {
            return at(
                &p.loc,
                format!("`{name}`: unknown distribution `{other}` (expected uniform, normal, exponential, poisson or twovalue)"),
            )
        }
    };
    d.validate(name).map_err(|e| ImportError::At {
        loc: p.loc.to_string(),
        msg: format!("{e}"),
    })?;
    Ok(d)
}

fn number(v: &Value) -> Option<f64> {
    match v {
        Value::Int(i) => Some(*i as f64),
        Value::Float(f) => Some(*f),
        _ => None,
    }
}

fn missing(b: &Block, name: &str) -> ImportError {
    ImportError::At {
        loc: b.loc.to_string(),
        msg: format!("{} lacks `{name}` (DiskSim requires it)", b.type_name),
    }
}

fn float(b: &Block, name: &str) -> Result<(f64, Loc), ImportError> {
    let p = b.get(name).ok_or_else(|| missing(b, name))?;
    match number(&p.value) {
        Some(v) if v.is_finite() => Ok((v, p.loc.clone())),
        _ => at(&p.loc, format!("`{name}` must be a number")),
    }
}

fn int(b: &Block, name: &str) -> Result<(i64, Loc), ImportError> {
    let p = b.get(name).ok_or_else(|| missing(b, name))?;
    match &p.value {
        Value::Int(i) => Ok((*i, p.loc.clone())),
        _ => at(&p.loc, format!("`{name}` must be an integer")),
    }
}

/// The leaf device instances of `file`'s topologies, in order (the device numbers a
/// generator's `devices` resolve to when every logorg is one whole disk).
pub fn topology_devices(file: &ParamFile) -> Vec<String> {
    fn walk(t: &super::param::Topology, out: &mut Vec<String>) {
        if t.children.is_empty()
            && !matches!(
                t.type_name.as_str(),
                "disksim_iodriver" | "disksim_bus" | "disksim_ctlr"
            )
        {
            out.push(t.name.clone());
        }
        for c in &t.children {
            walk(c, out);
        }
    }
    let mut out = Vec::new();
    for t in &file.topologies {
        walk(t, &mut out);
    }
    out
}

/// The generator's seed from `disksim_global`, as DiskSim takes it: `Init Seed` and
/// `Real Seed` both set it, and the one written last wins. What the run cannot honour
/// is refused: seeds from the clock (not reproducible) and statistics warm-up (spindle
/// counts every request).
fn global_seed(g: &Block, file: &ParamFile) -> Result<u64, ImportError> {
    check_names(g, file)?;
    let g = g.resolved(file);
    for key in [
        "Init Seed with time",
        "Real Seed with time",
        "Statistic warm-up time",
        "Statistic warm-up IOs",
    ] {
        if let Some(p) = g.get(key) {
            if number(&p.value) != Some(0.0) {
                return at(
                    &p.loc,
                    format!("disksim_global: `{key}` other than 0 is not modelled"),
                );
            }
        }
    }
    let mut seed = 0u64;
    for p in g
        .params
        .iter()
        .filter(|p| p.name == "Init Seed" || p.name == "Real Seed")
    {
        match number(&p.value) {
            Some(v) if v >= 0.0 && v.fract() == 0.0 && v <= i32::MAX as f64 => seed = v as u64,
            _ => {
                return at(
                    &p.loc,
                    format!(
                        "disksim_global: `{}` must be a whole number 0..={}",
                        p.name,
                        i32::MAX
                    ),
                )
            }
        }
    }
    Ok(seed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::disksim::import::bundled_disksim_dir;
    use crate::disksim::param::{parse_file, parse_str};
    use std::path::Path;

    /// Device names resolve to their place in `names` (growing it), as a topology of
    /// whole disks would number them.
    fn read(file: &ParamFile) -> Result<Option<SynthSpec>, ImportError> {
        let mut names: Vec<String> = topology_devices(file);
        read_synthio(file, &mut |n, _| {
            Ok(match names.iter().position(|m| m == n) {
                Some(i) => i as u32,
                None => {
                    names.push(n.to_string());
                    names.len() as u32 - 1
                }
            })
        })
    }

    #[test]
    fn every_synth_file_of_disksims_suite_reads() {
        for name in crate::disksim::SUITE {
            let path = bundled_disksim_dir().join(format!("{name}.parv"));
            let file = parse_file(&path).expect("parses");
            let spec = read(&file)
                .unwrap_or_else(|e| panic!("{name}: {e}"))
                .expect("has a generator");
            assert!([10_000, 11_000].contains(&spec.requests), "{name}");
            assert!(spec.max_time_ms >= 1_000_000.0, "{name}");
            assert_eq!(spec.seed, 42, "{name}");
            assert!(spec.generators.iter().all(|g| g.blocking == 8));
        }
    }

    #[test]
    fn synthopen_is_three_open_generators_on_one_processor() {
        let path = bundled_disksim_dir().join("synthopen.parv");
        let spec = read(&parse_file(&path).unwrap()).unwrap().unwrap();
        assert_eq!(spec.cpus, 1);
        assert_eq!(spec.generators.len(), 3);
        assert_eq!(spec.running(), 2..3, "only the last generator runs");
        let g = &spec.generators[2];
        assert_eq!(g.devices, vec![2]);
        assert_eq!(g.capacity, 17_783_240);
        assert_eq!(g.p_read, 0.66);
        assert!(g.never_waits());
        assert_eq!(
            g.general_think,
            Dist::Exponential {
                base: 0.0,
                mean: 25.0
            }
        );
        assert_eq!(
            g.local_distance,
            Dist::Normal {
                mean: 0.0,
                sd: 40000.0
            }
        );
        let closed = bundled_disksim_dir().join("synthclosed.parv");
        let spec = read(&parse_file(&closed).unwrap()).unwrap().unwrap();
        assert_eq!((spec.cpus, spec.generators.len()), (5, 5));
        assert!(spec.generators.iter().all(|g| g.p_critical == 1.0));
        assert_eq!(spec.running(), 0..5);
    }

    const GOOD: &str = "
disksim_pf Proc {
   Number of processors = 2,
   Process-Flow Time Scale = 1.0
}
disksim_synthio Synthio {
   Number of I/O requests to generate = 100,
   Maximum time of trace generated = 10.0,
   Generators = [
   disksim_synthgen {
     Storage capacity per device = 100000,
     devices = [ disk0 ],
     Blocking factor = 8,
     Probability of sequential access = 0.2,
     Probability of local access = 0.3,
     Probability of read access = 0.66,
     Probability of time-critical request = 0.2,
     Probability of time-limited request = 0.3,
     Time-limited think times = [ normal, 30.0, 100.0 ],
     General inter-arrival times = [ uniform, 0.0, 10.0 ],
     Sequential inter-arrival times = [ poisson, 0.0, 2.0 ],
     Local inter-arrival times = [ twovalue, 1.0, 5.0, 0.25 ],
     Local distances = [ normal, 0.0, 40000.0 ],
     Sizes = [ exponential, 0.0, 8.0 ]
   }
   ]
}
";

    /// The error reading `GOOD` with `from` replaced by `to`.
    fn bad(from: &str, to: &str) -> String {
        assert!(GOOD.contains(from), "{from}");
        let text = GOOD.replacen(from, to, 1);
        let file = parse_str(&text, Path::new("t.parv")).expect("parses");
        read(&file).expect_err("refused").to_string()
    }

    #[test]
    fn all_distributions_read() {
        let file = parse_str(GOOD, Path::new("t.parv")).unwrap();
        let g = &read(&file).unwrap().unwrap().generators[0];
        assert_eq!(
            g.general_think,
            Dist::Uniform {
                min: 0.0,
                max: 10.0
            }
        );
        assert_eq!(
            g.seq_think,
            Dist::Poisson {
                base: 0.0,
                mean: 2.0
            }
        );
        assert_eq!(
            g.local_think,
            Dist::TwoValue {
                default: 1.0,
                second: 5.0,
                p_second: 0.25
            }
        );
    }

    #[test]
    fn bad_values_are_refused_with_file_and_line() {
        let e = bad("read access = 0.66", "read access = 1.5");
        assert!(
            e.starts_with("t.parv:16:") && e.contains("within 0..=1"),
            "{e}"
        );
        let e = bad("Probability of read access", "Probability of raed access");
        assert!(
            e.starts_with("t.parv:16:") && e.contains("did you mean `Probability of read access`"),
            "{e}"
        );
        let e = bad("[ uniform, 0.0, 10.0 ]", "[ gamma, 0.0, 10.0 ]");
        assert!(
            e.starts_with("t.parv:20:") && e.contains("unknown distribution `gamma`"),
            "{e}"
        );
        let e = bad("[ uniform, 0.0, 10.0 ]", "[ uniform, 10.0, 0.0 ]");
        assert!(
            e.starts_with("t.parv:20:") && e.contains("greater than the minimum"),
            "{e}"
        );
        let e = bad("[ twovalue, 1.0, 5.0, 0.25 ]", "[ twovalue, 1.0, 5.0 ]");
        assert!(e.contains("twovalue takes 3 numbers, got 2"), "{e}");
        let e = bad("[ exponential, 0.0, 8.0 ]", "[ exponential, 0.0, -8.0 ]");
        assert!(
            e.starts_with("t.parv:24:") && e.contains("at least 0"),
            "{e}"
        );
        let e = bad("[ exponential, 0.0, 8.0 ]", "[ exponential, 0.0, 0.0 ]");
        assert!(e.contains("redrawn for ever"), "{e}");
        let e = bad("Blocking factor = 8", "Blocking factor = 0");
        assert!(e.starts_with("t.parv:13:"), "{e}");
        let e = bad("= 100000", "= 3000000000");
        assert!(
            e.starts_with("t.parv:11:") && e.contains("2147483647"),
            "{e}"
        );
        let e = bad("sequential access = 0.2", "sequential access = 0.8");
        assert!(e.contains("exceed 1"), "{e}");
        let e = bad("generate = 100", "generate = 0");
        assert!(e.starts_with("t.parv:7:"), "{e}");
        let e = bad("Number of processors = 2", "Number of processors = 0");
        assert!(e.starts_with("t.parv:3:"), "{e}");
        let e = bad("Time Scale = 1.0", "Time Scale = 2.0");
        assert!(
            e.starts_with("t.parv:4:") && e.contains("not modelled"),
            "{e}"
        );
        let e = bad(
            "Maximum time of trace generated = 10.0,",
            "System call/return with each request = 1,\n   Maximum time of trace generated = 10.0,",
        );
        assert!(e.contains("not modelled"), "{e}");
        let e = bad("Number of processors = 2", "Number of processers = 2");
        assert!(e.contains("did you mean `Number of processors`"), "{e}");
        let e = bad("disksim_pf Proc", "disksim_bus Proc");
        assert!(e.contains("needs a disksim_pf block"), "{e}");
    }

    #[test]
    fn time_shared_processors_are_accepted() {
        let two = GOOD.replacen(
            "   ]\n}",
            &format!(
                ",{}   ]\n}}",
                &GOOD[GOOD.find("   disksim_synthgen").unwrap()..GOOD.find("   ]\n}").unwrap()]
            ),
            1,
        );
        let ok = parse_str(&two, Path::new("t.parv")).unwrap();
        let spec = read(&ok).unwrap().unwrap();
        assert_eq!(spec.generators.len(), 2);
        // DiskSim time-shares the processors between them; so does spindle.
        assert!(crate::workload::synth::SynthLoop::new(&spec).is_ok());
        let one_cpu = SynthSpec { cpus: 1, ..spec };
        assert!(crate::workload::synth::SynthLoop::new(&one_cpu).is_ok());
    }
}

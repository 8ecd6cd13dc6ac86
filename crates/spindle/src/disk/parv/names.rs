//! The parameter names DiskSim 4.0 defines for each block type spindle imports (its
//! module tables: the disk, the diskmodel's disk, layouts and mechanics, the I/O queue
//! and the bus). A name outside its block's table is a misspelling or a parameter of
//! another block: DiskSim only warns and then runs on its default, which silently
//! changes the result, so the importer refuses it, naming the file, the line and the
//! nearest valid name.

/// The names block type `type_name` accepts; `None` for a type this table does not
/// cover (its block is not imported, or is checked where it is read).
pub fn known(type_name: &str) -> Option<&'static [&'static str]> {
    Some(match type_name {
        "disksim_disk" => &[
            "Model",
            "Scheduler",
            "Max queue length",
            "Bulk sector transfer time",
            "Segment size (in blks)",
            "Number of buffer segments",
            "Print stats",
            "Per-request overhead time",
            "Time scale for overheads",
            "Hold bus entire read xfer",
            "Hold bus entire write xfer",
            "Allow almost read hits",
            "Allow sneaky full read hits",
            "Allow sneaky partial read hits",
            "Allow sneaky intermediate read hits",
            "Allow read hits on write data",
            "Allow write prebuffering",
            "Preseeking level",
            "Never disconnect",
            "Avg sectors per cylinder",
            "Maximum number of write segments",
            "Use separate write segment",
            "Low (write) water mark",
            "High (read) water mark",
            "Set watermark by reqsize",
            "Calc sector by sector",
            "Enable caching in buffer",
            "Buffer continuous read",
            "Minimum read-ahead (blks)",
            "Maximum read-ahead (blks)",
            "Read-ahead over requested",
            "Read-ahead on idle hit",
            "Read any free blocks",
            "Fast write level",
            "Combine seq writes",
            "Stop prefetch in sector",
            "Disconnect write if seek",
            "Write hit stop prefetch",
            "Read directly to buffer",
            "Immed transfer partial hit",
            "Read hit over. after read",
            "Read hit over. after write",
            "Read miss over. after read",
            "Read miss over. after write",
            "Write hit over. after read",
            "Write hit over. after write",
            "Write miss over. after read",
            "Write miss over. after write",
            "Read completion overhead",
            "Write completion overhead",
            "Data preparation overhead",
            "First reselect overhead",
            "Other reselect overhead",
            "Read disconnect afterread",
            "Read disconnect afterwrite",
            "Write disconnect overhead",
            "Extra write disconnect",
            "Extradisc command overhead",
            "Extradisc disconnect overhead",
            "Extradisc inter-disconnect delay",
            "Extradisc 2nd disconnect overhead",
            "Extradisc seek delta",
            "Minimum seek delay",
            "Immediate buffer read",
            "Immediate buffer write",
        ],
        "dm_disk" => &[
            "Block count",
            "Number of data surfaces",
            "Number of cylinders",
            "Mechanical Model",
            "Layout Model",
        ],
        "dm_layout_g1" => &[
            "LBN-to-PBN mapping scheme",
            "Sparing scheme used",
            "Rangesize for sparing",
            "Skew units",
            "Zones",
        ],
        "dm_layout_g1_zone" => &[
            "First cylinder number",
            "Last cylinder number",
            "Blocks per track",
            "Offset of first block",
            "Skew units",
            "Empty space at zone front",
            "Skew for track switch",
            "Skew for cylinder switch",
            "Number of spares",
            "slips",
            "defects",
        ],
        "dm_layout_g2" => &["Layout Map File", "Zones"],
        "dm_layout_g2_zone" => &[
            "First cylinder number",
            "Last cylinder number",
            "First LBN",
            "Last LBN",
            "Blocks per track",
            "Zone Skew",
            "Skew units",
            "Skew for track switch",
            "Skew for cylinder switch",
        ],
        "dm_layout_g4" => &["TP", "IDX", "Slips", "Remaps"],
        "dm_mech_g1" => &[
            "Access time type",
            "Constant access time",
            "Seek type",
            "Average seek time",
            "Constant seek time",
            "Single cylinder seek time",
            "Full strobe seek time",
            "Full seek curve",
            "Add. write settling delay",
            "Head switch time",
            "Rotation speed (in rpms)",
            "Percent error in rpms",
            "First ten seek times",
            "HPL seek equation values",
        ],
        "disksim_ioqueue" => &[
            "Scheduling policy",
            "Cylinder mapping strategy",
            "Write initiation delay",
            "Read initiation delay",
            "Sequential stream scheme",
            "Maximum concat size",
            "Overlapping request scheme",
            "Sequential stream diff maximum",
            "Scheduling timeout scheme",
            "Timeout time/weight",
            "Timeout scheduling",
            "Scheduling priority scheme",
            "Priority scheduling",
        ],
        "disksim_bus" => &[
            "type",
            "Arbitration type",
            "Arbitration time",
            "Read block transfer time",
            "Write block transfer time",
            "Print stats",
        ],
        "disksim_logorg" => &[
            "Addressing mode",
            "Distribution scheme",
            "Redundancy scheme",
            "Components",
            "devices",
            "Stripe unit",
            "Synch writes for safety",
            "Number of copies",
            "Copy choice on read",
            "RMW vs. reconstruct",
            "Parity stripe unit",
            "Parity rotation type",
            "Time stamp interval",
            "Time stamp start time",
            "Time stamp stop time",
            "Time stamp file name",
        ],
        "disksim_ctlr" => &[
            "type",
            "Scale for delays",
            "Bulk sector transfer time",
            "Maximum queue length",
            "Print stats",
            "Scheduler",
            "Cache",
            "Max per-disk pending count",
        ],
        "disksim_cachemem" => &[
            "Cache size",
            "SLRU segments",
            "Line size",
            "Bit granularity",
            "Lock granularity",
            "Shared read locks",
            "Max request size",
            "Replacement policy",
            "Allocation policy",
            "Write scheme",
            "Flush policy",
            "Flush period",
            "Flush idle delay",
            "Flush max line cluster",
            "Read prefetch type",
            "Write prefetch type",
            "Line-by-line fetches",
            "Max gather",
        ],
        "disksim_cachedev" => &[
            "Cache size",
            "Max request size",
            "Write scheme",
            "Flush policy",
            "Flush period",
            "Flush idle delay",
            "Cache device",
            "Cached device",
        ],
        "disksim_iodriver" => &[
            "type",
            "Constant access time",
            "Use queueing in subsystem",
            "Scheduler",
        ],
        "disksim_synthio" => &[
            "Number of I/O requests to generate",
            "Maximum time of trace generated",
            "System call/return with each request",
            "Think time from call to request",
            "Think time from request to return",
            "Generators",
        ],
        "disksim_synthgen" => &[
            "Storage capacity per device",
            "devices",
            "Blocking factor",
            "Probability of sequential access",
            "Probability of local access",
            "Probability of read access",
            "Probability of time-critical request",
            "Probability of time-limited request",
            "Time-limited think times",
            "General inter-arrival times",
            "Sequential inter-arrival times",
            "Local inter-arrival times",
            "Local distances",
            "Sizes",
        ],
        "disksim_pf" => &["Number of processors", "Process-Flow Time Scale"],
        "disksim_syncset" => &["devices"],
        "disksim_iosim" => &["I/O Mappings", "I/O Trace Time Scale"],
        "disksim_global" => &[
            "Init Seed",
            "Init Seed with time",
            "Real Seed",
            "Real Seed with time",
            "Statistic warm-up time",
            "Statistic warm-up IOs",
            "Stat definition file",
            "Output file for trace of I/O requests simulated",
            "Detailed execution trace",
        ],
        _ => return None,
    })
}

/// The valid name nearest to `name` (edit distance, case ignored), if any is close
/// enough to be a likely misspelling.
pub fn nearest(name: &str, valid: &[&'static str]) -> Option<&'static str> {
    let lower = name.to_ascii_lowercase();
    valid
        .iter()
        .map(|v| (distance(&lower, &v.to_ascii_lowercase()), *v))
        .filter(|&(d, v)| d <= (v.len() / 3).max(2))
        .min()
        .map(|(_, v)| v)
}

/// Levenshtein distance over bytes.
fn distance(a: &str, b: &str) -> usize {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, &ca) in a.iter().enumerate() {
        cur[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_misspelt_name_finds_its_valid_neighbour() {
        let disk = known("disksim_disk").expect("the disk table");
        assert_eq!(
            nearest("Segment sise (in blks)", disk),
            Some("Segment size (in blks)")
        );
        assert_eq!(
            nearest("number of buffer segments", disk),
            Some("Number of buffer segments")
        );
        assert_eq!(nearest("Completely different", disk), None);
        assert!(known("no_such_block").is_none());
    }
}

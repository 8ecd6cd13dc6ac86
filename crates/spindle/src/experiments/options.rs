//! How an experiment runs: scale, seed and the durability policy of its arrays (every
//! experiment takes these; the registry hands them out).

/// How to run: quick mode trades precision for time (tests and CI call it).
///
/// An experiment whose full run takes a few seconds at most runs at full size in quick
/// mode too (PROX-T1 and PROX-F1's strands, DISK-SEEDS, LOGSKIP-F5.2, FREEBLK-F4.1 and
/// FREEBLK-EQ, every DEDUP experiment but DEDUP-F8): at their smaller quick sizes the
/// sampling noise alone moved some of their checks across the tolerance, so a quick
/// report could disagree with the full one. A check whose value sits on its tolerance's
/// edge at full size (PROX-T1's write/read ratio at 8) still passes for some seeds and
/// not others, in either mode.
#[derive(Clone, Copy, Debug)]
pub struct RunOpts {
    pub quick: bool,
    pub seed: u64,
    /// Run at the paper's full scale where an experiment supports it (PROX-T2).
    pub full_scale: bool,
    /// When an array's write counts as done (PROX-T2 and the layout-engine runs): one
    /// policy for every row of a comparison.
    pub durability: Durability,
}

/// When a write to an array with drive write caches counts as done.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Durability {
    /// On the media: every update and every destage ends with a cache flush.
    Flush,
    /// On the media when it completes (the default): the RAID layer turns its
    /// members' write caches off (SCSI WCE = 0, as an enterprise RAID layer does over
    /// volatile drive caches), so each write is served from the media in the order the
    /// drive's queue chooses among the requests the RAID layer has sent.
    #[default]
    WriteThrough,
    /// In the drives' write caches: no flush; drives write to the media when idle.
    Cache,
}

impl Durability {
    /// Every policy, in the order the report lists them.
    pub const ALL: [Durability; 3] = [
        Durability::Flush,
        Durability::WriteThrough,
        Durability::Cache,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Durability::Flush => "flush",
            Durability::WriteThrough => "write-through",
            Durability::Cache => "cache",
        }
    }

    /// Whether the array flushes its members' caches after each write batch (with the
    /// caches off there is nothing to flush: the flush returns at once).
    pub fn sync_writes(self) -> bool {
        self != Durability::Cache
    }

    /// The members' write cache, KiB, where the policy overrides the drive's own.
    pub fn write_cache_kib(self) -> Option<u64> {
        (self == Durability::WriteThrough).then_some(0)
    }

    /// The other policies (context rows).
    pub fn others(self) -> impl Iterator<Item = Durability> {
        Durability::ALL.into_iter().filter(move |d| *d != self)
    }
}

impl std::str::FromStr for Durability {
    type Err = String;
    fn from_str(s: &str) -> Result<Durability, String> {
        Durability::ALL
            .into_iter()
            .find(|d| d.name() == s)
            .ok_or_else(|| {
                format!("durability must be `flush`, `write-through` or `cache`, got `{s}`")
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_policy_parses_from_its_name_and_no_other() {
        for d in Durability::ALL {
            assert_eq!(d.name().parse::<Durability>(), Ok(d));
            assert_eq!(d.others().count(), 2);
            assert!(d.others().all(|o| o != d));
        }
        assert_eq!(Durability::default(), Durability::WriteThrough);
        let e = "writethrough".parse::<Durability>().unwrap_err();
        assert!(
            e.contains("write-through") && e.contains("`writethrough`"),
            "{e}"
        );
        // Both durable policies flush; only write-through turns the caches off.
        assert!(Durability::Flush.sync_writes() && Durability::WriteThrough.sync_writes());
        assert!(!Durability::Cache.sync_writes());
        assert_eq!(Durability::WriteThrough.write_cache_kib(), Some(0));
        assert_eq!(Durability::Flush.write_cache_kib(), None);
    }
}

//! How an experiment runs: scale, seed and the durability policy of its arrays (every
//! experiment takes these; the registry hands them out).

/// How to run: quick mode trades precision for time (tests and CI call it).
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
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Durability {
    /// On the media: every update and every destage ends with a cache flush.
    #[default]
    Flush,
    /// In the drives' write caches: no flush; drives write to the media when idle.
    Cache,
}

impl Durability {
    pub fn name(self) -> &'static str {
        match self {
            Durability::Flush => "flush",
            Durability::Cache => "cache",
        }
    }

    /// Whether the array flushes its members' caches after each write batch.
    pub fn sync_writes(self) -> bool {
        self == Durability::Flush
    }

    /// The other policy (a context row).
    pub fn other(self) -> Durability {
        match self {
            Durability::Flush => Durability::Cache,
            Durability::Cache => Durability::Flush,
        }
    }
}

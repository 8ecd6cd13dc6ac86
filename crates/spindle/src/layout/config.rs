//! The `[layout]` table of a run configuration: a layout engine over a RAID-4 group
//! (`kind = "dle"`, or a baseline), built as a stack device by [`super::node`].

use super::dle::LayoutPolicy;
use crate::store::DataMode;
use serde::{Deserialize, Serialize};

/// The `[layout]` table of a run configuration.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct LayoutConfig {
    /// `dle` (flash staging + proximal destage), `update-in-place` or `write-anywhere`.
    pub kind: LayoutPolicy,
    /// Staging area as a percentage of the volume (`kind = "dle"` only; default 1 %).
    /// The baselines stage nothing: given with them, it is refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub staging_pct: Option<f64>,
    /// Writes smaller than this go to staging (KiB).
    #[serde(default = "default_threshold_kib")]
    pub threshold_kib: u64,
    /// Allocation range and stripe unit (KiB).
    #[serde(default = "default_range_kib")]
    pub allocation_range_kib: u64,
    #[serde(default = "default_data_disks")]
    pub data_disks: usize,
    /// Flash preset of the staging device.
    #[serde(default = "default_flash")]
    pub flash: String,
    /// The layout engine manages only the first this many MiB of the RAID-4's data
    /// volume (a scaled configuration on a part of full-size drives); the staging
    /// area is a percentage of it. Default: the whole volume. At most the volume.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub volume_mib: Option<u64>,
    /// Whether each RAID-4 write batch (an update in place, a destage) ends with a
    /// cache flush of the members, so that it is on the media when it counts as done
    /// (`true`, the default: the layout engine must know a destage is durable before
    /// it frees the staging copies); `false`: done once the drives have buffered it.
    #[serde(default = "default_sync_writes")]
    pub sync_writes: bool,
    /// What the RAID-4 keeps: `real-bytes` (default: contents, checksums and
    /// generations, every read verified) or `timing-only` (the same disk I/Os and
    /// timing without the contents, for volumes whose data would not fit in memory).
    #[serde(default, skip_serializing_if = "is_real_bytes")]
    pub data: DataMode,
}

fn default_sync_writes() -> bool {
    true
}

fn is_real_bytes(d: &DataMode) -> bool {
    *d == DataMode::RealBytes
}

/// Largest `volume-mib` (1 PiB): far beyond any RAID-4 of preset drives; the array's
/// own volume is the real bound, checked when it is built.
pub const MAX_VOLUME_MIB: u64 = 1 << 30;

pub const DEFAULT_STAGING_PCT: f64 = 1.0;
fn default_threshold_kib() -> u64 {
    168
}
fn default_range_kib() -> u64 {
    1024
}
fn default_data_disks() -> usize {
    4
}
fn default_flash() -> String {
    "x25m-g2".into()
}

impl LayoutConfig {
    /// The staging area of a DLE (0 for the baselines).
    pub fn staging_fraction(&self) -> f64 {
        match self.kind {
            LayoutPolicy::Proximal => self.staging_pct.unwrap_or(DEFAULT_STAGING_PCT) / 100.0,
            _ => 0.0,
        }
    }

    /// The defaults: 1 % staging, 168 KiB threshold, 1 MB ranges, 4+1, X25 staging.
    pub fn new(kind: LayoutPolicy) -> LayoutConfig {
        LayoutConfig {
            kind,
            staging_pct: None,
            threshold_kib: default_threshold_kib(),
            allocation_range_kib: default_range_kib(),
            data_disks: default_data_disks(),
            flash: default_flash(),
            volume_mib: None,
            sync_writes: default_sync_writes(),
            data: DataMode::RealBytes,
        }
    }

    pub fn validate(&self) -> Result<(), String> {
        if let Some(pct) = self.staging_pct {
            if self.kind != LayoutPolicy::Proximal {
                return Err(format!(
                    "layout.staging-pct applies to kind = \"dle\"; {} stages nothing in flash (drop the key)",
                    self.kind.name()
                ));
            }
            if !(0.0..=100.0).contains(&pct) {
                return Err(format!(
                    "layout.staging-pct must be 0-100, got {}",
                    crate::show::value(pct)
                ));
            }
        }
        if let Some(mib) = self.volume_mib {
            // The array's own volume bounds it further when it is built.
            if mib == 0 || mib > MAX_VOLUME_MIB {
                return Err(format!(
                    "layout.volume-mib must be within 1..={MAX_VOLUME_MIB}, got {mib}"
                ));
            }
        }
        if self.allocation_range_kib == 0 || !self.allocation_range_kib.is_multiple_of(4) {
            return Err(format!(
                "layout.allocation-range-kib must be a positive multiple of 4, got {}",
                self.allocation_range_kib
            ));
        }
        let most = crate::stack::tree::MAX_MEMBERS as usize - 1;
        if self.data_disks == 0 || self.data_disks > most {
            return Err(format!(
                "layout.data-disks must be within 1..={most} (the RAID-4 adds a parity drive; an array has at most {} members), got {}",
                crate::stack::tree::MAX_MEMBERS,
                self.data_disks
            ));
        }
        Ok(())
    }
}

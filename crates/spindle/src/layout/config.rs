//! The `[layout]` table of a run configuration: a layout engine over a RAID-4 group
//! (`kind = "dle"`, or a baseline), built as a stack device by [`super::node`].

use super::dle::LayoutPolicy;
use serde::{Deserialize, Serialize};

/// The `[layout]` table of a run configuration.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct LayoutConfig {
    /// `dle` (flash staging + proximal destage), `update-in-place` or `write-anywhere`.
    pub kind: LayoutPolicy,
    /// Staging area as a percentage of the volume.
    #[serde(default = "default_staging_pct")]
    pub staging_pct: f64,
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
}

fn default_staging_pct() -> f64 {
    1.0
}
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
    /// The defaults: 1 % staging, 168 KiB threshold, 1 MB ranges, 4+1, X25 staging.
    pub fn new(kind: LayoutPolicy) -> LayoutConfig {
        LayoutConfig {
            kind,
            staging_pct: default_staging_pct(),
            threshold_kib: default_threshold_kib(),
            allocation_range_kib: default_range_kib(),
            data_disks: default_data_disks(),
            flash: default_flash(),
        }
    }

    pub fn validate(&self) -> Result<(), String> {
        if !(0.0..=100.0).contains(&self.staging_pct) {
            return Err(format!(
                "layout.staging-pct must be 0-100, got {}",
                crate::show::value(self.staging_pct)
            ));
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

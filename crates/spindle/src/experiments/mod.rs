//! Experiments that reproduce the seed papers' numbers on the disk model. Each computes
//! its result by simulation and reports it next to the paper's value (catalog ids from
//! EXPERIMENTS.md).

pub mod dedup_exps;
pub mod disksim_suite;
pub mod freeblk_eq;
pub mod freeblk_exps;
pub mod logskip_edge;
pub mod logskip_exps;
pub mod mimd_eq;
pub mod mimd_geometry;
pub mod mimd_headtrack;
pub mod mimd_prototype;
pub mod mimd_stack;
pub mod mimd_throughput;
pub mod mimd_trace;
pub mod mimic_exps;
pub mod mimic_real;
pub mod options;
pub mod prox_common;
pub mod prox_dle;
pub mod prox_eq;
pub mod prox_full;
pub mod prox_raid;
pub mod prox_t2_eq;
pub mod raid5_exps;
pub mod random_io;
pub mod registry;
pub mod seed_drives;
pub mod strand_exps;
pub mod strand_model;
pub mod strands;

pub use crate::report::{Check, CheckKind};

/// A stack as a user writes it, without a workload: the device tree (`[device]`) and
/// the layers above it (`[[layer]]`, top first). Experiments that drive a stack with
/// their own requests parse this.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct StackToml {
    pub device: crate::stack::tree::DeviceSpec,
    #[serde(default)]
    pub layer: Vec<crate::layers::LayerSpec>,
}

impl StackToml {
    pub fn parse(text: &str) -> Result<StackToml, String> {
        toml::from_str(text).map_err(|e| format!("experiment stack: {e}"))
    }

    /// The device tree, each drive behind the default host queue.
    pub fn device(&self) -> Result<crate::stack::tree::Built, String> {
        let q = crate::stack::queue::SchedulerConfig::default().queue_spec()?;
        crate::stack::tree::build(&self.device, &q, None)
    }
}

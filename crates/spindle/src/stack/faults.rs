//! Fault injection as a wrapper around a device of the stack: a `faults` table on any
//! `[device]` entry (a drive, an array's member, an array).
//!
//! ```toml
//! [device]
//! kind = "raid4"
//! count = 5
//! [device.member]
//! kind = "disk"
//! disk = "wd-re3"
//! faults = { lost = 0.01, misdirected = 0.01, torn = 0.01, flips = 0.01, fail-at-ms = 2000.0 }
//! ```
//!
//! The vocabulary is the byte-exact arrays' ([`crate::array::faults`]): `lost`,
//! `misdirected` and `torn` are the probabilities that one write the device completes
//! is acknowledged but not stored, stored at a nearby wrong block, or stored only in
//! part (its first 1–7 sectors); `flips` is the probability, after each operation of a
//! campaign, that one bit of a block the device stores flips; `fail-at-ms` fails the
//! whole device at that simulated instant (the array rebuilds it on a replacement);
//! `crash-at-ms` cuts the power of the whole stack during its first write after that
//! instant (a power cut takes every device that shares the supply), after which the
//! stack recovers. `seed` (default: the campaign's) is mixed with the entry's place in
//! the tree, so every device draws from its own stream and adding a device does not
//! shift the others' faults.
//!
//! A table on an array applies to each member below it (each with its own stream)
//! unless the member has its own; `fail-at-ms` belongs on a member (failing a whole
//! array loses it). Faults act on bytes, so only a stack that stores bytes can take
//! them: the byte-exact RAID-4 and mirror of `spindle torture`. The timing-only
//! device tree of `spindle run` refuses every `faults` table before the run.

use serde::{Deserialize, Serialize};

/// Latest `fail-at-ms` / `crash-at-ms` (one simulated year): far beyond any campaign.
pub const MAX_FAULT_MS: f64 = 365.0 * 24.0 * 3600.0 * 1e3;

/// A `faults` table.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct FaultSpec {
    /// Probability that a write is acknowledged but not stored.
    #[serde(default)]
    pub lost: f64,
    /// Probability that a write lands on a nearby wrong block.
    #[serde(default)]
    pub misdirected: f64,
    /// Probability that a write stores only its first 1–7 sectors.
    #[serde(default)]
    pub torn: f64,
    /// Probability, per campaign operation, of one bit flip in a stored block.
    #[serde(default)]
    pub flips: f64,
    /// The device fails whole at this simulated instant, ms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fail_at_ms: Option<f64>,
    /// The stack's power is cut during its first write after this instant, ms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub crash_at_ms: Option<f64>,
    /// This device's seed (default: the campaign's), mixed with its place in the tree.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
}

impl FaultSpec {
    /// Every fault kind at probability `p` (no scheduled failure or crash).
    pub fn uniform(p: f64) -> FaultSpec {
        FaultSpec {
            lost: p,
            misdirected: p,
            torn: p,
            flips: p,
            ..FaultSpec::default()
        }
    }

    /// Checks the values; errors name `path.faults.<key>`, the value and the range.
    pub fn validate(&self, path: &str) -> Result<(), String> {
        let key = |k: &str| format!("{path}.faults.{k}");
        crate::show::probabilities(&[
            (&key("lost"), self.lost),
            (&key("misdirected"), self.misdirected),
            (&key("torn"), self.torn),
            (&key("flips"), self.flips),
        ])?;
        let writes = self.lost + self.misdirected + self.torn;
        if writes > 1.0 {
            return Err(format!(
                "{path}.faults: lost + misdirected + torn is the chance that one write goes wrong and must be at most 1, got {}",
                crate::show::value(writes)
            ));
        }
        for (key, t) in [
            ("fail-at-ms", self.fail_at_ms),
            ("crash-at-ms", self.crash_at_ms),
        ] {
            if let Some(t) = t {
                if !(0.0..=MAX_FAULT_MS).contains(&t) {
                    return Err(format!(
                        "{path}.faults.{key} must be within 0..={MAX_FAULT_MS} ms, got {}",
                        crate::show::value(t)
                    ));
                }
            }
        }
        Ok(())
    }

    /// The faults that need stored bytes to act on, by name.
    pub fn byte_faults(&self) -> Vec<&'static str> {
        [
            ("lost", self.lost),
            ("misdirected", self.misdirected),
            ("torn", self.torn),
            ("flips", self.flips),
        ]
        .iter()
        .filter(|(_, p)| *p > 0.0)
        .map(|(k, _)| *k)
        .collect()
    }

    /// Why a timing-only device cannot take this table.
    pub fn refuse_timing_only(&self, path: &str) -> String {
        let kinds = self.byte_faults();
        let what = if kinds.is_empty() {
            "a drive failure or power cut needs an array that can run degraded and recover"
                .to_string()
        } else {
            format!(
                "{} act on stored bytes, and requests here carry none",
                kinds.join(", ")
            )
        };
        format!(
            "{path}.faults: this device tree is timing-only: {what}; run the stack under `spindle torture --stack FILE` (a byte-exact raid4 or mirror)"
        )
    }
}

/// The seed of the device at `path` in a campaign seeded `seed`: FNV-1a of the path,
/// mixed with the seed (stable across runs and platforms, unlike std's hasher).
pub fn device_seed(seed: u64, path: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in path.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    // splitmix64 finaliser over the mix, so nearby seeds give unrelated streams.
    let mut z = h ^ seed.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The 1-based line of the first `faults` table in TOML `text` (a `faults = ...` key or
/// a `[....faults]` header), for errors that must name where it is.
pub fn faults_line(text: &str) -> Option<usize> {
    text.lines()
        .position(|l| {
            let l = l.trim_start();
            if l.starts_with('#') {
                return false;
            }
            let header = l.starts_with('[') && l.contains(".faults]");
            let key = l.split(['{', ',']).any(|part| {
                let part = part.trim_start();
                part.strip_prefix("faults")
                    .is_some_and(|rest| rest.trim_start().starts_with('='))
            });
            header || key
        })
        .map(|i| i + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validation_names_the_key_and_value() {
        let mut f = FaultSpec::uniform(0.01);
        assert!(f.validate("device").is_ok());
        f.lost = 1.5;
        let e = f.validate("device.member 0").unwrap_err();
        assert!(
            e.contains("device.member 0.faults.lost") && e.contains("1.5"),
            "{e}"
        );
        let f = FaultSpec {
            fail_at_ms: Some(f64::NAN),
            ..FaultSpec::default()
        };
        assert!(f.validate("d").unwrap_err().contains("fail-at-ms"));
    }

    #[test]
    fn device_seeds_differ_by_path_and_repeat() {
        assert_eq!(device_seed(1, "a"), device_seed(1, "a"));
        assert_ne!(
            device_seed(1, "device.member 0"),
            device_seed(1, "device.member 1")
        );
        assert_ne!(device_seed(1, "a"), device_seed(2, "a"));
    }

    #[test]
    fn faults_line_finds_keys_and_headers() {
        let t = "[device]\nkind = \"raid4\"\n# faults = {}\n[device.member]\nkind = \"disk\", faults = { lost = 0.1 }\n";
        assert_eq!(faults_line(t), Some(5));
        assert_eq!(faults_line("[a]\n[device.faults]\nlost = 1\n"), Some(2));
        assert_eq!(faults_line("[a]\nx = 1\n"), None);
    }
}

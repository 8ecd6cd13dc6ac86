//! The layer vocabulary of a stack (`[[layer]]` in TOML, `--layer` and friends on the
//! command line): which layers there are and how each is built over a device. It sits
//! above both the stack's own layers (`stack`) and the techniques' layers (`dedup`), so
//! that neither has to know the other.

use crate::node::Device;
use crate::stack::cache::CacheSpec;
use crate::stack::layer::LayerNode;
use serde::{Deserialize, Serialize};

/// A layer above the device tree (`[[layer]]`, top of the stack first).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum LayerSpec {
    /// An LRU block cache in host memory, write-through.
    Cache(CacheSpec),
    /// RAID-Mimic: finds a RAID-5's stripe on-line and writes whole aligned stripes.
    RaidMimic(crate::stack::raid_mimic::RaidMimicSpec),
    /// Requests larger than a limit go below in pieces (a paravirtual ring's limit).
    Split(crate::stack::split::SplitSpec),
    /// Writes of one stripe row go one at a time (a RAID-5 controller's ordering).
    StripeLock(crate::stack::stripe_lock::StripeLockSpec),
    /// I/O Deduplication's content-addressed cache (or its sector-addressed baseline).
    ContentCache(crate::dedup::ContentCacheSpec),
    /// I/O Deduplication's dynamic replica retrieval.
    Drr(crate::dedup::DrrSpec),
    /// A data journal with real bytes: commit blocks or transactional checksums, with
    /// or without log skipping (thesis ch. 5).
    Journal(crate::stack::journal::JournalSpec),
}

/// Most layers a stack may have.
pub const MAX_LAYERS: usize = 64;

impl LayerSpec {
    /// The layer's `kind`, as a stack file names it.
    pub fn kind(&self) -> &'static str {
        match self {
            LayerSpec::Cache(_) => "cache",
            LayerSpec::RaidMimic(_) => "raid-mimic",
            LayerSpec::Split(_) => "split",
            LayerSpec::StripeLock(_) => "stripe-lock",
            LayerSpec::ContentCache(_) => "content-cache",
            LayerSpec::Drr(_) => "drr",
            LayerSpec::Journal(_) => "journal",
        }
    }

    /// Checks this layer's settings without building it (nothing large is allocated,
    /// no file is read).
    pub fn check(&self) -> Result<(), String> {
        match self {
            LayerSpec::Cache(c) => c.check(),
            // These three hold nothing until requests come.
            LayerSpec::RaidMimic(r) => r.build().map(drop),
            LayerSpec::Split(s) => s.build().map(drop),
            LayerSpec::StripeLock(s) => s.build().map(drop),
            LayerSpec::ContentCache(c) => c.check(),
            LayerSpec::Drr(d) => d.check(),
            LayerSpec::Journal(j) => j.check(),
        }
    }
}

/// Checks a stack's layers (top first) before any is built: each one's settings, how
/// many there are, and their caches together: the block caches hold at most
/// [`MAX_CACHE_KIB`](crate::stack::cache::MAX_CACHE_KIB) and the content caches at
/// most [`MAX_PAGES`](crate::dedup::cache::MAX_PAGES) pages in all, the limits of one
/// cache.
pub fn check_layers(layers: &[LayerSpec]) -> Result<(), String> {
    if layers.len() > MAX_LAYERS {
        return Err(format!("at most {MAX_LAYERS} layers, got {}", layers.len()));
    }
    for (i, l) in layers.iter().enumerate() {
        l.check().map_err(|e| format!("layer {i}: {e}"))?;
    }
    let (kib, pages) = layers.iter().fold((0u64, 0u64), |(kib, pages), l| match l {
        LayerSpec::Cache(c) => (kib.saturating_add(c.size_kib), pages),
        LayerSpec::ContentCache(c) => (kib, pages.saturating_add(c.pages)),
        _ => (kib, pages),
    });
    let most_kib = crate::stack::cache::MAX_CACHE_KIB;
    if kib > most_kib {
        return Err(format!(
            "the stack's block caches hold {kib} KiB together; at most {most_kib} KiB (16 GiB) in all"
        ));
    }
    let most_pages = crate::dedup::cache::MAX_PAGES;
    if pages > most_pages {
        return Err(format!(
            "the stack's content caches hold {pages} pages together; at most {most_pages} in all"
        ));
    }
    Ok(())
}

/// Puts `layers` (top first) above `root`.
pub fn with_layers(root: Box<dyn Device>, layers: &[LayerSpec]) -> Result<Box<dyn Device>, String> {
    with_layers_fed(root, layers, None)
}

/// [`with_layers`], with the workload's content hashes from `feed` for a content cache
/// at the top of the stack (the only place whose request ids are the workload's).
pub fn with_layers_fed(
    root: Box<dyn Device>,
    layers: &[LayerSpec],
    feed: Option<&crate::dedup::ContentFeed>,
) -> Result<Box<dyn Device>, String> {
    check_layers(layers)?;
    let mut dev = root;
    for (i, l) in layers.iter().enumerate().rev() {
        let layer: Box<dyn crate::stack::layer::Layer> = match l {
            LayerSpec::Cache(c) => Box::new(c.build().map_err(|e| format!("layer {i}: {e}"))?),
            LayerSpec::RaidMimic(r) => Box::new(r.build().map_err(|e| format!("layer {i}: {e}"))?),
            LayerSpec::Split(s) => Box::new(s.build().map_err(|e| format!("layer {i}: {e}"))?),
            LayerSpec::StripeLock(s) => Box::new(s.build().map_err(|e| format!("layer {i}: {e}"))?),
            LayerSpec::ContentCache(c) => {
                let built = match feed {
                    Some(f) if i == 0 => c.build_with(Box::new(f.clone())),
                    _ => c.build(),
                };
                Box::new(built.map_err(|e| format!("layer {i}: {e}"))?)
            }
            LayerSpec::Drr(c) => {
                // DRR learns writes' content from the feed when every layer above it is
                // a content cache (which passes the workload's request ids down).
                let above_keep_ids = layers[..i]
                    .iter()
                    .all(|l| matches!(l, LayerSpec::ContentCache(_)));
                let built = match feed {
                    Some(f) if i == 0 => c.build_with(Box::new(f.clone())),
                    Some(f) if above_keep_ids => c.build_with(Box::new(f.also_for_writes())),
                    _ => c.build(),
                };
                Box::new(built.map_err(|e| format!("layer {i}: {e}"))?)
            }
            LayerSpec::Journal(j) => Box::new(j.build().map_err(|e| format!("layer {i}: {e}"))?),
        };
        dev = Box::new(LayerNode::new(layer, dev));
    }
    Ok(dev)
}

//! A map from request ids to what a part remembers of each request in flight below it.
//!
//! A queue keeps a handful of requests out at its device (its depth), and finds each
//! again when it completes. A hash map's probing costs more than a scan of a few
//! entries, so the map is a short vector until it holds more than [`SCAN_UP_TO`]
//! entries, and a hash map from then on (so a deep queue still finds ids in O(1)).

use rustc_hash::FxHashMap;

/// Up to this many entries the map is scanned.
pub const SCAN_UP_TO: usize = 16;

#[derive(Clone, Debug)]
pub struct IdMap<V> {
    few: Vec<(u64, V)>,
    many: Option<FxHashMap<u64, V>>,
}

impl<V> Default for IdMap<V> {
    fn default() -> Self {
        IdMap {
            few: Vec::new(),
            many: None,
        }
    }
}

impl<V> IdMap<V> {
    pub fn len(&self) -> usize {
        match &self.many {
            Some(m) => m.len(),
            None => self.few.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Adds `v` for `id`; returns what `id` had before, if anything.
    pub fn insert(&mut self, id: u64, v: V) -> Option<V> {
        if let Some(m) = &mut self.many {
            return m.insert(id, v);
        }
        if let Some(e) = self.few.iter_mut().find(|e| e.0 == id) {
            return Some(std::mem::replace(&mut e.1, v));
        }
        if self.few.len() < SCAN_UP_TO {
            self.few.push((id, v));
        } else {
            let mut m: FxHashMap<u64, V> = self.few.drain(..).collect();
            m.insert(id, v);
            self.many = Some(m);
        }
        None
    }

    /// Takes `id`'s entry out.
    pub fn remove(&mut self, id: &u64) -> Option<V> {
        if let Some(m) = &mut self.many {
            return m.remove(id);
        }
        let i = self.few.iter().position(|e| e.0 == *id)?;
        Some(self.few.swap_remove(i).1)
    }

    /// Every value, in no particular order.
    pub fn values(&self) -> Box<dyn Iterator<Item = &V> + '_> {
        match &self.many {
            Some(m) => Box::new(m.values()),
            None => Box::new(self.few.iter().map(|e| &e.1)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::HashMap;

    proptest! {
        /// Any inserts and removes give the answers of a `HashMap`, across the switch.
        #[test]
        fn agrees_with_a_hash_map(ops in proptest::collection::vec((any::<bool>(), 0u64..40, any::<u8>()), 0..400)) {
            let mut a = IdMap::default();
            let mut b = HashMap::new();
            for (add, id, v) in ops {
                if add {
                    prop_assert_eq!(a.insert(id, v), b.insert(id, v));
                } else {
                    prop_assert_eq!(a.remove(&id), b.remove(&id));
                }
                prop_assert_eq!(a.len(), b.len());
            }
            let mut x: Vec<u8> = a.values().copied().collect();
            let mut y: Vec<u8> = b.values().copied().collect();
            x.sort_unstable();
            y.sort_unstable();
            prop_assert_eq!(x, y);
        }
    }
}

//! Replacement for the content cache: LRU, and ARC (Megiddo and Modha, FAST '03), which
//! the paper uses because a second-level cache sees little recency and needs frequency
//! too (§3.2). Both work on the cache's content indices with intrusive lists (no
//! allocation once the index space has grown): LRU uses one list; ARC keeps the cached
//! T1 (seen once) and T2 (seen again) and the ghost lists B1 and B2 of contents recently
//! evicted from each, and adapts its target size `p` for T1 on ghost hits.

use super::table::NIL;
use serde::{Deserialize, Serialize};

/// Which algorithm.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Policy {
    Lru,
    Arc,
}

impl Policy {
    pub fn name(self) -> &'static str {
        match self {
            Policy::Lru => "LRU",
            Policy::Arc => "ARC",
        }
    }
}

const T1: u8 = 0;
const T2: u8 = 1;
const B1: u8 = 2;
const B2: u8 = 3;
const NONE: u8 = 4;

#[derive(Clone, Copy, Debug)]
struct Node {
    prev: u32,
    next: u32,
    list: u8,
    /// The cache's stamp of this content's current residency (kept here, beside the
    /// list links, so a hit touches one node). 32 bits keep a node at 16 bytes; the
    /// cache renumbers stamps before they wrap.
    stamp: u32,
}

const FREE: Node = Node {
    prev: NIL,
    next: NIL,
    list: NONE,
    stamp: 0,
};

/// A list: most recent at `head`, least recent at `tail`.
#[derive(Clone, Copy, Debug)]
struct List {
    head: u32,
    tail: u32,
    len: usize,
}

const EMPTY: List = List {
    head: NIL,
    tail: NIL,
    len: 0,
};

#[derive(Clone, Debug)]
pub struct Replacer {
    policy: Policy,
    cap: usize,
    /// ARC's target size of T1.
    p: usize,
    nodes: Vec<Node>,
    lists: [List; 4],
}

impl Replacer {
    /// A cache of `cap` pages (at least 1; the caller checks its limits).
    pub fn new(policy: Policy, cap: usize) -> Replacer {
        Replacer {
            policy,
            cap: cap.max(1),
            p: 0,
            nodes: Vec::new(),
            lists: [EMPTY; 4],
        }
    }

    pub fn policy(&self) -> Policy {
        self.policy
    }

    /// Starts loading `x`'s node (see [`crate::prefetch`]).
    #[inline]
    pub fn prefetch(&self, x: u32) {
        if let Some(n) = self.nodes.get(x as usize) {
            crate::prefetch::prefetch(n);
        }
    }

    /// Whether content `x`'s page is held.
    #[inline]
    pub fn cached(&self, x: u32) -> bool {
        self.nodes.get(x as usize).is_some_and(|n| n.list <= T2)
    }

    /// Whether `x` is in any list (held, or remembered as a ghost).
    pub fn tracked(&self, x: u32) -> bool {
        self.nodes.get(x as usize).is_some_and(|n| n.list != NONE)
    }

    /// Pages held.
    pub fn len(&self) -> usize {
        self.lists[T1 as usize].len + self.lists[T2 as usize].len
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Contents remembered in the ghost lists.
    pub fn ghosts(&self) -> usize {
        self.lists[B1 as usize].len + self.lists[B2 as usize].len
    }

    /// Content indices with a node (cached, ghost or free): `0..slots()`.
    pub fn slots(&self) -> usize {
        self.nodes.len()
    }

    /// The contents of T2 (seen at least twice while tracked), most recent first, into
    /// `out` (ARC only; LRU has no T2).
    pub fn frequent(&self, out: &mut Vec<u32>) {
        out.clear();
        let mut x = self.lists[T2 as usize].head;
        while x != NIL {
            out.push(x);
            x = self.nodes[x as usize].next;
        }
    }

    /// Bytes of list nodes.
    pub fn bytes(&self) -> usize {
        self.nodes.capacity() * std::mem::size_of::<Node>()
    }

    fn unlink(&mut self, x: u32) {
        let n = self.nodes[x as usize];
        let l = &mut self.lists[n.list as usize];
        if n.prev == NIL {
            l.head = n.next;
        } else {
            self.nodes[n.prev as usize].next = n.next;
        }
        if n.next == NIL {
            l.tail = n.prev;
        } else {
            self.nodes[n.next as usize].prev = n.prev;
        }
        l.len -= 1;
        let node = &mut self.nodes[x as usize];
        node.prev = NIL;
        node.next = NIL;
        node.list = NONE;
    }

    fn push_front(&mut self, list: u8, x: u32) {
        let l = &mut self.lists[list as usize];
        let old = l.head;
        l.head = x;
        if old == NIL {
            l.tail = x;
        }
        l.len += 1;
        if old != NIL {
            self.nodes[old as usize].prev = x;
        }
        let node = &mut self.nodes[x as usize];
        node.prev = NIL;
        node.next = old;
        node.list = list;
    }

    /// The stamp of `x`'s residency (0 if never set).
    #[inline]
    pub fn stamp(&self, x: u32) -> u32 {
        self.nodes.get(x as usize).map_or(0, |n| n.stamp)
    }

    /// Sets `x`'s stamp (`x` was inserted).
    pub fn set_stamp(&mut self, x: u32, stamp: u32) {
        self.nodes[x as usize].stamp = stamp;
    }

    /// Moves `x` (wherever it is) to the front of `list`.
    fn move_front(&mut self, list: u8, x: u32) {
        let n = self.nodes[x as usize];
        if n.list == list && n.prev == NIL {
            return; // already the most recent
        }
        if n.list != NONE {
            self.unlink(x);
        }
        self.push_front(list, x);
    }

    /// Takes the least recent of `list` out; returns it.
    fn pop_back(&mut self, list: u8) -> u32 {
        let x = self.lists[list as usize].tail;
        debug_assert!(x != NIL);
        self.unlink(x);
        x
    }

    /// A hit on cached content `x`.
    #[inline]
    pub fn hit(&mut self, x: u32) {
        match self.policy {
            Policy::Lru => self.move_front(T1, x),
            Policy::Arc => self.move_front(T2, x),
        }
    }

    /// Admits content `x`, not cached (perhaps a ghost). Contents whose pages are dropped
    /// and ghosts forgotten are pushed to `out`: the caller drops their data and may
    /// free what no list and no sector holds any more.
    pub fn insert(&mut self, x: u32, out: &mut Vec<u32>) {
        if x as usize >= self.nodes.len() {
            self.nodes.resize(x as usize + 1, FREE);
        }
        debug_assert!(!self.cached(x));
        match self.policy {
            Policy::Lru => {
                if self.len() >= self.cap {
                    out.push(self.pop_back(T1));
                }
                self.push_front(T1, x);
            }
            Policy::Arc => self.arc_insert(x, out),
        }
    }

    fn len_of(&self, list: u8) -> usize {
        self.lists[list as usize].len
    }

    fn arc_insert(&mut self, x: u32, out: &mut Vec<u32>) {
        let c = self.cap;
        match self.nodes[x as usize].list {
            B1 => {
                let d = (self.len_of(B2) / self.len_of(B1)).max(1);
                self.p = (self.p + d).min(c);
                self.arc_replace(false, out);
                self.move_front(T2, x);
            }
            B2 => {
                let d = (self.len_of(B1) / self.len_of(B2)).max(1);
                self.p = self.p.saturating_sub(d);
                self.arc_replace(true, out);
                self.move_front(T2, x);
            }
            _ => {
                let l1 = self.len_of(T1) + self.len_of(B1);
                let total = l1 + self.len_of(T2) + self.len_of(B2);
                if l1 >= c {
                    if self.len_of(T1) < c {
                        out.push(self.pop_back(B1));
                        self.arc_replace(false, out);
                    } else {
                        out.push(self.pop_back(T1));
                    }
                } else if total >= c {
                    if total >= 2 * c {
                        out.push(self.pop_back(B2));
                    }
                    self.arc_replace(false, out);
                }
                self.push_front(T1, x);
            }
        }
    }

    /// ARC's REPLACE: makes room for one page when the cache is full, demoting the
    /// least recent page of T1 or T2 to its ghost list.
    fn arc_replace(&mut self, in_b2: bool, out: &mut Vec<u32>) {
        if self.len() < self.cap {
            return;
        }
        let t1 = self.len_of(T1);
        if t1 >= 1 && (t1 > self.p || (in_b2 && t1 == self.p)) {
            let y = self.pop_back(T1);
            self.push_front(B1, y);
            out.push(y);
        } else {
            let y = self.pop_back(T2);
            self.push_front(B2, y);
            out.push(y);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hits of a reference string through a cache of `cap` pages.
    fn hits(policy: Policy, cap: usize, refs: &[u32]) -> usize {
        let mut r = Replacer::new(policy, cap);
        let mut out = Vec::new();
        let mut n = 0;
        for &x in refs {
            if r.cached(x) {
                r.hit(x);
                n += 1;
            } else {
                r.insert(x, &mut out);
            }
            assert!(r.len() <= cap);
            assert!(r.len() + r.ghosts() <= 2 * cap);
        }
        n
    }

    #[test]
    fn lru_evicts_the_least_recent() {
        // 1 2 1 3 (evicts 2) 2 (miss, evicts 1) 1 (miss)
        assert_eq!(hits(Policy::Lru, 2, &[1, 2, 1, 3, 2, 1]), 1);
    }

    #[test]
    fn arc_keeps_frequent_pages_through_a_scan() {
        // Two hot pages seen twice, then a long scan of one-time pages, then the hot
        // pages again: ARC keeps them in T2; LRU has lost them.
        let mut refs = vec![1, 2, 1, 2];
        refs.extend(100..140);
        refs.extend([1, 2]);
        assert_eq!(hits(Policy::Lru, 4, &refs), 2);
        assert_eq!(hits(Policy::Arc, 4, &refs), 4);
    }

    #[test]
    fn arc_stays_within_its_lists_on_random_references() {
        use rand::{Rng, SeedableRng};
        for seed in 0..4 {
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
            let refs: Vec<u32> = (0..20_000).map(|_| rng.gen_range(0..300)).collect();
            let a = hits(Policy::Arc, 50, &refs);
            let l = hits(Policy::Lru, 50, &refs);
            assert!(a > 0 && l > 0);
        }
    }
}

//! A simulated hard disk as a stack device: the drive's firmware queue, mechanism and
//! caches ([`Drive`]) behind the [`Device`] interface.

use crate::disk::drive::Drive;
use crate::disk::hdd::{Hdd, Request};
pub use crate::disk::presets::load_disk;
use crate::node::{tree_line, Device, Done, NodeReport};
use crate::time::SimTime;

pub struct DriveNode {
    drive: Drive,
    name: String,
    reads: u64,
    writes: u64,
}

impl DriveNode {
    pub fn new(drive: Drive, name: impl Into<String>) -> DriveNode {
        DriveNode {
            drive,
            name: name.into(),
            reads: 0,
            writes: 0,
        }
    }

    pub fn drive(&self) -> &Drive {
        &self.drive
    }
}

impl Device for DriveNode {
    fn capacity(&self) -> u64 {
        self.drive.hdd().capacity()
    }

    fn outstanding(&self) -> usize {
        self.drive.outstanding()
    }

    fn can_accept(&self) -> bool {
        self.drive.can_accept()
    }

    fn submit(&mut self, now: SimTime, req: Request) {
        self.enqueue(now, req);
        self.start(now);
    }

    fn enqueue(&mut self, now: SimTime, req: Request) {
        if req.write {
            self.writes += 1;
        } else {
            self.reads += 1;
        }
        self.drive.enqueue(now, req);
    }

    fn start(&mut self, now: SimTime) {
        self.drive.kick(now);
    }

    fn next_wake(&self) -> Option<SimTime> {
        self.drive.next_completion()
    }

    fn wake(&mut self, _now: SimTime, out: &mut Vec<Done>) {
        let Some(c) = self.drive.complete() else {
            return;
        };
        let c = c.completion;
        out.push(Done::of_drive(&c, 0));
    }

    fn oracle(&self) -> Option<&Hdd> {
        Some(self.drive.hdd())
    }

    fn drive(&self) -> Option<&Drive> {
        Some(&self.drive)
    }

    fn drive_mut(&mut self) -> Option<&mut Drive> {
        Some(&mut self.drive)
    }

    fn describe(&self, depth: usize, out: &mut String) {
        let p = self.drive.hdd().params();
        let gb = self.capacity() as f64 * 512.0 / 1e9;
        let mut cache = if self.drive.caches_writes() {
            ", write cache".to_string()
        } else {
            String::new()
        };
        if let Some(bus) = self.drive.bus() {
            cache.push_str(&format!(", on shared bus {}", bus.name()));
        }
        tree_line(
            depth,
            out,
            &format!(
                "disk {} ({gb:.1} GB, {} rpm, firmware {:?} depth {}{cache})",
                self.name, p.mech.rpm, p.firmware.policy, p.firmware.queue_depth
            ),
        );
    }

    fn report_until(&self, path: &str, end: SimTime, out: &mut Vec<NodeReport>) {
        let d = self.drive.destage_stats();
        let mut extra = Vec::new();
        if self.drive.caches_writes() {
            extra.push(("destages".into(), d.count.to_string()));
        }
        if let Some(bus) = self.drive.bus() {
            extra.push(("bus".into(), bus.name()));
            extra.push((
                "bus wait ms".into(),
                format!("{:.3}", self.drive.bus_wait_ns() as f64 / 1e6),
            ));
        }
        out.push(NodeReport {
            path: path.to_string(),
            kind: format!("disk {}", self.name),
            reads: self.reads,
            writes: self.writes,
            busy_ns: self.drive.busy_ns_until(end),
            extra,
            is_drive: true,
        });
    }
}

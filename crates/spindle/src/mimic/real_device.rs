//! A real file or block device as a [`ProbeDevice`]: the Disk Mimic and the rotation
//! estimator time requests on it exactly as they time a simulated drive.
//!
//! Requests are unbuffered (`O_DIRECT`): each goes to the device, not to the page
//! cache, from a buffer aligned to the device's direct-I/O alignment (found by trying
//! 512 then 4096 bytes). A request of 512-byte sectors `[lbn, lbn + blocks)` covers
//! the aligned bytes around it, so on a 4096-byte-aligned device one sector reads its
//! whole 4 KiB block. The clock is real time since the device was opened (ns): a
//! request is issued when `access` is called, and `access` returns when it completed,
//! so back-to-back requests are timed completion to completion.
//!
//! Safety: the device is opened read-only unless writes are allowed, and writes (of
//! zeros: they destroy what was there) are refused on a device that holds a file
//! system or a partition table, is mounted (it or a partition of it), or is held by
//! another device (LVM, RAID, dm); see [`RealDevice::write_refusal`].

use super::ProbeDevice;
use crate::disk::hdd::Request;
use crate::time::SimTime;
use std::fs::File;
use std::os::unix::fs::{FileExt, FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// Smallest device probed, bytes (a probe pair needs room for its distances).
pub const MIN_BYTES: u64 = 64 * 1024;
/// Largest direct-I/O alignment tried, bytes.
pub const MAX_ALIGN: usize = 4096;
/// Largest probe request, bytes (the buffer is allocated once, this size plus the
/// alignment; checked before allocating).
pub const MAX_REQUEST_BYTES: usize = 1 << 20;
/// Bytes read from the start of the device to look for file-system signatures.
const SIGNATURE_BYTES: usize = 0x11000;

/// A device that cannot be probed, and why.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {msg}")]
pub struct DeviceError {
    pub path: String,
    pub msg: String,
}

/// A buffer whose usable part starts at an address aligned to `align`.
struct AlignedBuf {
    bytes: Vec<u8>,
    offset: usize,
    len: usize,
}

impl AlignedBuf {
    fn new(len: usize, align: usize) -> AlignedBuf {
        let bytes = vec![0u8; len + align];
        let offset = bytes.as_ptr().align_offset(align).min(align);
        AlignedBuf { bytes, offset, len }
    }
    fn slice(&mut self, len: usize) -> &mut [u8] {
        &mut self.bytes[self.offset..self.offset + len.min(self.len)]
    }
}

/// An opened file or block device, timed with direct I/O.
pub struct RealDevice {
    file: File,
    path: PathBuf,
    block_device: bool,
    bytes: u64,
    align: usize,
    writable: bool,
    buf: AlignedBuf,
    epoch: Instant,
    /// The first I/O error met while probing (the probe goes on; the caller checks).
    error: Arc<Mutex<Option<String>>>,
}

fn err(path: &Path, msg: impl Into<String>) -> DeviceError {
    DeviceError {
        path: path.display().to_string(),
        msg: msg.into(),
    }
}

/// An `io::Error` as a sentence about the device.
fn io_msg(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file or device".into(),
        std::io::ErrorKind::PermissionDenied => {
            "permission denied (probing a block device usually needs root)".into()
        }
        _ => format!("{e}"),
    }
}

const NO_DIRECT: &str = "does not support O_DIRECT (unbuffered) I/O, so timings would measure the page cache, not the device (tmpfs and some overlay or network file systems refuse it): probe a file on a disk-backed file system, or the block device";

impl RealDevice {
    /// Opens `path` (a regular file or a block device) for probing; read-only unless
    /// `writes`. Checks, in order: it exists and may be opened, is a file or block
    /// device, is at least [`MIN_BYTES`], and takes `O_DIRECT` reads.
    pub fn open(path: &Path, writes: bool) -> Result<RealDevice, DeviceError> {
        let meta = std::fs::metadata(path).map_err(|e| err(path, io_msg(&e)))?;
        let ft = meta.file_type();
        if ft.is_dir() {
            return Err(err(
                path,
                "is a directory; expected a regular file or a block device",
            ));
        }
        let block_device = ft.is_block_device();
        if !block_device && !ft.is_file() {
            return Err(err(
                path,
                "is neither a regular file nor a block device (a character device, pipe or socket cannot be probed)",
            ));
        }
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(writes)
            .custom_flags(libc::O_DIRECT)
            .open(path)
            .map_err(|e| {
                if e.raw_os_error() == Some(libc::EINVAL) {
                    err(path, NO_DIRECT)
                } else {
                    err(path, io_msg(&e))
                }
            })?;
        // A block device's size is where its end is; a file's is its length.
        let bytes = if block_device {
            use std::io::{Seek, SeekFrom};
            (&file)
                .seek(SeekFrom::End(0))
                .map_err(|e| err(path, format!("cannot find its size: {}", io_msg(&e))))?
        } else {
            meta.len()
        };
        if bytes == 0 {
            return Err(err(path, "is empty (0 bytes); nothing to probe"));
        }
        if bytes < MIN_BYTES {
            return Err(err(
                path,
                format!("holds {bytes} bytes; a probe needs at least {MIN_BYTES}"),
            ));
        }
        let mut dev = RealDevice {
            file,
            path: path.to_path_buf(),
            block_device,
            bytes,
            align: 512,
            writable: writes,
            buf: AlignedBuf::new(MAX_ALIGN.max(SIGNATURE_BYTES), MAX_ALIGN),
            epoch: Instant::now(),
            error: Arc::new(Mutex::new(None)),
        };
        dev.align = dev.find_alignment()?;
        Ok(dev)
    }

    /// The smallest direct-I/O size and alignment the device takes (512 or 4096).
    fn find_alignment(&mut self) -> Result<usize, DeviceError> {
        for align in [512usize, MAX_ALIGN] {
            let buf = self.buf.slice(align);
            match self.file.read_at(buf, 0) {
                Ok(_) => return Ok(align),
                Err(e) if e.raw_os_error() == Some(libc::EINVAL) => continue,
                Err(e) => return Err(err(&self.path, format!("cannot read: {}", io_msg(&e)))),
            }
        }
        Err(err(&self.path, NO_DIRECT))
    }

    /// Direct-I/O alignment in bytes.
    pub fn alignment(&self) -> usize {
        self.align
    }

    /// Size in bytes.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    pub fn is_block_device(&self) -> bool {
        self.block_device
    }

    /// For a regular file: whether it has holes (its allocated blocks hold fewer bytes
    /// than its length). A hole reads as zeros without touching the device, so it
    /// times nothing.
    pub fn is_sparse(&self) -> bool {
        if self.block_device {
            return false;
        }
        self.file
            .metadata()
            .map(|m| m.blocks() * 512 < m.len())
            .unwrap_or(false)
    }

    /// The shared slot where the first I/O error during probing is kept.
    pub fn error_slot(&self) -> Arc<Mutex<Option<String>>> {
        self.error.clone()
    }

    /// File-system and partition-table signatures found at the start of the device.
    pub fn signatures(&mut self) -> Result<Vec<&'static str>, DeviceError> {
        let n = (SIGNATURE_BYTES as u64).min(self.bytes / self.align as u64 * self.align as u64);
        let buf = self.buf.slice(n as usize);
        let got = self
            .file
            .read_at(buf, 0)
            .map_err(|e| err(&self.path, format!("cannot read: {}", io_msg(&e))))?;
        Ok(signatures_in(&buf[..got]))
    }

    /// Why writing to this device is refused, if it is: a file-system or
    /// partition-table signature, a mount of it or of one of its partitions, or
    /// another device holding it.
    pub fn write_refusal(&mut self) -> Result<Option<String>, DeviceError> {
        let mut why = Vec::new();
        let sigs = self.signatures()?;
        if !sigs.is_empty() {
            why.push(format!(
                "holds {} (found its signature); writing would destroy it",
                sigs.join(" and ")
            ));
        }
        why.extend(self.mounted()?);
        Ok((!why.is_empty()).then(|| why.join("; it ")))
    }

    /// A mount of this block device (or of a partition of it), or a device holding it.
    fn mounted(&self) -> Result<Option<String>, DeviceError> {
        if !self.block_device {
            return Ok(None);
        }
        let meta = self
            .file
            .metadata()
            .map_err(|e| err(&self.path, io_msg(&e)))?;
        let rdev = meta.rdev();
        let (maj, min) = (libc::major(rdev), libc::minor(rdev));
        let sys = PathBuf::from(format!("/sys/dev/block/{maj}:{min}"));
        let mut ours = vec![format!("{maj}:{min}")];
        if let Ok(dir) = std::fs::read_dir(&sys) {
            for e in dir.flatten() {
                if e.path().join("partition").exists() {
                    if let Ok(d) = std::fs::read_to_string(e.path().join("dev")) {
                        ours.push(d.trim().to_string());
                    }
                }
            }
        }
        if let Ok(mut holders) = std::fs::read_dir(sys.join("holders")) {
            if let Some(Ok(h)) = holders.next() {
                return Ok(Some(format!(
                    "is held by {} (LVM, RAID or device mapper); writing would corrupt it",
                    h.file_name().to_string_lossy()
                )));
            }
        }
        let info = std::fs::read_to_string("/proc/self/mountinfo").unwrap_or_default();
        for line in info.lines() {
            let f: Vec<&str> = line.split(' ').collect();
            if let (Some(dev), Some(mnt)) = (f.get(2), f.get(4)) {
                if ours.iter().any(|o| o == dev) {
                    return Ok(Some(format!(
                        "is mounted (device {dev} at {mnt}); writing would corrupt the file system"
                    )));
                }
            }
        }
        Ok(None)
    }

    /// The aligned byte range covering sectors `[lbn, lbn + blocks)`.
    fn span(&self, lbn: u64, blocks: u32) -> (u64, usize) {
        let a = self.align as u64;
        let start = lbn * 512 / a * a;
        let end = ((lbn + u64::from(blocks.max(1))) * 512).div_ceil(a) * a;
        (start, (end - start) as usize)
    }

    fn fail(&self, msg: String) {
        if let Ok(mut e) = self.error.lock() {
            e.get_or_insert(msg);
        }
    }

    fn now(&self) -> SimTime {
        SimTime(self.epoch.elapsed().as_nanos() as u64)
    }
}

/// The signatures in `b`, the first bytes of a device.
pub fn signatures_in(b: &[u8]) -> Vec<&'static str> {
    let at = |off: usize, magic: &[u8]| b.get(off..off + magic.len()) == Some(magic);
    let mut found = Vec::new();
    if at(1080, &[0x53, 0xEF]) {
        found.push("an ext2/3/4 file system");
    }
    if at(0, b"XFSB") {
        found.push("an XFS file system");
    }
    if at(0x10040, b"_BHRfS_M") {
        found.push("a btrfs file system");
    }
    if at(4086, b"SWAPSPACE2") || at(4086, b"SWAP-SPACE") {
        found.push("swap space");
    }
    if at(512 + 24, b"LVM2") || at(512, b"LABELONE") {
        found.push("an LVM physical volume");
    }
    if at(512, b"EFI PART") {
        found.push("a GPT partition table");
    }
    if at(510, &[0x55, 0xAA]) {
        found.push("a boot sector or MBR partition table");
    }
    found
}

impl ProbeDevice for RealDevice {
    /// Issues `req` now (a real device cannot wait for simulated time) and returns
    /// when it completed, on the device's real-time clock. A request the device
    /// cannot serve (an I/O error, or a write when writes are not allowed) is recorded
    /// in [`RealDevice::error_slot`] and completes at once.
    fn access(&mut self, _at: SimTime, req: Request) -> SimTime {
        let (off, len) = self.span(req.lbn, req.blocks);
        if len > MAX_REQUEST_BYTES || off + len as u64 > self.bytes {
            self.fail(format!(
                "request of {} sectors at LBN {} lies beyond the device or the {MAX_REQUEST_BYTES}-byte limit",
                req.blocks, req.lbn
            ));
            return self.now();
        }
        if req.write && !self.writable {
            self.fail("a write was asked for, but writes are not allowed".into());
            return self.now();
        }
        if len > self.buf.len {
            self.buf = AlignedBuf::new(len, MAX_ALIGN);
        }
        let (file, buf) = (&self.file, self.buf.slice(len));
        let r = if req.write {
            buf.fill(0);
            file.write_at(buf, off).map(|_| ())
        } else {
            file.read_at(buf, off).map(|_| ())
        };
        let done = self.now();
        if let Err(e) = r {
            self.fail(format!(
                "{}: {} at byte {off} failed: {e}",
                self.path.display(),
                if req.write { "write" } else { "read" }
            ));
        }
        done
    }

    fn capacity(&self) -> u64 {
        // Whole aligned blocks only, so no request reaches past the end.
        self.bytes / self.align as u64 * self.align as u64 / 512
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signatures_are_recognised() {
        let mut b = vec![0u8; SIGNATURE_BYTES];
        assert!(signatures_in(&b).is_empty());
        b[1080] = 0x53;
        b[1081] = 0xEF;
        assert_eq!(signatures_in(&b), ["an ext2/3/4 file system"]);
        let mut x = vec![0u8; SIGNATURE_BYTES];
        x[..4].copy_from_slice(b"XFSB");
        x[0x10040..0x10048].copy_from_slice(b"_BHRfS_M");
        assert_eq!(signatures_in(&x).len(), 2);
        // A short read (a small device) finds only what it holds.
        assert!(signatures_in(&x[..100]).contains(&"an XFS file system"));
    }

    #[test]
    fn aligned_buffers_are_aligned() {
        for align in [512usize, 4096] {
            let mut b = AlignedBuf::new(8192, align);
            assert_eq!(b.slice(4096).as_ptr() as usize % align, 0);
            assert_eq!(b.slice(4096).len(), 4096);
        }
    }
}

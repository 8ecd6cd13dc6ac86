//! Compressed trace files, read as they are decompressed: gzip (`.gz`; one member or
//! several, as `cat a.gz b.gz` and `bgzip` make them; zero padding after the last is
//! ignored, as `gzip -d` ignores it) and Zstandard (`.zst`; one frame or several,
//! skippable frames skipped, content checksums and declared sizes verified). Anything
//! else after the last member or frame, or a file that ends inside one, is an error:
//! never a shorter trace. Public traces mostly
//! come compressed (the MSR Cambridge and FIU volumes as `.csv.gz`, `.blkparse.gz`), and
//! a trace replays from its compressed file in bounded memory, with no copy on disk.
//!
//! The compression is told by the file's first bytes, never its name; what comes out is
//! then detected and read as any trace is. A file is decompressed on every pass over it
//! (detection's first bytes, the earliest time stamp, the replay). Archives and other compressors are refused by name
//! ([`refusal`]), so a user learns what to do rather than that the format is unknown.
//!
//! Limit: a Zstandard frame may ask for a window of at most 128 MiB (the decoder's
//! default bound, which `zstd -19` and `--ultra -22` stay within; `zstd --long=28` and
//! above exceed it), checked from the frame header before the window is allocated.

use ruzstd::decoding::errors::{FrameDecoderError, ReadFrameHeaderError};
use ruzstd::decoding::{BlockDecodingStrategy, FrameDecoder, DEFAULT_MAX_WINDOW_SIZE};
use std::io::{self, BufRead, BufReader, Read};

/// Largest window a Zstandard frame may ask for, bytes.
pub const MAX_ZSTD_WINDOW_BYTES: u64 = DEFAULT_MAX_WINDOW_SIZE;

/// Read buffer of the decompressed bytes.
const DECOMPRESSED_BUFFER_BYTES: usize = 256 * 1024;

const GZIP_MAGIC: &[u8] = &[0x1f, 0x8b];
const ZSTD_MAGIC: &[u8] = &[0x28, 0xb5, 0x2f, 0xfd];
/// Zstandard's skippable frames have magic numbers 0x184D2A50–0x184D2A5F (little-endian).
fn is_zstd_skippable(head: &[u8]) -> bool {
    matches!(head, [b0, 0x2a, 0x4d, 0x18, ..] if b0 & 0xf0 == 0x50)
}

/// The compressions read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Compression {
    Gzip,
    Zstd,
}

impl Compression {
    fn of(head: &[u8]) -> Option<Self> {
        if head.starts_with(GZIP_MAGIC) {
            Some(Compression::Gzip)
        } else if head.starts_with(ZSTD_MAGIC) || is_zstd_skippable(head) {
            Some(Compression::Zstd)
        } else {
            None
        }
    }

    fn name(self) -> &'static str {
        match self {
            Compression::Gzip => "gzip",
            Compression::Zstd => "zstd",
        }
    }
}

/// `raw` decompressed if its first bytes say it is compressed, else `raw` itself.
pub(crate) fn decompressed<'a>(
    mut raw: Box<dyn BufRead + Send + 'a>,
) -> io::Result<Box<dyn BufRead + Send + 'a>> {
    // A pipe may give its first bytes a few at a time: gather the magic's 4 first.
    if raw.fill_buf()?.len() < ZSTD_MAGIC.len() {
        let mut head = Vec::with_capacity(ZSTD_MAGIC.len());
        while head.len() < ZSTD_MAGIC.len() {
            let buf = raw.fill_buf()?;
            if buf.is_empty() {
                break;
            }
            let n = buf.len().min(ZSTD_MAGIC.len() - head.len());
            head.extend_from_slice(&buf[..n]);
            raw.consume(n);
        }
        raw = Box::new(io::Cursor::new(head).chain(raw));
    }
    let compression = Compression::of(raw.fill_buf()?);
    let buffered = |inner: Box<dyn Read + Send + 'a>, c: Compression| {
        Box::new(BufReader::with_capacity(
            DECOMPRESSED_BUFFER_BYTES,
            Named {
                inner,
                what: c.name(),
            },
        ))
    };
    Ok(match compression {
        None => raw,
        Some(c @ Compression::Gzip) => buffered(Box::new(GzipMembers::new(raw)), c),
        Some(c @ Compression::Zstd) => buffered(Box::new(ZstdFrames::new(raw)), c),
    })
}

/// Why a file's (decompressed) first bytes cannot be a trace, when they are an archive
/// or another compressor's stream: what the user should do instead.
pub(crate) fn refusal(head: &[u8]) -> Option<&'static str> {
    if Compression::of(head).is_some() {
        // Read through one decompression already.
        Some("is compressed twice (a .gz or .zst inside another): decompress it once first")
    } else if head.get(257..262) == Some(b"ustar") {
        Some("is a tar archive (a .tar, .tgz or .tar.zst holds several files): extract the trace file from it first")
    } else if head.starts_with(b"PK\x03\x04") {
        Some("is a zip archive: extract the trace file from it first")
    } else if head.starts_with(b"7z\xbc\xaf\x27\x1c") {
        Some("is a 7-Zip archive: extract the trace file from it first")
    } else if head.starts_with(b"\xfd7zXZ\x00") {
        Some("is xz-compressed, which spindle does not read: decompress it, or recompress it with gzip or zstd")
    } else if head.starts_with(b"BZh")
        && matches!(
            head.get(4..10),
            Some(b"\x31\x41\x59\x26\x53\x59" | b"\x17\x72\x45\x38\x50\x90")
        )
    {
        Some("is bzip2-compressed, which spindle does not read: decompress it, or recompress it with gzip or zstd")
    } else {
        None
    }
}

/// A decompressor whose errors say which compression failed ("gzip data: corrupt deflate
/// stream"), since the reader above only reports that the file could not be read.
struct Named<R> {
    inner: R,
    what: &'static str,
}

impl<R: Read> Read for Named<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.inner.read(buf).map_err(|e| {
            let detail = match e.kind() {
                io::ErrorKind::UnexpectedEof => TRUNCATED.to_string(),
                _ => e.to_string(),
            };
            io::Error::new(e.kind(), format!("{} data: {detail}", self.what))
        })
    }
}

/// What a compressed file that ends too early is told.
const TRUNCATED: &str = "the file ends inside compressed data (truncated?)";

/// Whether `source` holds nothing more, or only zero bytes up to its end (the padding
/// some tools leave after the last gzip member, which `gzip -d` ignores); reads them.
fn only_zeros_left(source: &mut impl BufRead) -> io::Result<bool> {
    loop {
        let buf = source.fill_buf()?;
        if buf.is_empty() {
            return Ok(true);
        }
        if buf.iter().any(|&b| b != 0) {
            return Ok(false);
        }
        let n = buf.len();
        source.consume(n);
    }
}

/// Every member of a gzip stream in turn (`cat a.gz b.gz`, `bgzip`, `pigz`). After the
/// last one, zero padding ends the stream; anything else is an error, never ignored.
struct GzipMembers<R: BufRead> {
    /// The member being read (`None` only while the next one is started).
    member: Option<flate2::bufread::GzDecoder<R>>,
    /// Whether the member is a later one that has given nothing yet: if it fails, the
    /// bytes after the previous member were not another member.
    unproven: bool,
}

impl<R: BufRead> GzipMembers<R> {
    fn new(source: R) -> Self {
        GzipMembers {
            member: Some(flate2::bufread::GzDecoder::new(source)),
            unproven: false,
        }
    }
}

impl<R: BufRead> Read for GzipMembers<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        while let Some(member) = self.member.as_mut() {
            let n = match member.read(buf) {
                Err(e) if self.unproven && e.kind() != io::ErrorKind::UnexpectedEof => {
                    return Err(io::Error::new(
                        io::ErrorKind::InvalidData,
                        format!("bytes after the last gzip member that are not another member ({e}): a damaged or appended file?"),
                    ))
                }
                r => r?,
            };
            if n > 0 {
                self.unproven = false;
                return Ok(n);
            }
            // The member ended (its CRC and length checked): padding, the end, or what
            // should be another member, whose header the decoder reads across buffers.
            let source = member.get_mut();
            match source.fill_buf()?.first().copied() {
                None => return Ok(0),
                Some(0) if only_zeros_left(source)? => return Ok(0),
                Some(first) if first == GZIP_MAGIC[0] => {
                    self.member = self
                        .member
                        .take()
                        .map(|m| flate2::bufread::GzDecoder::new(m.into_inner()));
                    self.unproven = true;
                }
                Some(_) => {
                    return Err(io::Error::new(
                        io::ErrorKind::InvalidData,
                        "bytes after the last gzip member that are not another member: a damaged or appended file?",
                    ))
                }
            }
        }
        Ok(0)
    }
}

/// The source as the decoder reads it: the byte after a frame's magic (its header
/// descriptor) is kept wherever a buffer ends, and so is a copy of a read error, so that
/// the decoder's own error (which wraps it in its words) can be told from a failure
/// underneath.
struct Tap<'r, R> {
    inner: &'r mut R,
    read: usize,
    descriptor: Option<u8>,
    error: Option<io::Error>,
}

impl<'r, R> Tap<'r, R> {
    fn new(inner: &'r mut R) -> Self {
        Tap {
            inner,
            read: 0,
            descriptor: None,
            error: None,
        }
    }
}

impl<R: Read> Read for Tap<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self
            .inner
            .read(buf)
            .inspect_err(|e| self.error = Some(io::Error::new(e.kind(), e.to_string())))?;
        let at = ZSTD_MAGIC.len();
        if (self.read..self.read + n).contains(&at) {
            self.descriptor = Some(buf[at - self.read]);
        }
        self.read += n;
        Ok(n)
    }
}

/// Every frame of a Zstandard stream in turn.
struct ZstdFrames<R> {
    source: R,
    frame: FrameDecoder,
    in_frame: bool,
    /// Whether the frame being read declares its decompressed size, and how many bytes
    /// of it were given so far.
    declares_size: bool,
    given: u64,
}

impl<R: BufRead> ZstdFrames<R> {
    fn new(source: R) -> Self {
        let mut frame = FrameDecoder::new();
        frame.set_max_window_size(MAX_ZSTD_WINDOW_BYTES);
        ZstdFrames {
            source,
            frame,
            in_frame: false,
            declares_size: false,
            given: 0,
        }
    }

    /// Starts the next frame, skipping skippable ones; `false` at the end of the input.
    fn next_frame(&mut self) -> io::Result<bool> {
        loop {
            if self.source.fill_buf()?.is_empty() {
                return Ok(false);
            }
            let mut tap = Tap::new(&mut self.source);
            let started = self.frame.reset(&mut tap);
            let underneath = tap.error.take();
            // A Frame_Content_Size field, or a single segment, means the size is declared.
            self.declares_size = tap.descriptor.is_some_and(|d| d >> 6 != 0 || d & 0x20 != 0);
            self.given = 0;
            match started {
                Ok(()) => return Ok(true),
                Err(FrameDecoderError::ReadFrameHeaderError(ReadFrameHeaderError::SkipFrame {
                    length,
                    ..
                })) => {
                    let skipped = io::copy(
                        &mut (&mut self.source).take(u64::from(length)),
                        &mut io::sink(),
                    )?;
                    if skipped < u64::from(length) {
                        return Err(io::ErrorKind::UnexpectedEof.into());
                    }
                }
                Err(FrameDecoderError::ReadFrameHeaderError(
                    ReadFrameHeaderError::BadMagicNumber(_),
                )) => {
                    return Err(io::Error::new(
                        io::ErrorKind::InvalidData,
                        "bytes after the last zstd frame that are not zstd data (a damaged or appended file?)",
                    ))
                }
                Err(e) => return Err(self.error(e, underneath)),
            }
        }
    }

    /// `e` as an I/O error: the source's own error if it failed underneath, a truncation
    /// if the input has ended, else what the decoder says (the window limit in words).
    fn error(&mut self, e: FrameDecoderError, underneath: Option<io::Error>) -> io::Error {
        // The source failed (a read error, an interrupt): that, not the decoder's words.
        if let Some(underneath) = underneath {
            if underneath.kind() != io::ErrorKind::UnexpectedEof {
                return underneath;
            }
        }
        if self.source.fill_buf().is_ok_and(|b| b.is_empty()) {
            return io::ErrorKind::UnexpectedEof.into();
        }
        let msg = match e {
            FrameDecoderError::WindowSizeTooBig { requested, max } => format!(
                "a frame asks for a {requested}-byte window, more than the {max} bytes spindle allows (made with zstd --long?)"
            ),
            e => format!("corrupt data ({e})"),
        };
        io::Error::new(io::ErrorKind::InvalidData, msg)
    }

    /// At a frame's end: its checksum and declared size, where it has them, must agree
    /// with what was decoded.
    fn check_frame(&self) -> io::Result<()> {
        let corrupt = |what: &str| io::Error::new(io::ErrorKind::InvalidData, what.to_string());
        if let (Some(stored), Some(computed)) = (
            self.frame.get_checksum_from_data(),
            self.frame.get_calculated_checksum(),
        ) {
            if stored != computed {
                return Err(corrupt(
                    "a frame's content checksum does not match its data (corrupt file)",
                ));
            }
        }
        if self.declares_size && self.given != self.frame.content_size() {
            return Err(corrupt(&format!(
                "a frame declares {} bytes but holds {} (corrupt file)",
                self.frame.content_size(),
                self.given
            )));
        }
        Ok(())
    }
}

impl<R: BufRead> Read for ZstdFrames<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        loop {
            if self.in_frame {
                while self.frame.can_collect() == 0 && !self.frame.is_finished() {
                    let mut tap = Tap::new(&mut self.source);
                    let decoded = self
                        .frame
                        .decode_blocks(&mut tap, BlockDecodingStrategy::UptoBlocks(1));
                    if let Err(e) = decoded {
                        let underneath = tap.error.take();
                        return Err(self.error(e, underneath));
                    }
                }
                let n = self.frame.read(buf)?;
                if n > 0 {
                    self.given += n as u64;
                    return Ok(n);
                }
                self.check_frame()?;
                self.in_frame = false;
            }
            if !self.next_frame()? {
                return Ok(0);
            }
            self.in_frame = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    const TEXT: &[u8] = b"0.0 0 100 8 1\n1.5 0 200 8 0\n";

    fn read_all(bytes: &[u8]) -> io::Result<Vec<u8>> {
        let mut out = Vec::new();
        decompressed(Box::new(bytes))?.read_to_end(&mut out)?;
        Ok(out)
    }

    fn gzip(data: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(data).expect("in memory");
        e.finish().expect("in memory")
    }

    fn zstd(data: &[u8]) -> Vec<u8> {
        ruzstd::encoding::compress_to_vec(data, ruzstd::encoding::CompressionLevel::Fastest)
    }

    #[test]
    fn plain_bytes_pass_through() {
        assert_eq!(read_all(TEXT).expect("plain"), TEXT);
    }

    #[test]
    fn gzip_members_and_zstd_frames_are_read_in_turn() {
        let gz = [gzip(TEXT), gzip(TEXT)].concat();
        assert_eq!(read_all(&gz).expect("gzip"), [TEXT, TEXT].concat());
        // A skippable frame (magic 0x184D2A5A, 3 bytes of payload) between two frames.
        let skippable = [&[0x5a, 0x2a, 0x4d, 0x18, 3, 0, 0, 0][..], b"abc"].concat();
        let zst = [zstd(TEXT), skippable, zstd(TEXT)].concat();
        assert_eq!(read_all(&zst).expect("zstd"), [TEXT, TEXT].concat());
    }

    #[test]
    fn damage_is_an_error_naming_the_compression() {
        let gz = gzip(TEXT);
        let truncated = read_all(&gz[..gz.len() - 6]).expect_err("truncated gzip");
        assert!(
            truncated.to_string().starts_with("gzip data:"),
            "{truncated}"
        );
        let mut zst = zstd(&TEXT.repeat(50));
        let last = zst.len() - 1;
        zst.truncate(last);
        let e = read_all(&zst).expect_err("truncated zstd");
        assert!(e.to_string().starts_with("zstd data: the file ends"), "{e}");
    }

    #[test]
    fn a_pipe_giving_one_byte_at_a_time_is_still_recognised() {
        for packed in [gzip(TEXT), zstd(TEXT)] {
            let trickle = BufReader::with_capacity(1, std::io::Cursor::new(packed));
            let mut out = Vec::new();
            decompressed(Box::new(trickle))
                .and_then(|mut r| r.read_to_end(&mut out))
                .expect("reads");
            assert_eq!(out, TEXT);
        }
    }

    #[test]
    fn what_follows_the_last_member_or_frame_is_checked() {
        // Zero padding after the last gzip member is ignored, as gzip -d does.
        let padded = [gzip(TEXT), vec![0; 100]].concat();
        assert_eq!(read_all(&padded).expect("padding"), TEXT);
        for (packed, what) in [(gzip(TEXT), "gzip"), (zstd(TEXT), "zstd")] {
            let junk = [packed, b"appended".to_vec()].concat();
            let e = read_all(&junk).expect_err("junk after the data");
            assert!(
                e.to_string().contains(&format!("after the last {what}")),
                "{e}"
            );
        }
        // A frame as `zstd --no-check FILE` writes TEXT: single segment, its 28 bytes
        // declared, one raw last block. Declaring one byte more is corrupt.
        let mut zst = [
            &[0x28, 0xb5, 0x2f, 0xfd, 0x20, 0x1c, 0xe1, 0x00, 0x00][..],
            TEXT,
        ]
        .concat();
        assert_eq!(read_all(&zst).expect("as written"), TEXT);
        zst[5] += 1;
        let e = read_all(&zst).expect_err("size mismatch");
        assert!(e.to_string().contains("declares"), "{e}");
    }

    #[test]
    fn a_member_or_frame_header_across_a_buffer_edge_is_read_as_any_other() {
        let through = |bytes: &[u8], capacity: usize| {
            let edged = BufReader::with_capacity(capacity, std::io::Cursor::new(bytes.to_vec()));
            let mut out = Vec::new();
            decompressed(Box::new(edged)).and_then(|mut r| r.read_to_end(&mut out).map(|_| out))
        };
        let first = gzip(TEXT);
        let two = [first.clone(), gzip(TEXT)].concat();
        let zst = zstd(TEXT);
        // As `zstd --no-check FILE` writes TEXT, but declaring one byte more (corrupt).
        let declared = [
            &[0x28, 0xb5, 0x2f, 0xfd, 0x20, 0x1d, 0xe1, 0x00, 0x00][..],
            TEXT,
        ]
        .concat();
        let zst_then_bad = [zst.clone(), declared].concat();
        // The buffer ends 0..=5 bytes into what follows the first member or frame.
        for extra in 0..=5 {
            let got = through(&two, first.len() + extra).expect("two members");
            assert_eq!(got, [TEXT, TEXT].concat(), "gzip, edge +{extra}");
            let e = through(&zst_then_bad, zst.len() + extra).expect_err("size mismatch");
            assert!(
                e.to_string().contains("declares 29 bytes"),
                "zstd, edge +{extra}: {e}"
            );
        }
    }

    #[test]
    fn a_read_error_underneath_is_passed_on_not_called_corrupt() {
        /// Gives `good` bytes, then fails.
        struct Failing(std::io::Cursor<Vec<u8>>);
        impl Read for Failing {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                match self.0.read(buf)? {
                    0 => Err(io::Error::other("device gone")),
                    n => Ok(n),
                }
            }
        }
        let zst = zstd(&TEXT.repeat(200));
        let cut = Failing(std::io::Cursor::new(zst[..zst.len() / 2].to_vec()));
        let mut out = Vec::new();
        let e = decompressed(Box::new(BufReader::with_capacity(64, cut)))
            .and_then(|mut r| r.read_to_end(&mut out))
            .expect_err("fails");
        assert_eq!(e.to_string(), "zstd data: device gone");
    }

    #[test]
    fn archives_and_other_compressors_are_named() {
        let mut tar = vec![0u8; 512];
        tar[257..262].copy_from_slice(b"ustar");
        assert!(refusal(&tar).is_some_and(|m| m.contains("tar archive")));
        assert!(refusal(b"\xfd7zXZ\x00rest").is_some_and(|m| m.contains("xz")));
        assert!(refusal(TEXT).is_none());
        assert!(refusal(&gzip(TEXT)).is_some_and(|m| m.contains("compressed twice")));
        let twice = gzip(&zstd(TEXT));
        let e = read_all(&twice).expect("decompressed once");
        assert!(refusal(&e).is_some());
    }
}

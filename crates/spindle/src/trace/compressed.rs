//! Compressed trace files, read as they are decompressed: gzip (`.gz`; one member or
//! several, as `cat a.gz b.gz` and `bgzip` make them) and Zstandard (`.zst`; one frame or
//! several, skippable frames skipped, content checksums verified). Public traces mostly
//! come compressed (the MSR Cambridge and FIU volumes as `.csv.gz`, `.blkparse.gz`), and
//! a trace replays from its compressed file in bounded memory, with no copy on disk.
//!
//! The compression is told by the file's first bytes, never its name; what comes out is
//! then detected and read as any trace is. A file read twice (detection, the earliest
//! time stamp) is decompressed twice. Archives and other compressors are refused by name
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
    let compression = Compression::of(raw.fill_buf()?);
    Ok(match compression {
        None => raw,
        Some(c @ Compression::Gzip) => Box::new(BufReader::with_capacity(
            DECOMPRESSED_BUFFER_BYTES,
            Named {
                inner: flate2::bufread::MultiGzDecoder::new(raw),
                what: c.name(),
            },
        )),
        Some(c @ Compression::Zstd) => Box::new(BufReader::with_capacity(
            DECOMPRESSED_BUFFER_BYTES,
            Named {
                inner: ZstdFrames::new(raw),
                what: c.name(),
            },
        )),
    })
}

/// Why a file's (decompressed) first bytes cannot be a trace, when they are an archive
/// or another compressor's stream: what the user should do instead.
pub(crate) fn refusal(head: &[u8]) -> Option<&'static str> {
    if head.get(257..262) == Some(b"ustar") {
        Some("is a tar archive (a .tar, .tgz or .tar.zst holds several files): extract the trace file from it first")
    } else if head.starts_with(b"PK\x03\x04") {
        Some("is a zip archive: extract the trace file from it first")
    } else if head.starts_with(b"7z\xbc\xaf\x27\x1c") {
        Some("is a 7-Zip archive: extract the trace file from it first")
    } else if head.starts_with(b"\xfd7zXZ\x00") {
        Some("is xz-compressed, which spindle does not read: decompress it, or recompress it with gzip or zstd")
    } else if head.starts_with(b"BZh") && head.get(4..10) == Some(b"\x31\x41\x59\x26\x53\x59") {
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
            let kind = match e.kind() {
                io::ErrorKind::UnexpectedEof => io::ErrorKind::UnexpectedEof,
                _ => io::ErrorKind::InvalidData,
            };
            let detail = match e.kind() {
                io::ErrorKind::UnexpectedEof => {
                    "the file ends inside compressed data (truncated?)".to_string()
                }
                _ => e.to_string(),
            };
            io::Error::new(kind, format!("{} data: {detail}", self.what))
        })
    }
}

/// Every frame of a Zstandard stream in turn.
struct ZstdFrames<R> {
    source: R,
    frame: FrameDecoder,
    in_frame: bool,
}

impl<R: BufRead> ZstdFrames<R> {
    fn new(source: R) -> Self {
        let mut frame = FrameDecoder::new();
        frame.set_max_window_size(MAX_ZSTD_WINDOW_BYTES);
        ZstdFrames {
            source,
            frame,
            in_frame: false,
        }
    }

    /// Starts the next frame, skipping skippable ones; `false` at the end of the input.
    fn next_frame(&mut self) -> io::Result<bool> {
        loop {
            if self.source.fill_buf()?.is_empty() {
                return Ok(false);
            }
            match self.frame.reset(&mut self.source) {
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
                Err(e) => return Err(zstd_error(e)),
            }
        }
    }
}

fn zstd_error(e: FrameDecoderError) -> io::Error {
    match e {
        FrameDecoderError::WindowSizeTooBig { requested, max } => io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "a frame asks for a {requested}-byte window, more than the {max} bytes spindle allows (made with zstd --long?)"
            ),
        ),
        e => io::Error::new(io::ErrorKind::InvalidData, e.to_string()),
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
                    self.frame
                        .decode_blocks(&mut self.source, BlockDecodingStrategy::UptoBlocks(1))
                        .map_err(zstd_error)?;
                }
                let n = self.frame.read(buf)?;
                if n > 0 {
                    return Ok(n);
                }
                // The frame is decoded and drained: its checksum, if it has one, must agree.
                if let (Some(stored), Some(computed)) = (
                    self.frame.get_checksum_from_data(),
                    self.frame.get_calculated_checksum(),
                ) {
                    if stored != computed {
                        return Err(io::Error::new(
                            io::ErrorKind::InvalidData,
                            "a frame's content checksum does not match its data (corrupt file)",
                        ));
                    }
                }
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
        assert!(e.to_string().starts_with("zstd data:"), "{e}");
    }

    #[test]
    fn archives_and_other_compressors_are_named() {
        let mut tar = vec![0u8; 512];
        tar[257..262].copy_from_slice(b"ustar");
        assert!(refusal(&tar).is_some_and(|m| m.contains("tar archive")));
        assert!(refusal(b"\xfd7zXZ\x00rest").is_some_and(|m| m.contains("xz")));
        assert!(refusal(TEXT).is_none());
    }
}

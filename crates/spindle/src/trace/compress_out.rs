//! Compressed output files, chosen by the name: `.gz` is written as gzip (one member,
//! level 1, the fast end, since a request log of 100 M rows is ~14 GB of text) and
//! `.zst` as Zstandard (frames of 4 MiB of input each, ruzstd's fastest level, which is
//! about zstd's level 1). Anything else is written as it is. Both come out readable by
//! `gzip -d`/`zstd -d` and by spindle itself ([`super::compressed`] reads several
//! frames). Compression runs on a thread of its own, beside the simulation, handed
//! chunks through a bounded channel, so memory stays bounded however long the output.
//!
//! A compressed output is ended by [`CompressedWriter::finish`], which writes the last
//! frame or the gzip trailer and reports any error in doing so. Dropped unfinished (a
//! run that failed), it ends the same way, errors unreported, so the file holds what
//! was written, as a plain one would.

use flate2::write::GzEncoder;
use ruzstd::encoding::{compress, CompressionLevel};
use std::io::{self, Write};
use std::path::Path;
use std::sync::mpsc::{sync_channel, SyncSender};
use std::thread::JoinHandle;

/// Input bytes compressed into each Zstandard frame.
pub const ZSTD_FRAME_INPUT_BYTES: usize = 4 << 20;

/// Bytes handed to the compressing thread at a time, and how many such chunks may wait
/// for it: what a writer holds beside its encoder.
const CHUNK_BYTES: usize = 1 << 20;
const CHUNKS_WAITING: usize = 4;

/// How an output file is compressed, told by its name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutputCompression {
    Plain,
    Gzip,
    Zstd,
}

impl OutputCompression {
    /// `.gz` gzip, `.zst` Zstandard, anything else plain (standard output, `-`, too).
    pub fn of(path: &Path) -> OutputCompression {
        match path.extension().and_then(|e| e.to_str()) {
            Some("gz") => OutputCompression::Gzip,
            Some("zst") => OutputCompression::Zstd,
            _ => OutputCompression::Plain,
        }
    }
}

/// A writer that compresses what it is given as [`OutputCompression`] says.
pub struct CompressedWriter<W: Write + Send + 'static> {
    inner: Inner<W>,
}

enum Inner<W: Write + Send + 'static> {
    Plain(W),
    /// Given back by [`CompressedWriter::finish`].
    Ended,
    Offloaded {
        /// Bytes not yet handed over (at most a chunk).
        pending: Vec<u8>,
        /// Taken when the output ends (finished or dropped).
        to_worker: Option<SyncSender<Vec<u8>>>,
        /// Compresses the chunks into the writer and gives it back once they end
        /// (taken when it stopped on an error, which was then reported).
        worker: Option<JoinHandle<io::Result<W>>>,
    },
}

impl<W: Write + Send + 'static> CompressedWriter<W> {
    pub fn new(out: W, how: OutputCompression) -> io::Result<CompressedWriter<W>> {
        if how == OutputCompression::Plain {
            return Ok(CompressedWriter {
                inner: Inner::Plain(out),
            });
        }
        let (to_worker, chunks) = sync_channel::<Vec<u8>>(CHUNKS_WAITING);
        let worker =
            std::thread::Builder::new()
                .name("compress".into())
                .spawn(move || match how {
                    OutputCompression::Gzip => {
                        let mut g = GzEncoder::new(out, flate2::Compression::fast());
                        for chunk in chunks {
                            g.write_all(&chunk)?;
                        }
                        g.finish()
                    }
                    _ => {
                        let mut out = out;
                        let mut frame_input = Vec::with_capacity(ZSTD_FRAME_INPUT_BYTES);
                        for chunk in chunks {
                            frame_input.extend_from_slice(&chunk);
                            if frame_input.len() >= ZSTD_FRAME_INPUT_BYTES {
                                zstd_frame(&frame_input, &mut out)?;
                                frame_input.clear();
                            }
                        }
                        zstd_frame(&frame_input, &mut out)?;
                        Ok(out)
                    }
                })?;
        Ok(CompressedWriter {
            inner: Inner::Offloaded {
                pending: Vec::with_capacity(CHUNK_BYTES),
                to_worker: Some(to_worker),
                worker: Some(worker),
            },
        })
    }

    /// Writes what is still held (the last frame, the gzip trailer), flushes, and gives
    /// back the writer underneath.
    pub fn finish(mut self) -> io::Result<W> {
        // Ended here, so that dropping `self` afterwards has nothing left to end.
        let mut out = match std::mem::replace(&mut self.inner, Inner::Ended) {
            Inner::Plain(w) => w,
            Inner::Offloaded {
                mut pending,
                mut to_worker,
                worker,
            } => {
                end(&mut pending, &mut to_worker);
                joined(worker)?
            }
            Inner::Ended => return Err(io::Error::other("the output has ended")),
        };
        out.flush()?;
        Ok(out)
    }
}

/// Hands the last bytes to the worker and closes its channel, which ends its output.
fn end(pending: &mut Vec<u8>, to_worker: &mut Option<SyncSender<Vec<u8>>>) {
    if let Some(tx) = to_worker.take() {
        // A send fails only when the worker stopped on an error, which joining it
        // reports.
        let _ = tx.send(std::mem::take(pending));
    }
}

impl<W: Write + Send + 'static> Drop for CompressedWriter<W> {
    /// Ends the output as [`CompressedWriter::finish`] does, unreported: what was
    /// written is kept whole, and no thread outlives the writer.
    fn drop(&mut self) {
        if let Inner::Offloaded {
            pending,
            to_worker,
            worker,
        } = &mut self.inner
        {
            end(pending, to_worker);
            let _ = joined(worker.take());
        }
    }
}

/// The worker's result (its panic as an error); an error if it was joined before.
fn joined<W>(worker: Option<JoinHandle<io::Result<W>>>) -> io::Result<W> {
    match worker {
        Some(w) => w
            .join()
            .unwrap_or_else(|_| Err(io::Error::other("the compressing thread panicked"))),
        None => Err(io::Error::other("the output's compression failed earlier")),
    }
}

/// Hands `chunk` to the worker; if it has stopped, its error.
fn hand_over<W>(
    to_worker: &Option<SyncSender<Vec<u8>>>,
    worker: &mut Option<JoinHandle<io::Result<W>>>,
    chunk: Vec<u8>,
) -> io::Result<()> {
    let Some(tx) = to_worker else {
        return Err(io::Error::other("the output has ended"));
    };
    match tx.send(chunk) {
        Ok(()) => Ok(()),
        // It ends only on an error while chunks still come: that error.
        Err(_) => joined(worker.take())
            .and_then(|_| Err(io::Error::other("the compressing thread ended early"))),
    }
}

/// Compresses `input` as one Zstandard frame into `out`.
fn zstd_frame<W: Write>(input: &[u8], out: &mut W) -> io::Result<()> {
    let mut frame = Vec::with_capacity(input.len() / 2 + 64);
    compress(input, &mut frame, CompressionLevel::Fastest);
    out.write_all(&frame)
}

impl<W: Write + Send + 'static> Write for CompressedWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match &mut self.inner {
            Inner::Plain(w) => w.write(buf),
            Inner::Ended => Err(io::Error::other("the output has ended")),
            Inner::Offloaded {
                pending,
                to_worker,
                worker,
            } => {
                let n = buf.len().min(CHUNK_BYTES - pending.len());
                pending.extend_from_slice(&buf[..n]);
                if pending.len() == CHUNK_BYTES {
                    let full = std::mem::replace(pending, Vec::with_capacity(CHUNK_BYTES));
                    hand_over(to_worker, worker, full)?;
                }
                Ok(n)
            }
        }
    }

    /// Hands what has been written so far to the compressing thread, without waiting for
    /// it or flushing the file below (the last frame or trailer, and the file's flush,
    /// come with [`CompressedWriter::finish`]).
    fn flush(&mut self) -> io::Result<()> {
        match &mut self.inner {
            Inner::Plain(w) => w.flush(),
            Inner::Ended => Ok(()),
            Inner::Offloaded {
                pending,
                to_worker,
                worker,
            } => {
                if pending.is_empty() {
                    return Ok(());
                }
                let some = std::mem::replace(pending, Vec::with_capacity(CHUNK_BYTES));
                hand_over(to_worker, worker, some)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::compressed::decompressed;
    use std::io::Read;

    fn text(n: usize) -> Vec<u8> {
        (0..n)
            .flat_map(|i| format!("{i}.{:06},0,{},8,R\n", i * 7 % 1_000_000, i * 8).into_bytes())
            .collect()
    }

    fn written(how: OutputCompression, data: &[u8], piece: usize) -> Vec<u8> {
        let mut w = CompressedWriter::new(Vec::new(), how).unwrap();
        for chunk in data.chunks(piece.max(1)) {
            w.write_all(chunk).unwrap();
        }
        w.finish().unwrap()
    }

    /// Whatever the pieces it is written in, each kind reads back as the bytes given
    /// through the readers spindle's traces go through; frames split where they fill.
    #[test]
    fn each_kind_reads_back_as_written() {
        let data = text(400_000);
        assert!(data.len() > 2 * ZSTD_FRAME_INPUT_BYTES);
        for how in [
            OutputCompression::Plain,
            OutputCompression::Gzip,
            OutputCompression::Zstd,
        ] {
            for piece in [1 << 16, 1_000_003] {
                let bytes = written(how, &data, piece);
                if how != OutputCompression::Plain {
                    assert!(bytes.len() < data.len() / 2, "{how:?}: {}", bytes.len());
                }
                let mut back = Vec::new();
                decompressed(Box::new(io::Cursor::new(bytes)))
                    .unwrap()
                    .read_to_end(&mut back)
                    .unwrap();
                assert!(back == data, "{how:?} in pieces of {piece}");
            }
        }
        // Empty: an empty file, an empty gzip member, an empty frame.
        for how in [
            OutputCompression::Plain,
            OutputCompression::Gzip,
            OutputCompression::Zstd,
        ] {
            let bytes = written(how, &[], 1);
            let mut back = Vec::new();
            if !bytes.is_empty() {
                decompressed(Box::new(io::Cursor::new(bytes)))
                    .unwrap()
                    .read_to_end(&mut back)
                    .unwrap();
            }
            assert!(back.is_empty(), "{how:?}");
        }
    }

    /// A writer below that fails after a few bytes.
    struct Full(usize);

    impl Write for Full {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            if self.0 == 0 {
                return Err(io::Error::other("no space left"));
            }
            let n = buf.len().min(self.0);
            self.0 -= n;
            Ok(n)
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    /// The error below is the one reported, from a write or from finish, whichever
    /// meets it; never success with a short file.
    #[test]
    fn an_error_below_is_reported() {
        let data = text(800_000);
        for how in [
            OutputCompression::Plain,
            OutputCompression::Gzip,
            OutputCompression::Zstd,
        ] {
            for room in [0, 1_000, 3_000_000] {
                let mut w = CompressedWriter::new(Full(room), how).unwrap();
                let e = w
                    .write_all(&data)
                    .and_then(|()| w.finish().map(|_| ()))
                    .unwrap_err();
                assert!(
                    e.to_string().contains("no space left"),
                    "{how:?} {room}: {e}"
                );
            }
        }
    }

    /// A file shared with the writer, to read after the writer is gone.
    #[derive(Clone, Default)]
    struct Shared(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

    impl Write for Shared {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    /// Dropped unfinished (a run that failed), a compressed output still holds all that
    /// was written, whole, as a plain file would.
    #[test]
    fn dropped_unfinished_it_keeps_what_was_written() {
        let data = text(150_000);
        for how in [OutputCompression::Gzip, OutputCompression::Zstd] {
            let file = Shared::default();
            let mut w = CompressedWriter::new(file.clone(), how).unwrap();
            w.write_all(&data).unwrap();
            drop(w);
            let bytes = file.0.lock().unwrap().clone();
            let mut back = Vec::new();
            decompressed(Box::new(io::Cursor::new(bytes)))
                .unwrap()
                .read_to_end(&mut back)
                .unwrap();
            assert!(back == data, "{how:?}: {} of {}", back.len(), data.len());
        }
    }

    #[test]
    fn the_name_says_how() {
        for (name, how) in [
            ("r.csv.gz", OutputCompression::Gzip),
            ("r.csv.zst", OutputCompression::Zstd),
            ("r.csv", OutputCompression::Plain),
            ("gz", OutputCompression::Plain),
            ("-", OutputCompression::Plain),
            ("r.GZ", OutputCompression::Plain),
        ] {
            assert_eq!(OutputCompression::of(Path::new(name)), how, "{name}");
        }
    }
}

//! The stream plumbing the message adapters share: the output sink (armored or not), a copy
//! that wipes its buffer, and `Read` over `BufRead`.

use std::io::{self, Write};

use crate::armor::ArmorWriter;
use crate::error::Result;

/// `Read::read` for a reader whose `BufRead` side is the real one: copies what `fill_buf`
/// has (reading more only when it is empty) and consumes it.
///
/// # Errors
/// Those of `fill_buf`.
pub(crate) fn read_via_fill_buf(r: &mut impl std::io::BufRead, out: &mut [u8]) -> std::io::Result<usize> {
    if out.is_empty() {
        return Ok(0);
    }
    let available = r.fill_buf()?;
    let n = available.len().min(out.len());
    if let (Some(dst), Some(src)) = (out.get_mut(..n), available.get(..n)) {
        dst.copy_from_slice(src);
    }
    r.consume(n);
    Ok(n)
}

/// The output, armored or not.
#[derive(Debug)]
pub(super) enum Sink<W: Write> {
    Binary(W),
    Armored(ArmorWriter<W>),
}

impl<W: Write> Sink<W> {
    /// Ends the armor, if any, flushes and returns the writer.
    pub(super) fn finish(self) -> Result<W> {
        match self {
            Self::Binary(mut w) => {
                w.flush()?;
                Ok(w)
            }
            Self::Armored(a) => a.finish(),
        }
    }
}

impl<W: Write> Write for Sink<W> {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        match self {
            Self::Binary(w) => w.write(data),
            Self::Armored(a) => a.write(data),
        }
    }

    fn write_vectored(&mut self, bufs: &[io::IoSlice<'_>]) -> io::Result<usize> {
        match self {
            Self::Binary(w) => w.write_vectored(bufs),
            Self::Armored(a) => a.write_vectored(bufs),
        }
    }

    fn write_all(&mut self, data: &[u8]) -> io::Result<()> {
        match self {
            Self::Binary(w) => w.write_all(data),
            Self::Armored(a) => a.write_all(data),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Self::Binary(w) => w.flush(),
            Self::Armored(a) => a.flush(),
        }
    }
}

/// `std::io::copy` through a buffer that is wiped after each write: the buffer is the next
/// read's destination, and `src` must not find the plaintext it was given before there (nor
/// the stack keep it afterwards).
///
/// # Errors
/// Those of `src` (but `Interrupted`, which is retried) and `dst`; `InvalidData` if `src`
/// reports more octets than it was given (what it wrote cannot be known).
pub(super) fn copy_wiped(
    src: &mut (impl std::io::Read + ?Sized),
    dst: &mut impl std::io::Write,
) -> std::io::Result<u64> {
    // Large enough that a big input is not read 8 KiB per system call, small enough to wipe
    // after each write.
    const BUF_LEN: usize = 64 * 1024;
    let mut buf = crate::crypto::secret::SecretVec::zeroed(BUF_LEN);
    let mut total = 0u64;
    loop {
        let n = match src.read(&mut buf) {
            Ok(0) => return Ok(total),
            Ok(n) if n > BUF_LEN => {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    "a read reported more octets than its buffer holds",
                ));
            }
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        let written = dst.write_all(buf.get(..n).unwrap_or_default());
        buf.wipe_prefix(n);
        written?;
        total = total.saturating_add(u64::try_from(n).unwrap_or(u64::MAX));
    }
}

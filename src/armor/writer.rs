//! The armor encoder ([RFC 9580 §6.2](https://www.rfc-editor.org/rfc/rfc9580#section-6.2)).

use std::fmt;
use std::io::{self, Write};

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;

use super::{ArmorKind, DASHES};
use crate::error::{Error, Result};

/// Input octets per armored line: 48 octets encode to 64 characters.
const LINE_INPUT_LEN: usize = 48;
/// Base64 characters per armored line (RFC 9580 §6.3: at most 76; we use 64 like most
/// implementations).
const LINE_LEN: usize = 64;
/// Encoded lines (with their LF) collected before one write to the sink.
const OUT_CAP: usize = 128 * (LINE_LEN + 1);
/// Lines encoded per call to the base64 encoder (8 KiB of output on the stack).
const BATCH_LINES: usize = 128;

/// Writes binary OpenPGP data as an ASCII-armored block
/// ([RFC 9580 §6](https://www.rfc-editor.org/rfc/rfc9580#section-6)).
///
/// The output is the BEGIN line, a blank line (no armor headers), base64 in lines of 64
/// characters, and the END line, all ending in LF. No CRC24 checksum line is written
/// ([RFC 9580 §6.1](https://www.rfc-editor.org/rfc/rfc9580#section-6.1)).
///
/// [`finish`](Self::finish) must be called to write the last line and the END line. Dropping the
/// writer without it does no I/O and leaves an incomplete block. Any error poisons the writer:
/// later calls fail.
///
/// ```
/// use std::io::Write;
/// use sixpgp::{ArmorKind, ArmorWriter};
///
/// let mut w = ArmorWriter::new(Vec::new(), ArmorKind::Signature)?;
/// w.write_all(b"\xc2\x00")?;
/// let out = w.finish()?;
/// assert_eq!(out, b"-----BEGIN PGP SIGNATURE-----\n\nwgA=\n-----END PGP SIGNATURE-----\n");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[must_use = "call `finish` to complete the armored block"]
pub struct ArmorWriter<W: Write> {
    inner: W,
    kind: ArmorKind,
    /// Input octets of the current, not yet complete line.
    partial: [u8; LINE_INPUT_LEN],
    partial_len: usize,
    /// Encoded lines not yet written to `inner`; never longer than `OUT_CAP`.
    out: Vec<u8>,
    poisoned: bool,
}

impl<W: Write> ArmorWriter<W> {
    /// Starts an armored block of `kind`, writing its BEGIN line and the blank line that ends the
    /// (empty) armor header section to `inner` at once.
    ///
    /// # Errors
    ///
    /// [`Error::Io`] if `inner` fails.
    pub fn new(mut inner: W, kind: ArmorKind) -> Result<Self> {
        let mut begin = Vec::with_capacity(64);
        write_marker(&mut begin, "BEGIN", kind);
        begin.push(b'\n');
        inner.write_all(&begin)?;
        Ok(Self {
            inner,
            kind,
            partial: [0; LINE_INPUT_LEN],
            partial_len: 0,
            out: Vec::with_capacity(OUT_CAP),
            poisoned: false,
        })
    }

    /// Writes the last base64 line (with padding), the END line, flushes the sink and returns it.
    ///
    /// # Errors
    ///
    /// [`Error::Io`] if the sink fails, or if the writer was poisoned by an earlier error.
    pub fn finish(mut self) -> Result<W> {
        self.check_poisoned().map_err(Error::from_io)?;
        self.finish_inner().map_err(Error::from_io)?;
        Ok(self.inner)
    }

    fn finish_inner(&mut self) -> io::Result<()> {
        // The last line: whatever is left, padded (RFC 4648 §4 as required by RFC 9580 §6.3).
        let rest = self.partial.get(..self.partial_len).unwrap_or_default();
        if !rest.is_empty() {
            let mut line = [0_u8; LINE_LEN];
            let n = STANDARD
                .encode_slice(rest, &mut line)
                .map_err(|_| io::Error::other("armor: line buffer too small"))?;
            self.out.extend_from_slice(line.get(..n).unwrap_or_default());
            self.out.push(b'\n');
            self.partial_len = 0;
        }
        write_marker(&mut self.out, "END", self.kind);
        self.inner.write_all(&self.out)?;
        self.out.clear();
        self.inner.flush()
    }

    fn check_poisoned(&self) -> io::Result<()> {
        if self.poisoned {
            Err(io::Error::from(Error::InvalidArgument("armor writer used after an error")))
        } else {
            Ok(())
        }
    }

    /// Encodes one complete line of input into `out`, writing `out` to the sink first if full.
    fn push_line(&mut self, input: &[u8; LINE_INPUT_LEN]) -> io::Result<()> {
        if self.out.len() > OUT_CAP.saturating_sub(LINE_LEN + 1) {
            self.inner.write_all(&self.out)?;
            self.out.clear();
        }
        let mut line = [0_u8; LINE_LEN];
        let n = STANDARD
            .encode_slice(input, &mut line)
            .map_err(|_| io::Error::other("armor: line buffer too small"))?;
        debug_assert_eq!(n, LINE_LEN);
        self.out.extend_from_slice(&line);
        self.out.push(b'\n');
        Ok(())
    }

    /// Encodes up to [`BATCH_LINES`] complete lines in one call and appends them to `out`,
    /// one newline after each.
    fn push_lines(&mut self, lines: &[[u8; LINE_INPUT_LEN]]) -> io::Result<()> {
        let encoded_len = lines.len().saturating_mul(LINE_LEN);
        if self.out.len().saturating_add(encoded_len).saturating_add(lines.len()) > OUT_CAP {
            self.inner.write_all(&self.out)?;
            self.out.clear();
        }
        let mut encoded = [0_u8; BATCH_LINES * LINE_LEN];
        let dst = encoded.get_mut(..encoded_len).ok_or_else(|| io::Error::other("armor: batch too long"))?;
        let n = STANDARD
            .encode_slice(lines.as_flattened(), dst)
            .map_err(|_| io::Error::other("armor: line buffer too small"))?;
        for line in encoded.get(..n).unwrap_or_default().chunks(LINE_LEN) {
            self.out.extend_from_slice(line);
            self.out.push(b'\n');
        }
        Ok(())
    }

    fn write_inner(&mut self, mut data: &[u8]) -> io::Result<()> {
        // Complete the pending partial line first.
        if self.partial_len > 0 {
            let free = self.partial.get_mut(self.partial_len..).unwrap_or_default();
            let take = free.len().min(data.len());
            let (head, tail) = data.split_at(take);
            if let Some(dst) = free.get_mut(..take) {
                dst.copy_from_slice(head);
            }
            data = tail;
            self.partial_len = self.partial_len.saturating_add(take);
            if self.partial_len < LINE_INPUT_LEN {
                return Ok(());
            }
            let line = self.partial;
            self.partial_len = 0;
            self.push_line(&line)?;
        }
        // Whole lines straight from the input, encoded many lines per call (the base64
        // encoder's fast loop only runs on long inputs; line by line it spent most of its time
        // in its scalar tail).
        let (lines, rest) = data.as_chunks::<LINE_INPUT_LEN>();
        for group in lines.chunks(BATCH_LINES) {
            self.push_lines(group)?;
        }
        if let Some(dst) = self.partial.get_mut(..rest.len()) {
            dst.copy_from_slice(rest);
            self.partial_len = rest.len();
        }
        Ok(())
    }
}

/// Appends `-----BEGIN <label>-----\n` (plus the blank line for BEGIN) or `-----END <label>-----\n`.
fn write_marker(out: &mut Vec<u8>, which: &str, kind: ArmorKind) {
    out.extend_from_slice(DASHES);
    out.extend_from_slice(which.as_bytes());
    out.push(b' ');
    out.extend_from_slice(kind.label().as_bytes());
    out.extend_from_slice(DASHES);
    out.push(b'\n');
}

impl<W: Write> Write for ArmorWriter<W> {
    /// Accepts all of `buf`; complete lines are written to the sink in blocks.
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.check_poisoned()?;
        let result = self.write_inner(buf);
        if result.is_err() {
            self.poisoned = true;
        }
        result.map(|()| buf.len())
    }

    /// Writes every complete line to the sink and flushes it. The last, incomplete line stays
    /// buffered until [`finish`](ArmorWriter::finish).
    fn flush(&mut self) -> io::Result<()> {
        self.check_poisoned()?;
        let result = self.inner.write_all(&self.out).and_then(|()| self.inner.flush());
        match result {
            Ok(()) => {
                self.out.clear();
                Ok(())
            }
            Err(e) => {
                self.poisoned = true;
                Err(e)
            }
        }
    }
}

impl<W: Write> fmt::Debug for ArmorWriter<W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ArmorWriter")
            .field("kind", &self.kind)
            .field("buffered", &self.out.len().saturating_add(self.partial_len))
            .field("poisoned", &self.poisoned)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn armor(data: &[u8], kind: ArmorKind) -> String {
        let mut w = ArmorWriter::new(Vec::new(), kind).unwrap();
        w.write_all(data).unwrap();
        String::from_utf8(w.finish().unwrap()).unwrap()
    }

    #[test]
    fn empty_input_gives_a_block() {
        assert_eq!(
            armor(b"", ArmorKind::Message),
            "-----BEGIN PGP MESSAGE-----\n\n-----END PGP MESSAGE-----\n"
        );
    }

    #[test]
    fn lines_are_64_characters() {
        let data: Vec<u8> = (0..=255).cycle().take(1000).collect();
        let text = armor(&data, ArmorKind::PublicKey);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "-----BEGIN PGP PUBLIC KEY BLOCK-----");
        assert_eq!(lines[1], "");
        let body = &lines[2..lines.len() - 1];
        for line in &body[..body.len() - 1] {
            assert_eq!(line.len(), 64);
        }
        assert_eq!(body.concat(), STANDARD.encode(&data));
        assert_eq!(lines[lines.len() - 1], "-----END PGP PUBLIC KEY BLOCK-----");
    }

    #[test]
    fn write_splits_do_not_matter() {
        let data: Vec<u8> = (0..5000_u32).map(|i| (i * 7 % 251) as u8).collect();
        let whole = armor(&data, ArmorKind::Message);
        for split in [1, 2, 3, 47, 48, 49, 100, 4095] {
            let mut w = ArmorWriter::new(Vec::new(), ArmorKind::Message).unwrap();
            for chunk in data.chunks(split) {
                w.write_all(chunk).unwrap();
            }
            assert_eq!(String::from_utf8(w.finish().unwrap()).unwrap(), whole);
        }
    }

    struct Failing;
    impl Write for Failing {
        fn write(&mut self, _: &[u8]) -> io::Result<usize> {
            Err(io::Error::new(io::ErrorKind::BrokenPipe, "no"))
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn errors_poison() {
        assert!(ArmorWriter::new(Failing, ArmorKind::Message).is_err());
        // A sink that fails after the BEGIN line.
        struct After(usize);
        impl Write for After {
            fn write(&mut self, b: &[u8]) -> io::Result<usize> {
                if self.0 == 0 {
                    return Err(io::Error::new(io::ErrorKind::BrokenPipe, "no"));
                }
                self.0 -= 1;
                Ok(b.len())
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        let mut w = ArmorWriter::new(After(1), ArmorKind::Message).unwrap();
        w.write_all(&[0; 100]).unwrap();
        assert_eq!(w.flush().unwrap_err().kind(), io::ErrorKind::BrokenPipe);
        assert!(w.write(&[0]).is_err());
        assert!(matches!(w.finish(), Err(Error::InvalidArgument(_))));
    }
}

//! Copying data streams: one wiped buffer, an optional UTF-8 check for `--as=text`.

use std::fmt;
use std::io::{self, BufRead, BufReader, Read, Write};

use zeroize::Zeroizing;

/// Size of the copy buffer and of the buffered readers and writers around the library's
/// streams: large enough that whole SEIPD chunks move in one call.
pub(crate) const BUF_LEN: usize = 256 * 1024;

/// Size of the buffer around a source or sink that the library reads or writes in large
/// blocks (whole packet parts of 64 KiB and more): small enough that those blocks go straight
/// through `BufReader`/`BufWriter`, which copy only what is shorter than their capacity.
pub(crate) const SMALL_BUF_LEN: usize = 16 * 1024;

/// Size of the buffer around an armored source: the armor reader takes what the buffer holds
/// (it must not read past the END line), so each system call brings this much.
pub(crate) const ARMOR_BUF_LEN: usize = 256 * 1024;

/// `source` buffered for the library's message readers: [`ARMOR_BUF_LEN`] if it starts, after
/// whitespace, with a `-` as armor does, otherwise [`SMALL_BUF_LEN`] (binary input is read in
/// large blocks that pass a small buffer without a copy).
pub(crate) fn message_source<R: Read>(source: R) -> io::Result<BufReader<BufReader<R>>> {
    let mut small = BufReader::with_capacity(SMALL_BUF_LEN, source);
    let first = loop {
        match small.fill_buf() {
            // The whitespace the armor reader skips before the BEGIN line.
            Ok(buf) => break buf.iter().find(|b| !matches!(b, b' ' | b'\t' | b'\r' | b'\n')).copied(),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    };
    let armored = first == Some(b'-');
    // Once `small` is empty, reads of its capacity or more go straight to `source`.
    Ok(BufReader::with_capacity(if armored { ARMOR_BUF_LEN } else { SMALL_BUF_LEN }, small))
}

/// Threads for `armor` and `dearmor` to encode or decode base64 on, as the library's encryption
/// and decryption do by default: the available parallelism, at most 4.
pub(crate) fn armor_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get().min(4))
}

/// The error [`copy`] returns when `--as=text` input is not UTF-8.
#[derive(Debug)]
pub(crate) struct NotText;

impl fmt::Display for NotText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("--as=text input is not UTF-8")
    }
}

impl std::error::Error for NotText {}

/// Is `err` the [`NotText`] error of [`copy`]?
pub(crate) fn is_not_text(err: &io::Error) -> bool {
    err.get_ref().is_some_and(|e| e.is::<NotText>())
}

/// Checks that a stream is UTF-8, chunk by chunk (a sequence may span chunks).
#[derive(Debug, Default)]
struct Utf8Check {
    /// The start of a sequence cut at the end of the last chunk (at most 3 octets).
    pending: Vec<u8>,
}

impl Utf8Check {
    /// Checks the next chunk.
    fn update(&mut self, data: &[u8]) -> io::Result<()> {
        let mut buf = std::mem::take(&mut self.pending);
        buf.extend_from_slice(data);
        match std::str::from_utf8(&buf) {
            Ok(_) => Ok(()),
            Err(e) if e.error_len().is_none() => {
                self.pending = buf.get(e.valid_up_to()..).unwrap_or_default().to_vec();
                Ok(())
            }
            Err(_) => Err(io::Error::new(io::ErrorKind::InvalidData, NotText)),
        }
    }

    /// Checks that no sequence was left incomplete.
    fn finish(&self) -> io::Result<()> {
        if self.pending.is_empty() {
            Ok(())
        } else {
            Err(io::Error::new(io::ErrorKind::InvalidData, NotText))
        }
    }
}

/// Copies `src` to `dst` through one fixed buffer, wiped afterwards; if `text`, fails with
/// [`NotText`] as soon as the data is seen not to be UTF-8.
pub(crate) fn copy(
    src: &mut (impl Read + ?Sized),
    dst: &mut (impl Write + ?Sized),
    text: bool,
) -> io::Result<()> {
    let mut check = text.then(Utf8Check::default);
    let mut buf = Zeroizing::new(vec![0u8; BUF_LEN]);
    loop {
        let n = match src.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        let chunk = buf.get(..n).unwrap_or_default();
        if let Some(c) = &mut check {
            c.update(chunk)?;
        }
        dst.write_all(chunk)?;
    }
    check.as_ref().map_or(Ok(()), Utf8Check::finish)
}

/// Copies `src` to `dst` from `src`'s own buffer (no intermediate copy: the library's
/// readers hand out their decrypted chunks directly).
pub(crate) fn copy_buffered(
    src: &mut (impl BufRead + ?Sized),
    dst: &mut (impl Write + ?Sized),
) -> io::Result<()> {
    loop {
        let n = match src.fill_buf() {
            Ok([]) => return Ok(()),
            Ok(data) => {
                dst.write_all(data)?;
                data.len()
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        src.consume(n);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf8_split_across_reads_is_fine_and_invalid_is_caught() {
        let text = "grüße, 世界\n".repeat(50_000);
        let mut out = Vec::new();
        copy(&mut text.as_bytes(), &mut out, true).unwrap();
        assert_eq!(out, text.as_bytes());
        let mut bad = text.into_bytes();
        bad.push(0xff);
        let err = copy(&mut &bad[..], &mut Vec::new(), true).unwrap_err();
        assert!(is_not_text(&err));
        assert!(copy(&mut &bad[..], &mut Vec::new(), false).is_ok());
        // A sequence cut off at the end of the input.
        let err = copy(&mut &"é".as_bytes()[..1], &mut Vec::new(), true).unwrap_err();
        assert!(is_not_text(&err));
    }

    #[test]
    fn armored_sources_get_the_large_buffer_and_lose_nothing() {
        for (input, capacity) in [
            (&b"-----BEGIN PGP MESSAGE-----\n"[..], ARMOR_BUF_LEN),
            (b" \r\n\t-----BEGIN", ARMOR_BUF_LEN),
            (b"\xc1\x00-", SMALL_BUF_LEN),
            (b"", SMALL_BUF_LEN),
        ] {
            let mut r = message_source(input).unwrap();
            assert_eq!(r.capacity(), capacity, "{input:?}");
            let mut all = Vec::new();
            let _ = r.read_to_end(&mut all).unwrap();
            assert_eq!(all, input);
        }
        // Longer than both buffers, from a source that gives a few octets per read (and is
        // interrupted now and then), read back in pieces of every size.
        struct Dribble<'a>(&'a [u8], usize);
        impl Read for Dribble<'_> {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                self.1 += 1;
                if self.1.is_multiple_of(7) {
                    return Err(io::ErrorKind::Interrupted.into());
                }
                let n = buf.len().min(self.0.len()).min(self.1 % 5000 + 1);
                buf[..n].copy_from_slice(&self.0[..n]);
                self.0 = &self.0[n..];
                Ok(n)
            }
        }
        let mut data = b"-----BEGIN PGP MESSAGE-----\n".to_vec();
        data.extend((0..700_000u32).map(|i| i.to_le_bytes()[1]));
        for text in [&data[..], &data[1..]] {
            let mut r = message_source(Dribble(text, 0)).unwrap();
            let mut all = Vec::new();
            let mut piece = 1;
            loop {
                let mut buf = vec![0; piece];
                match r.read(&mut buf) {
                    Ok(0) => break,
                    Ok(n) => all.extend_from_slice(&buf[..n]),
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => panic!("{e}"),
                }
                piece = piece % 300_000 * 3 + 1;
            }
            assert!(all == text);
        }
    }

    #[test]
    fn buffered_copy_moves_everything() {
        let data: Vec<u8> = (0..700_000u32).map(|i| i.to_le_bytes()[1]).collect();
        let mut out = Vec::new();
        copy_buffered(&mut io::BufReader::with_capacity(4096, &data[..]), &mut out).unwrap();
        assert_eq!(out, data);
    }
}

//! Copying data streams: one wiped buffer, an optional UTF-8 check for `--as=text`.

use std::fmt;
use std::io::{self, BufRead, Read, Write};

use zeroize::Zeroizing;

/// Size of the copy buffer and of the buffered readers and writers around the library's
/// streams: large enough that whole SEIPD chunks move in one call.
pub(crate) const BUF_LEN: usize = 256 * 1024;

/// Size of the buffer around a source or sink that the library reads or writes in large
/// blocks (whole packet parts of 64 KiB and more): small enough that those blocks go straight
/// through `BufReader`/`BufWriter`, which copy only what is shorter than their capacity.
pub(crate) const SMALL_BUF_LEN: usize = 16 * 1024;

/// Size of the buffer around an armored source read by an `ArmorReader`, which takes what the
/// buffer holds (it does not read past the END line), so each system call brings this much.
pub(crate) const ARMOR_BUF_LEN: usize = 256 * 1024;

/// Threads for `armor` and `dearmor` to encode or decode base64 on, the calling thread
/// included, as the library's encryption and decryption use by default: the available
/// parallelism, at most 4.
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

/// Checks that a stream is UTF-8, chunk by chunk (a sequence may span chunks), in place: the
/// data (plaintext) is never copied, but for the start of a sequence cut at a chunk's end.
#[derive(Debug, Default)]
struct Utf8Check {
    /// The start of a sequence cut at the end of the last chunk: `pending[..pending_len]`.
    pending: [u8; 4],
    pending_len: usize,
}

impl Utf8Check {
    /// Checks the next chunk.
    fn update(&mut self, mut data: &[u8]) -> io::Result<()> {
        // Completes the cut sequence an octet at a time: it is a prefix of one sequence, so it
        // is whole (or wrong) by its fourth octet.
        while self.pending_len > 0 {
            let Some((&octet, rest)) = data.split_first() else { return Ok(()) };
            data = rest;
            let slot = self.pending.get_mut(self.pending_len).ok_or_else(not_text)?;
            *slot = octet;
            self.pending_len = self.pending_len.saturating_add(1);
            match std::str::from_utf8(self.pending.get(..self.pending_len).unwrap_or_default()) {
                Ok(_) => self.pending_len = 0,
                Err(e) if e.error_len().is_none() => {}
                Err(_) => return Err(not_text()),
            }
        }
        match std::str::from_utf8(data) {
            Ok(_) => Ok(()),
            Err(e) if e.error_len().is_none() => {
                let cut = data.get(e.valid_up_to()..).unwrap_or_default();
                let dst = self.pending.get_mut(..cut.len()).ok_or_else(not_text)?;
                dst.copy_from_slice(cut);
                self.pending_len = cut.len();
                Ok(())
            }
            Err(_) => Err(not_text()),
        }
    }

    /// Checks that no sequence was left incomplete.
    fn finish(&self) -> io::Result<()> {
        if self.pending_len == 0 { Ok(()) } else { Err(not_text()) }
    }
}

fn not_text() -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, NotText)
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
                write_all_vectored(dst, data)?;
                data.len()
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        src.consume(n);
    }
}

/// `dst.write_all(data)` through `write_vectored`, for standard output: its `LineWriter`
/// writes a slice that holds a line break whole with one `writev`, where `write` writes up to
/// the last line break and keeps the rest for a second system call.
fn write_all_vectored(dst: &mut (impl Write + ?Sized), mut data: &[u8]) -> io::Result<()> {
    while !data.is_empty() {
        match dst.write_vectored(&[io::IoSlice::new(data)]) {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(n) => data = data.get(n..).unwrap_or_default(),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The chunked check agrees with `str::from_utf8` on the whole input, however the input is
    /// cut into three chunks, for valid text with 1- to 4-octet sequences and for inputs with an
    /// invalid or truncated sequence.
    #[test]
    fn utf8_check_agrees_with_from_utf8_for_every_cut() {
        let inputs: [&[u8]; 8] = [
            "aé世😀b".as_bytes(),
            "😀😀".as_bytes(),
            b"a\xe4\xb8\x41",
            b"\xf0\x9f\x98",
            b"\xc3",
            b"ab\xff",
            b"\xed\xa0\x80",
            b"\xe4\xb8\x96\xf0\x9f\x98\x80\xc3\xa9",
        ];
        for input in inputs {
            let whole = std::str::from_utf8(input).is_ok();
            for i in 0..=input.len() {
                for j in i..=input.len() {
                    let mut check = Utf8Check::default();
                    let result = [&input[..i], &input[i..j], &input[j..]]
                        .into_iter()
                        .try_for_each(|chunk| check.update(chunk))
                        .and_then(|()| check.finish());
                    assert_eq!(result.is_ok(), whole, "{input:x?} cut at {i} and {j}");
                }
            }
        }
    }

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
    fn buffered_copy_moves_everything() {
        let data: Vec<u8> = (0..700_000u32).map(|i| i.to_le_bytes()[1]).collect();
        let mut out = Vec::new();
        copy_buffered(&mut io::BufReader::with_capacity(4096, &data[..]), &mut out).unwrap();
        assert_eq!(out, data);
        // A sink that takes a few octets per call, is interrupted now and then, and then
        // takes nothing more.
        struct Stingy {
            out: Vec<u8>,
            calls: usize,
            room: usize,
        }
        impl Write for Stingy {
            fn write(&mut self, _: &[u8]) -> io::Result<usize> {
                unreachable!("copy_buffered writes vectored")
            }
            fn write_vectored(&mut self, bufs: &[io::IoSlice<'_>]) -> io::Result<usize> {
                self.calls += 1;
                if self.calls.is_multiple_of(7) {
                    return Err(io::ErrorKind::Interrupted.into());
                }
                let first = bufs.iter().find(|b| !b.is_empty()).map_or(&[][..], |b| &b[..]);
                let n = first.len().min(5).min(self.room);
                self.out.extend_from_slice(&first[..n]);
                self.room -= n;
                Ok(n)
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        let mut sink = Stingy { out: Vec::new(), calls: 0, room: usize::MAX };
        copy_buffered(&mut io::BufReader::new(&data[..10_000]), &mut sink).unwrap();
        assert_eq!(sink.out, &data[..10_000]);
        let mut full = Stingy { out: Vec::new(), calls: 0, room: 100 };
        let err = copy_buffered(&mut &data[..], &mut full).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::WriteZero);
        assert_eq!(full.out, &data[..100]);
    }
}

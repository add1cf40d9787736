//! The Cleartext Signature Framework (RFC 9580 §7): creating ([`CleartextSignWriter`]) and
//! parsing ([`CleartextMessage`]) cleartext-signed messages.
//!
//! <https://www.rfc-editor.org/rfc/rfc9580#section-7>
//!
//! The signed text is hashed as canonical text: dash-escaping reversed, trailing spaces and tabs
//! removed from every line, lines joined with CR LF, and the line break just before the
//! `-----BEGIN PGP SIGNATURE-----` line not included (§7.2). No `Hash:` armor header is written:
//! it is deprecated and meant only for v4 signatures (§6.2.2.3); when reading, `Hash:` headers
//! must name known digests and are otherwise ignored.

use std::fmt;
use std::io::{self, BufRead, Read, Write};

use crate::armor::{ArmorKind, ArmorReader, ArmorWriter};
use crate::error::{Error, Limit, Result};
use crate::limits::Limits;
use crate::message::sign::{SignWriter, Signer};
use crate::signature::SignatureMode;
use crate::types::HashAlgorithm;

/// The first line of a cleartext-signed message.
const CLEARTEXT_BEGIN: &[u8] = b"-----BEGIN PGP SIGNED MESSAGE-----";
/// The line that ends the signed text.
const SIGNATURE_BEGIN: &[u8] = b"-----BEGIN PGP SIGNATURE-----";
/// Octets a raw line of the signed text may have beyond the room left in the text.
const LINE_SLACK: usize = 4096;
/// Digest names a `Hash:` header may carry (RFC 9580 §9.5, "Text Name").
/// The hash algorithm a `Hash` header name stands for, among those this crate implements.
fn hash_from_name(name: &[u8]) -> Option<HashAlgorithm> {
    Some(match name {
        b"SHA256" => HashAlgorithm::Sha256,
        b"SHA384" => HashAlgorithm::Sha384,
        b"SHA512" => HashAlgorithm::Sha512,
        b"SHA224" => HashAlgorithm::Sha224,
        b"SHA3-256" => HashAlgorithm::Sha3_256,
        b"SHA3-512" => HashAlgorithm::Sha3_512,
        _ => return None,
    })
}

const HASH_NAMES: [&[u8]; 9] =
    [b"MD5", b"SHA1", b"RIPEMD160", b"SHA256", b"SHA384", b"SHA512", b"SHA224", b"SHA3-256", b"SHA3-512"];

/// A parsed cleartext-signed message: the signed text and its signatures.
#[derive(Clone, PartialEq, Eq)]
pub struct CleartextMessage {
    /// Dash-unescaped lines without trailing whitespace, joined with LF.
    text: Vec<u8>,
    /// The binary Signature packets.
    signatures: Vec<u8>,
    /// The algorithms the `Hash` armor headers name (empty when there is none).
    pub(super) hashes: Vec<HashAlgorithm>,
}

impl fmt::Debug for CleartextMessage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CleartextMessage")
            .field("text_len", &self.text.len())
            .field("signatures_len", &self.signatures.len())
            .finish()
    }
}

/// True if `input` (after leading whitespace) starts with the cleartext BEGIN line, so that
/// callers can route it to [`CleartextMessage::from_reader`] rather than an [`ArmorReader`].
#[must_use]
pub fn is_cleartext_signed(input: &[u8]) -> bool {
    input.trim_ascii_start().starts_with(CLEARTEXT_BEGIN)
}

/// Reads one line (LF included, if any) of at most `cap` octets.
fn read_line(r: &mut impl BufRead, line: &mut Vec<u8>, cap: usize) -> Result<usize> {
    line.clear();
    let limit = u64::try_from(cap).unwrap_or(u64::MAX).saturating_add(1);
    let n = r.by_ref().take(limit).read_until(b'\n', line).map_err(Error::from_io)?;
    if n > cap {
        return Err(Error::LimitExceeded(Limit::PacketLength));
    }
    Ok(n)
}

/// Reads one line of the signed text, at most `budget` octets (LF included).
fn read_text_line(r: &mut impl BufRead, line: &mut Vec<u8>, budget: usize) -> Result<usize> {
    match read_line(r, line, budget) {
        Err(Error::LimitExceeded(_)) => Err(Error::LimitExceeded(Limit::CleartextLength)),
        other => other,
    }
}

/// A line without its line ending (LF or CR LF).
fn strip_eol(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// A line without trailing spaces and tabs.
fn strip_trailing_whitespace(line: &[u8]) -> &[u8] {
    let end = line.iter().rposition(|&b| b != b' ' && b != b'\t').map_or(0, |i| i.saturating_add(1));
    line.get(..end).unwrap_or_default()
}

impl CleartextMessage {
    /// Parses a cleartext-signed message: the BEGIN line, `Hash:` headers, a blank line, the
    /// dash-escaped text and an armored `PGP SIGNATURE` block.
    ///
    /// # Errors
    /// `Malformed` for a missing BEGIN line, an armor header other than a valid `Hash:`, or a
    /// broken signature block; `Truncated` if the input ends early;
    /// `LimitExceeded(CleartextLength)` for a text over the default
    /// [`Limits::max_cleartext_len`] (64 MiB).
    pub fn from_reader(input: impl BufRead) -> Result<Self> {
        Self::from_reader_with_limits(input, &Limits::default())
    }

    /// [`CleartextMessage::from_reader`] with explicit resource limits: the signed text is held
    /// in memory (a v6 signature's salt comes after it, so it cannot be hashed as it is read)
    /// and may be at most [`Limits::max_cleartext_len`] octets; the signature block is read
    /// under the same limits.
    ///
    /// # Errors
    /// As [`CleartextMessage::from_reader`], with `limits`.
    pub fn from_reader_with_limits(mut input: impl BufRead, limits: &Limits) -> Result<Self> {
        let mut line = Vec::new();
        // The cleartext header line, after optional blank lines (§7.1).
        loop {
            if read_line(&mut input, &mut line, 4096)? == 0 {
                return Err(Error::Truncated("cleartext signed message"));
            }
            let l = line.trim_ascii();
            if l.is_empty() {
                continue;
            }
            if l != CLEARTEXT_BEGIN {
                return Err(Error::malformed("cleartext: missing BEGIN PGP SIGNED MESSAGE line"));
            }
            break;
        }
        // Zero or more `Hash` armor headers, then one empty line.
        let mut hashes = Vec::new();
        loop {
            if read_line(&mut input, &mut line, 4096)? == 0 {
                return Err(Error::Truncated("cleartext signed message"));
            }
            let l = line.trim_ascii_end();
            if l.is_empty() {
                break;
            }
            let value = l
                .strip_prefix(b"Hash:")
                .ok_or(Error::malformed("cleartext: armor header other than Hash"))?;
            for name in value.split(|&b| b == b',').map(<[u8]>::trim_ascii) {
                if !HASH_NAMES.contains(&name) {
                    return Err(Error::malformed("cleartext: non-conformant Hash header"));
                }
                if let Some(alg) = hash_from_name(name) {
                    hashes.push(alg);
                }
            }
        }
        // The dash-escaped text, up to the signature's BEGIN line (§7.2).
        let mut text = Vec::new();
        let mut first = true;
        loop {
            // A raw line may be longer than what it adds to the text (line ending, escape,
            // trailing whitespace, or the signature's BEGIN line), hence the slack; the text
            // itself is checked after each line.
            let budget = limits.max_cleartext_len().saturating_sub(text.len()).saturating_add(LINE_SLACK);
            if read_text_line(&mut input, &mut line, budget)? == 0 {
                return Err(Error::Truncated("cleartext signed message: no signature"));
            }
            let content = strip_eol(&line);
            if content.trim_ascii_end() == SIGNATURE_BEGIN {
                break;
            }
            // Reverse dash-escaping: a leading "- " is removed.
            let content = content.strip_prefix(b"- ").unwrap_or(content);
            if !first {
                text.push(b'\n');
            }
            first = false;
            text.extend_from_slice(strip_trailing_whitespace(content));
            if text.len() > limits.max_cleartext_len() {
                return Err(Error::LimitExceeded(Limit::CleartextLength));
            }
        }
        // The signature block, from its BEGIN line on.
        let mut begin = SIGNATURE_BEGIN.to_vec();
        begin.push(b'\n');
        let mut armor = ArmorReader::with_limits(io::Cursor::new(begin).chain(input), limits);
        let mut signatures = Vec::new();
        let _ = armor.read_to_end(&mut signatures).map_err(Error::from_io)?;
        if armor.kind() != Some(ArmorKind::Signature) {
            return Err(Error::malformed("cleartext: signature block is not a PGP SIGNATURE"));
        }
        Ok(Self { text, signatures, hashes })
    }

    /// The signed text: dash-escaping reversed, trailing whitespace removed, lines joined with
    /// LF. This is exactly what the signatures cover (with CR LF line endings).
    #[must_use]
    pub fn text(&self) -> &[u8] {
        &self.text
    }

    /// The binary Signature packets.
    #[must_use]
    pub fn signatures(&self) -> &[u8] {
        &self.signatures
    }

    /// Feeds the canonical form of the text (CR LF line endings, no final line break).
    pub(super) fn write_canonical(&self, w: &mut impl Write) -> io::Result<()> {
        let mut first = true;
        for line in self.text.split(|&b| b == b'\n') {
            if !first {
                w.write_all(b"\r\n")?;
            }
            first = false;
            w.write_all(line)?;
        }
        Ok(())
    }
}

impl Signer {
    /// A cleartext-signing stream into `sink` (RFC 9580 §7): text signatures (whatever the
    /// mode), the text dash-escaped line by line as it is written, and the armored signatures at
    /// [`finish`](CleartextSignWriter::finish). Trailing spaces and tabs are removed from each
    /// line and line endings become LF, since that is what a verifier sees.
    ///
    /// # Errors
    /// As [`Signer::detached`], and I/O errors of `sink`.
    pub fn cleartext_writer<W: Write>(self, mut sink: W) -> Result<CleartextSignWriter<W>> {
        let signer = self.mode(SignatureMode::Text).armor(false).detached()?;
        // No Hash header for v6 signatures: the header line, then the empty line.
        sink.write_all(CLEARTEXT_BEGIN)?;
        sink.write_all(b"\n\n")?;
        Ok(CleartextSignWriter { signer, sink, line: Vec::new(), first: true })
    }
}

/// Writes a cleartext-signed message (see [`Signer::cleartext_writer`]).
///
/// One line of text is buffered at a time. Dropping the writer without
/// [`finish`](Self::finish) leaves an incomplete message.
#[must_use = "call finish() to write the signatures"]
pub struct CleartextSignWriter<W: Write> {
    signer: SignWriter,
    sink: W,
    /// The current line, without its line ending.
    line: Vec<u8>,
    /// No line has been completed yet.
    first: bool,
}

impl<W: Write> fmt::Debug for CleartextSignWriter<W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CleartextSignWriter").field("signer", &self.signer).finish_non_exhaustive()
    }
}

impl<W: Write> CleartextSignWriter<W> {
    /// Hashes and writes the buffered line.
    fn end_line(&mut self) -> io::Result<()> {
        let content = strip_eol(&self.line);
        let content = strip_trailing_whitespace(content);
        // Line breaks between lines are hashed as CR LF; the last one is not hashed at all.
        if !self.first {
            self.signer.write_all(b"\r\n")?;
        }
        self.first = false;
        self.signer.write_all(content)?;
        // Dash-escaping (§7.1): a line starting with '-' gets "- " in front.
        if content.first() == Some(&b'-') {
            self.sink.write_all(b"- ")?;
        }
        self.sink.write_all(content)?;
        self.sink.write_all(b"\n")?;
        self.line.clear();
        Ok(())
    }

    /// Ends the text, writes the armored signatures and returns the sink.
    ///
    /// # Errors
    /// I/O errors of the sink; as [`SignWriter::finish`].
    pub fn finish(mut self) -> Result<W> {
        // The last (possibly empty) line; its line break separates the text from the
        // signature and is not signed.
        self.end_line()?;
        let signatures = self.signer.finish()?;
        let mut armor = ArmorWriter::new(self.sink, ArmorKind::Signature)?;
        armor.write_all(&signatures)?;
        let mut sink = armor.finish()?;
        sink.flush()?;
        Ok(sink)
    }
}

impl<W: Write> Write for CleartextSignWriter<W> {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        let mut rest = data;
        while let Some(lf) = rest.iter().position(|&b| b == b'\n') {
            let (line, tail) = rest.split_at(lf);
            self.line.extend_from_slice(line);
            self.end_line()?;
            rest = tail.get(1..).unwrap_or_default();
        }
        self.line.extend_from_slice(rest);
        Ok(data.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.sink.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crypto::hash::Hasher;
    use crate::packet::PacketBody;
    use crate::packet::signature::SignaturePacket;
    use crate::types::HashAlgorithm;

    /// RFC 9580 A.6: the hashed data and the SHA2-512 digest are reproduced exactly.
    #[test]
    fn rfc9580_a6_hashed_data() {
        let armored = include_bytes!("../../tests/data/a06-cleartext-signed-message.asc");
        let v: serde_json::Value =
            serde_json::from_slice(include_bytes!("../../tests/data/a06-a07-signature.json")).unwrap();
        let msg = CleartextMessage::from_reader(&armored[..]).unwrap();
        let packet = hex::decode(v["signature_packet_with_header"].as_str().unwrap()).unwrap();
        assert_eq!(msg.signatures(), &packet[..]);
        let sig = SignaturePacket::parse(&packet[2..]).unwrap();
        let mut hashed = sig.salt.clone();
        msg.write_canonical(&mut hashed).unwrap();
        let prefix = sig.hashed_prefix();
        hashed.extend_from_slice(&prefix);
        hashed.extend_from_slice(&[0x06, 0xff]);
        hashed.extend_from_slice(&u32::try_from(prefix.len()).unwrap().to_be_bytes());
        assert_eq!(hex::encode(&hashed), v["hashed_data"].as_str().unwrap());
        let mut h = Hasher::new(HashAlgorithm::Sha512).unwrap();
        h.update(&hashed);
        assert_eq!(hex::encode(h.finish()), v["sha512_digest"].as_str().unwrap());
        // The streaming text hasher gives the same digest from the LF text.
        let mut dh =
            crate::signature::DataHasher::new(HashAlgorithm::Sha512, &sig.salt, SignatureMode::Text).unwrap();
        dh.update(b"What we need from the grocery store:\n\n- tofu\n- vegetables\n- noodles\n");
        assert_eq!(
            hex::encode(crate::signature::finish_hash(dh.into_hasher(), &sig)),
            v["sha512_digest"].as_str().unwrap()
        );
    }

    #[test]
    fn hostile_cleartext_inputs_are_errors() {
        let cases: [&[u8]; 6] = [
            b"",
            b"-----BEGIN PGP SIGNED MESSAGE-----\n",
            b"-----BEGIN PGP SIGNED MESSAGE-----\nComment: x\n\ntext\n",
            b"-----BEGIN PGP SIGNED MESSAGE-----\nHash: SHA512, BOGUS\n\ntext\n",
            b"-----BEGIN PGP SIGNED MESSAGE-----\n\ntext\n",
            b"-----BEGIN PGP SIGNED MESSAGE-----\n\ntext\n-----BEGIN PGP SIGNATURE-----\n\nwgA=\n",
        ];
        for c in cases {
            assert!(CleartextMessage::from_reader(c).is_err(), "{}", String::from_utf8_lossy(c));
        }
        let ok = b"-----BEGIN PGP SIGNED MESSAGE-----\nHash: SHA256,SHA512\n\n- -x\n-----BEGIN PGP SIGNATURE-----\n\nwgA=\n-----END PGP SIGNATURE-----\n";
        let msg = CleartextMessage::from_reader(&ok[..]).unwrap();
        assert_eq!(msg.text(), b"-x");
        assert_eq!(msg.signatures(), b"\xc2\x00");
    }
}

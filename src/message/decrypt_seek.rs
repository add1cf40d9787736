//! [`SeekableReader`]: random access to the plaintext of an encrypted message in a seekable
//! source, decrypting only the chunks each read touches.
//!
//! The message is laid out as in sequential decryption (RFC 9580 §10.3): the session-key
//! packets, then one SEIPDv2 packet whose plaintext holds signature packets, one Literal Data
//! packet and the packets after it. Each layer of framing is followed by reading length
//! headers only ([`PartIndex`]): the SEIPD packet's in the file, the Literal Data packet's in
//! the plaintext, where each header read decrypts the chunk it is in.

use std::fmt;
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom};

use crate::crypto::aead::KeyedAead;
use crate::crypto::secret::{SecretVec, SessionKey};
use crate::error::{Error, Limit, Result, Unsupported};
use crate::limits::Limits;
use crate::message::esk::EskSequence;
use crate::message::literal_info::LiteralInfo;
use crate::message::seipd::RandomChunks;
use crate::message::session_key::DecryptedWith;
use crate::packet::header::{BodyLength, Header, Tag};
use crate::packet::literal::LiteralHeader;
use crate::packet::partial::{PartIndex, ReadAt};
use crate::packet::reader::Reader;
use crate::packet::seipd::SeipdHeader;
use crate::types::{AeadAlgorithm, SymmetricAlgorithm};

/// A seekable source, read at offsets.
struct Source<R: Read + Seek> {
    inner: R,
    /// Where the source is, if known: a read that follows the last one does not seek.
    pos: Option<u64>,
}

impl<R: Read + Seek> fmt::Debug for Source<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Source").field("pos", &self.pos).finish_non_exhaustive()
    }
}

impl<R: Read + Seek> ReadAt for Source<R> {
    fn read_exact_at(&mut self, offset: u64, buf: &mut [u8]) -> Result<()> {
        if self.pos != Some(offset) {
            self.pos = None;
            let _ = self.inner.seek(SeekFrom::Start(offset))?;
        }
        self.inner.read_exact(buf).map_err(|e| match e.kind() {
            io::ErrorKind::UnexpectedEof => Error::Truncated("encrypted message"),
            _ => Error::from_io(e),
        })?;
        let len = u64::try_from(buf.len()).map_err(|_| Error::Internal("read length"))?;
        self.pos = offset.checked_add(len);
        Ok(())
    }
}

/// Packet headers of the plaintext, read through a small buffer; packet bodies are skipped
/// by moving the offset, without decrypting them.
struct Packets<'a, S: ReadAt> {
    chunks: &'a mut RandomChunks<S>,
    /// Plaintext offset of the end of what `buf` holds.
    pos: u64,
    buf: SecretVec,
    start: usize,
    end: usize,
}

impl<'a, S: ReadAt> Packets<'a, S> {
    fn new(chunks: &'a mut RandomChunks<S>, pos: u64) -> Self {
        Self { chunks, pos, buf: SecretVec::zeroed(16), start: 0, end: 0 }
    }

    /// Plaintext offset of the next octet.
    fn offset(&self) -> Result<u64> {
        let buffered = u64::try_from(self.end.saturating_sub(self.start)).map_err(|_| bounds())?;
        self.pos.checked_sub(buffered).ok_or_else(bounds)
    }

    /// Skips a packet body of `len` octets.
    fn skip(&mut self, len: u32) -> Result<()> {
        let to = self.offset()?.checked_add(u64::from(len)).ok_or_else(bounds)?;
        if to > self.chunks.len() {
            return Err(Error::Truncated("packet body"));
        }
        self.pos = to;
        self.start = 0;
        self.end = 0;
        Ok(())
    }

    /// The next packet's header, or `None` at the end of the plaintext.
    fn header(&mut self) -> Result<Option<Header>> {
        Header::read_from(self)
    }
}

impl<S: ReadAt> Read for Packets<'_, S> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let n = {
            let buf = self.fill_buf()?;
            let n = buf.len().min(out.len());
            out.get_mut(..n).unwrap_or_default().copy_from_slice(buf.get(..n).unwrap_or_default());
            n
        };
        self.consume(n);
        Ok(n)
    }
}

impl<S: ReadAt> BufRead for Packets<'_, S> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.start >= self.end {
            let n = self.chunks.read_at(self.pos, &mut self.buf)?;
            self.pos = self.pos.checked_add(u64::try_from(n).unwrap_or(u64::MAX)).ok_or_else(bounds)?;
            self.start = 0;
            self.end = n;
        }
        Ok(self.buf.get(self.start..self.end).unwrap_or_default())
    }

    fn consume(&mut self, amt: usize) {
        self.start = self.start.saturating_add(amt).min(self.end);
    }
}

fn bounds() -> Error {
    Error::Internal("seekable reader: offsets")
}

/// What [`SeekableReader::finish`] reports once the whole message has been authenticated.
#[derive(Debug)]
#[non_exhaustive]
pub struct SeekSummary {
    /// Format, file name and date of the literal data.
    pub literal: LiteralInfo,
    /// The cipher of the SEIPDv2 packet.
    pub sym: SymmetricAlgorithm,
    /// The AEAD mode of the SEIPDv2 packet.
    pub aead: AeadAlgorithm,
    /// The session key.
    pub session_key: SessionKey,
    /// What opened the message.
    pub decrypted_with: DecryptedWith,
    /// The signature packets the message carries. A seeking reader never checks them (they
    /// cover the whole plaintext, which it does not read): decrypt sequentially with
    /// [`Decryptor::verify_with`](crate::Decryptor::verify_with) to verify them.
    pub unchecked_signatures: usize,
    /// The plaintext's length.
    pub len: u64,
}

/// Random access to the plaintext of a binary encrypted message in a `Read + Seek` source,
/// from [`Decryptor::seekable_reader`](crate::Decryptor::seekable_reader).
///
/// It implements [`Read`] and [`Seek`] over the literal data, and decrypts only the SEIPDv2
/// chunks a read touches:
///
/// - A read at offset X returns exactly the octets a sequential [`DecryptReader`](crate::DecryptReader)
///   returns at X, or an error, never other octets: every chunk a read touches is
///   authenticated before any of it is returned. A modified chunk is [`Error::Decrypt`] for
///   the reads that touch it (as an `io::Error` of kind `InvalidData`); other reads still
///   succeed.
/// - The message as a whole is authenticated only once its last chunk and the final tag (which
///   binds the number of chunks and the length) have verified, and the packets after the
///   literal data have been checked: a read at or after the end returns `Ok(0)` only then,
///   and [`finish`](Self::finish) does it wherever the reader is. A truncated file, or chunks
///   moved between positions, fail there (and in the reads that touch them). A chunk that no
///   read touched is never checked: reading every octet and then `finish` authenticates as
///   much as sequential decryption does.
/// - Signatures inside the message are never checked: [`SeekSummary::unchecked_signatures`]
///   counts them.
/// - Seeking reads the packet framing only: the SEIPD packet's length headers, and the
///   Literal Data packet's, which sit inside the plaintext. A message whose lengths are
///   fixed (the library writes such messages when given
///   [`Encryptor::plaintext_len`](crate::Encryptor::plaintext_len), below 4 GiB) seeks in
///   O(1) chunks. A message written as a stream of unknown length has partial lengths
///   inside the plaintext too: each of the Literal Data packet's length headers is read by
///   decrypting the chunk it sits in, so the first seek to an offset costs a chunk for each
///   part before it (the library's writer makes parts of 64 KiB, so with its default
///   256 KiB chunks that is every chunk up to the offset), and later seeks behind the
///   furthest point go through checkpoints. The SEIPD packet's own partial lengths are read
///   (not decrypted) when the reader is made.
/// - Memory stays bounded: one chunk of ciphertext and one of plaintext (at most 4 MiB each),
///   and at most a few thousand framing checkpoints.
pub struct SeekableReader<R: Read + Seek> {
    chunks: RandomChunks<Source<R>>,
    /// The Literal Data packet's body in the plaintext.
    literal: PartIndex,
    /// Octets of the literal header fields at the start of its body.
    data_start: u64,
    /// The literal data's length, once known.
    len: Option<u64>,
    pos: u64,
    info: LiteralInfo,
    /// One-Pass Signatures and signatures before the literal data.
    one_pass: usize,
    signatures: usize,
    /// Whether the end has been checked (see [`SeekableReader::finish`]).
    end_checked: bool,
    sym: SymmetricAlgorithm,
    aead: AeadAlgorithm,
    session_key: SessionKey,
    decrypted_with: DecryptedWith,
}

impl<R: Read + Seek> fmt::Debug for SeekableReader<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SeekableReader")
            .field("pos", &self.pos)
            .field("len", &self.len)
            .field("sym", &self.sym)
            .field("aead", &self.aead)
            .finish_non_exhaustive()
    }
}

impl<R: Read + Seek> SeekableReader<R> {
    /// Opens the message at `source`'s current position; `find` finds the session key.
    pub(super) fn open(
        mut source: R,
        limits: &Limits,
        find: impl FnOnce(&EskSequence, &SeipdHeader, usize) -> Result<(SessionKey, DecryptedWith)>,
    ) -> Result<Self> {
        // The session-key packets and the SEIPD packet's header, read through a buffer.
        let (esk, seipd, body_at) = {
            let mut buffered = BufReader::with_capacity(4096, &mut source);
            let first = *buffered.fill_buf()?.first().ok_or(Error::Truncated("encrypted message"))?;
            if first & 0x80 == 0 {
                return Err(Error::InvalidArgument(
                    "seekable reader: the input is not a binary OpenPGP message (armored?)",
                ));
            }
            let esk = EskSequence::read(&mut buffered, limits)?;
            let seipd = Header::read_from(&mut buffered)?.ok_or(Error::Truncated("encrypted message"))?;
            let body_at = buffered.stream_position()?;
            (esk, seipd, body_at)
        };
        if seipd.tag != Tag::Seipd {
            return Err(Error::malformed("seekable reader: no encrypted data after the session keys"));
        }
        let mut src = Source { inner: source, pos: None };
        let mut framing = PartIndex::new(body_at, seipd.length);
        let header = RandomChunks::header(&mut src, &mut framing)?;
        let _ = KeyedAead::check(header.sym, header.aead)?;
        let key_len = header
            .sym
            .key_len()
            .ok_or(Error::Unsupported(Unsupported::SymmetricAlgorithm(header.sym.into())))?;
        let (session_key, decrypted_with) = find(&esk, &header, key_len)?;
        let mut chunks = RandomChunks::new(src, framing, &session_key, &header)?;

        // The packets before the literal data: signatures and One-Pass Signatures are
        // counted and skipped, as are Padding, Marker and unknown non-critical packets.
        let (mut one_pass, mut signatures) = (0usize, 0usize);
        let (literal_at, length) = {
            let mut packets = Packets::new(&mut chunks, 0);
            loop {
                let h = packets.header()?.ok_or(Error::Truncated("literal data"))?;
                let counted = match h.tag {
                    Tag::LiteralData => break (packets.offset()?, h.length),
                    Tag::OnePassSignature => &mut one_pass,
                    Tag::Signature => &mut signatures,
                    tag if skippable(tag) => &mut 0,
                    _ => return Err(Error::malformed("encrypted message: unexpected packet")),
                };
                *counted = counted.checked_add(1).ok_or_else(bounds)?;
                if one_pass.saturating_add(signatures) > limits.max_signatures() {
                    return Err(Error::LimitExceeded(Limit::Signatures));
                }
                let BodyLength::Fixed(len) = h.length else {
                    return Err(Error::malformed("partial body length on a non-data packet"));
                };
                packets.skip(len)?;
            }
        };
        let mut literal = PartIndex::new(literal_at, length);
        // The literal header fields: format, name length, name, date.
        let mut fields = SecretVec::zeroed(2);
        literal.read_exact(&mut chunks, 0, &mut fields)?;
        let name_len = usize::from(*fields.get(1).ok_or_else(bounds)?);
        let fields_len = name_len.checked_add(6).ok_or_else(bounds)?;
        let mut fields = SecretVec::zeroed(fields_len);
        literal.read_exact(&mut chunks, 0, &mut fields)?;
        let literal_header = LiteralHeader::parse(&mut Reader::new(&fields, "literal data header"))?;
        let data_start = u64::try_from(fields_len).map_err(|_| bounds())?;
        let len = match length {
            BodyLength::Fixed(n) => {
                // A fixed length must end within the plaintext.
                let end = literal_at.checked_add(u64::from(n)).ok_or_else(bounds)?;
                if end > chunks.len() {
                    return Err(Error::malformed("literal data longer than the encrypted data"));
                }
                Some(u64::from(n).checked_sub(data_start).ok_or(Error::Truncated("literal data header"))?)
            }
            BodyLength::Partial(_) => None,
        };
        Ok(Self {
            chunks,
            literal,
            data_start,
            len,
            pos: 0,
            info: LiteralInfo::from_header(&literal_header),
            one_pass,
            signatures,
            end_checked: false,
            sym: header.sym,
            aead: header.aead,
            session_key,
            decrypted_with,
        })
    }

    /// Format, file name and date of the literal data (not covered by any signature).
    #[must_use]
    pub fn literal(&self) -> &LiteralInfo {
        &self.info
    }

    /// The plaintext's length. For a message with partial lengths inside the encryption this
    /// decrypts the chunks not read yet up to the end, once.
    ///
    /// # Errors
    /// As [`Read::read`], as an [`Error`].
    pub fn len(&mut self) -> Result<u64> {
        if let Some(len) = self.len {
            return Ok(len);
        }
        let (body, _) = self.literal.end(&mut self.chunks)?;
        let len = body.checked_sub(self.data_start).ok_or(Error::Truncated("literal data header"))?;
        self.len = Some(len);
        Ok(len)
    }

    /// Whether the plaintext is empty (see [`len`](Self::len)).
    ///
    /// # Errors
    /// As [`len`](Self::len).
    pub fn is_empty(&mut self) -> Result<bool> {
        self.len().map(|n| n == 0)
    }

    /// Checks the end of the message once: the last chunk and the final tag, and the packets
    /// after the literal data (signatures, padding; as many signatures as One-Pass
    /// Signatures).
    fn check_end(&mut self) -> Result<()> {
        if self.end_checked {
            return Ok(());
        }
        self.chunks.check_end()?;
        let (_, literal_end) = self.literal.end(&mut self.chunks)?;
        let mut packets = Packets::new(&mut self.chunks, literal_end);
        let mut after = 0usize;
        while let Some(h) = packets.header()? {
            match h.tag {
                Tag::Signature => after = after.checked_add(1).ok_or_else(bounds)?,
                tag if skippable(tag) => {}
                _ => return Err(Error::malformed("encrypted message: packet after the literal data")),
            }
            let BodyLength::Fixed(len) = h.length else {
                return Err(Error::malformed("partial body length on a non-data packet"));
            };
            packets.skip(len)?;
        }
        if after != self.one_pass {
            return Err(Error::malformed("signed message: signatures do not match the one-pass signatures"));
        }
        self.signatures = self.signatures.saturating_add(after);
        self.end_checked = true;
        Ok(())
    }

    /// Authenticates the whole message (see the type's docs), wherever the reader is, and
    /// returns what it found.
    ///
    /// # Errors
    /// `Decrypt` if the last chunk or the final tag does not verify (a truncated or altered
    /// message); `Truncated` or `Malformed` for framing that ends early or lies; I/O errors.
    pub fn finish(mut self) -> Result<SeekSummary> {
        self.check_end()?;
        let len = self.len()?;
        Ok(SeekSummary {
            literal: self.info,
            sym: self.sym,
            aead: self.aead,
            session_key: self.session_key,
            decrypted_with: self.decrypted_with,
            unchecked_signatures: self.signatures,
            len,
        })
    }

    fn read_inner(&mut self, out: &mut [u8]) -> Result<usize> {
        if out.is_empty() {
            return Ok(0);
        }
        let body_pos = self.data_start.checked_add(self.pos).ok_or_else(bounds)?;
        let Some((at, left)) = self.literal.locate(&mut self.chunks, body_pos)? else {
            // At or after the end: `Ok(0)` only once the whole message is authenticated.
            self.check_end()?;
            return Ok(0);
        };
        let cap = usize::try_from(left).unwrap_or(usize::MAX).min(out.len());
        let n = self.chunks.read_at(at, out.get_mut(..cap).ok_or_else(bounds)?)?;
        if n == 0 {
            return Err(Error::Truncated("literal data"));
        }
        self.pos = self.pos.checked_add(u64::try_from(n).map_err(|_| bounds())?).ok_or_else(bounds)?;
        Ok(n)
    }
}

/// Packets the grammar allows around the literal data and that carry nothing to check:
/// Padding, Marker, and unknown non-critical packets (RFC 9580 §4.3).
fn skippable(tag: Tag) -> bool {
    match tag {
        Tag::Padding | Tag::Marker => true,
        other => (40..=63).contains(&u8::from(other)),
    }
}

impl<R: Read + Seek> Read for SeekableReader<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        Ok(self.read_inner(out)?)
    }
}

impl<R: Read + Seek> Seek for SeekableReader<R> {
    /// Moves to an offset of the plaintext. Seeking from the end needs its length (see
    /// [`len`](SeekableReader::len)). A position after the end is allowed, as for a file;
    /// reads there return `Ok(0)` once the message is authenticated.
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        let new = match to {
            SeekFrom::Start(n) => Some(n),
            SeekFrom::Current(d) => self.pos.checked_add_signed(d),
            SeekFrom::End(d) => self.len()?.checked_add_signed(d),
        };
        let new = new.ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "seek before the start"))?;
        self.pos = new;
        Ok(new)
    }

    fn stream_position(&mut self) -> io::Result<u64> {
        Ok(self.pos)
    }
}

#[cfg(test)]
#[allow(
    clippy::arithmetic_side_effects,
    clippy::cast_possible_truncation,
    reason = "offsets and lengths of test messages of at most a few hundred KiB"
)]
mod tests;

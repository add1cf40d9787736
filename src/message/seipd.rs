//! The SEIPDv2 chunk engine (RFC 9580 §5.13.2): key derivation, per-chunk AEAD, the final tag,
//! and the streaming [`SeipdWriter`] / [`SeipdReader`].
//!
//! <https://www.rfc-editor.org/rfc/rfc9580#section-5.13.2>
//!
//! [`ChunkCipher`] is pure (no I/O, `&self` only), so several chunks can later be processed in
//! parallel; the adapters only move bytes and keep the chunk index and total length.

use std::io::{self, BufRead, Read, Write};

use zeroize::Zeroizing;

use crate::crypto::aead::{AeadCipher, TAG_LEN};
use crate::crypto::hkdf;
use crate::crypto::secret::SessionKey;
use crate::crypto::{AeadAlgorithm, SymmetricAlgorithm};
use crate::error::{Error, Result, Unsupported};
use crate::packet::seipd::SeipdHeader;

/// Largest HKDF output: a 32-octet key and an 8-octet IV (EAX).
const MAX_OKM_LEN: usize = 40;
/// Octets of the chunk index at the end of each nonce.
const INDEX_LEN: usize = 8;

/// Derives the message key and IV prefix (RFC 9580 §5.13.2).
///
/// ```text
/// HKDF-SHA256(IKM = session key, salt = packet salt,
///             info = 0xD2 ‖ version ‖ cipher ‖ AEAD mode ‖ chunk size octet)
///   → message key (key length of the cipher) ‖ IV (nonce length − 8 octets)
/// ```
///
/// Returns the whole HKDF output and the key length.
///
/// # Errors
/// `Unsupported` for an unknown cipher or AEAD mode.
pub(crate) fn derive_keys(session_key: &[u8], header: &SeipdHeader) -> Result<(Zeroizing<Vec<u8>>, usize)> {
    let key_len =
        header.sym.key_len().ok_or(Error::Unsupported(Unsupported::SymmetricAlgorithm(header.sym.into())))?;
    let iv_len = header
        .aead
        .nonce_len()
        .and_then(|n| n.checked_sub(INDEX_LEN))
        .ok_or(Error::Unsupported(Unsupported::AeadAlgorithm(header.aead.into())))?;
    let okm_len = key_len
        .checked_add(iv_len)
        .filter(|&n| n <= MAX_OKM_LEN)
        .ok_or(Error::InvalidArgument("HKDF length"))?;
    let mut okm = Zeroizing::new(vec![0u8; okm_len]);
    hkdf::sha256(&header.salt, session_key, &header.associated_data(), &mut okm)?;
    Ok((okm, key_len))
}

/// The keyed per-message state: one AEAD cipher, the IV and the associated data.
#[derive(Debug)]
pub(crate) struct ChunkCipher {
    cipher: AeadCipher,
    /// IV ‖ space for the chunk index; only the first `nonce_len` octets are used.
    iv: [u8; 16],
    nonce_len: usize,
    /// The five header octets ‖ room for the total length (final tag only).
    ad: [u8; 13],
    chunk_size: usize,
}

impl ChunkCipher {
    /// Derives the message key and IV for `header` from `session_key`.
    ///
    /// # Errors
    /// `Unsupported` for an unknown cipher or AEAD mode; `InvalidArgument` if the session key
    /// does not have the cipher's key length.
    pub(crate) fn new(session_key: &SessionKey, header: &SeipdHeader) -> Result<Self> {
        if header.sym.key_len() != Some(session_key.as_bytes().len()) && header.sym.key_len().is_some() {
            return Err(Error::InvalidArgument("session key length does not match the cipher"));
        }
        let (okm, key_len) = derive_keys(session_key.as_bytes(), header)?;
        let (message_key, iv_part) =
            okm.split_at_checked(key_len).ok_or(Error::InvalidArgument("HKDF length"))?;
        let cipher = AeadCipher::new(header.sym, header.aead, message_key)?;
        let mut iv = [0u8; 16];
        iv.get_mut(..iv_part.len()).ok_or(Error::InvalidArgument("IV length"))?.copy_from_slice(iv_part);
        let nonce_len = iv_part.len().checked_add(INDEX_LEN).ok_or(Error::InvalidArgument("IV length"))?;
        let mut ad = [0u8; 13];
        let (head, _) = ad.split_first_chunk_mut::<5>().ok_or(Error::InvalidArgument("AD length"))?;
        *head = header.associated_data();
        Ok(Self { cipher, iv, nonce_len, ad, chunk_size: header.chunk_size() })
    }

    /// The chunk size in octets.
    pub(crate) fn chunk_size(&self) -> usize {
        self.chunk_size
    }

    /// The nonce for `index`: IV ‖ index as a big-endian u64 (RFC 9580 §5.13.2).
    fn nonce(&self, index: u64) -> Result<[u8; 16]> {
        let mut nonce = self.iv;
        let iv_len = self.nonce_len.checked_sub(INDEX_LEN).ok_or(Error::InvalidArgument("nonce length"))?;
        nonce
            .get_mut(iv_len..self.nonce_len)
            .ok_or(Error::InvalidArgument("nonce length"))?
            .copy_from_slice(&index.to_be_bytes());
        Ok(nonce)
    }

    fn nonce_slice(nonce: &[u8; 16], len: usize) -> Result<&[u8]> {
        nonce.get(..len).ok_or(Error::InvalidArgument("nonce length"))
    }

    fn chunk_ad(&self) -> &[u8] {
        let (head, _) = self.ad.split_at(5);
        head
    }

    fn final_ad(&self, total: u64) -> [u8; 13] {
        let mut ad = self.ad;
        let (_, tail) = ad.split_at_mut(5);
        tail.copy_from_slice(&total.to_be_bytes());
        ad
    }

    /// Encrypts chunk number `index` in place and returns its tag.
    ///
    /// # Errors
    /// `InvalidArgument` if `buf` is longer than a chunk.
    pub(crate) fn encrypt_chunk(&self, index: u64, buf: &mut [u8]) -> Result<[u8; TAG_LEN]> {
        if buf.len() > self.chunk_size {
            return Err(Error::InvalidArgument("chunk too long"));
        }
        let nonce = self.nonce(index)?;
        self.cipher.encrypt_in_place(Self::nonce_slice(&nonce, self.nonce_len)?, self.chunk_ad(), buf)
    }

    /// Decrypts chunk number `index` in place after checking `tag`; `buf` is wiped on failure.
    ///
    /// # Errors
    /// `Decrypt` if the tag does not verify.
    pub(crate) fn decrypt_chunk(&self, index: u64, buf: &mut [u8], tag: &[u8; TAG_LEN]) -> Result<()> {
        let nonce = self.nonce(index)?;
        self.cipher.decrypt_in_place(Self::nonce_slice(&nonce, self.nonce_len)?, self.chunk_ad(), buf, tag)
    }

    /// The final tag: the AEAD of the empty string with the nonce for `chunk_count` and
    /// AD = the five header octets ‖ `total` (plaintext octets) as a big-endian u64.
    ///
    /// # Errors
    /// None in practice (the inputs are fixed-size).
    pub(crate) fn final_tag(&self, chunk_count: u64, total: u64) -> Result<[u8; TAG_LEN]> {
        let nonce = self.nonce(chunk_count)?;
        self.cipher.encrypt_in_place(
            Self::nonce_slice(&nonce, self.nonce_len)?,
            &self.final_ad(total),
            &mut [],
        )
    }

    /// Checks the final tag.
    ///
    /// # Errors
    /// `Decrypt` if it does not verify.
    pub(crate) fn verify_final_tag(&self, chunk_count: u64, total: u64, tag: &[u8; TAG_LEN]) -> Result<()> {
        let nonce = self.nonce(chunk_count)?;
        self.cipher.decrypt_in_place(
            Self::nonce_slice(&nonce, self.nonce_len)?,
            &self.final_ad(total),
            &mut [],
            tag,
        )
    }
}

fn poisoned() -> io::Error {
    Error::InvalidArgument("stream used after an error").into()
}

/// Streams plaintext into SEIPDv2 fields and chunks (the packet *body*; wrap `inner` in a
/// `PartialBodyWriter` for the framing).
///
/// Each chunk is encrypted in place as soon as it is full and written in one call. `finish`
/// writes the last (short, non-empty) chunk and the final tag. Dropping without `finish` does no
/// I/O; the output then fails to decrypt.
#[derive(Debug)]
#[must_use = "call finish() to write the final tag"]
pub(crate) struct SeipdWriter<W: Write> {
    inner: W,
    cipher: ChunkCipher,
    /// Plaintext of the current chunk; capacity chunk + tag, allocated once.
    buf: Zeroizing<Vec<u8>>,
    chunk_index: u64,
    total: u64,
    poisoned: bool,
}

impl<W: Write> SeipdWriter<W> {
    /// Writes the SEIPDv2 fields (version, `sym`, `aead`, `chunk_size_octet`, `salt`) to `inner`
    /// and returns a writer for the plaintext.
    ///
    /// # Errors
    /// `Unsupported` for a cipher or mode this crate lacks, `Malformed`-free but
    /// `InvalidArgument` for a chunk size octet over 16 or a session key of the wrong length;
    /// I/O errors of `inner`.
    pub(crate) fn new(
        mut inner: W,
        session_key: &SessionKey,
        sym: SymmetricAlgorithm,
        aead: AeadAlgorithm,
        chunk_size_octet: u8,
        salt: [u8; 32],
    ) -> Result<Self> {
        if chunk_size_octet > crate::packet::seipd::MAX_CHUNK_SIZE_OCTET {
            return Err(Error::InvalidArgument("chunk size octet above 16"));
        }
        let header = SeipdHeader { sym, aead, chunk_size_octet, salt };
        let cipher = ChunkCipher::new(session_key, &header)?;
        let capacity =
            cipher.chunk_size().checked_add(TAG_LEN).ok_or(Error::InvalidArgument("chunk size"))?;
        header.write_to(&mut inner)?;
        Ok(Self {
            inner,
            cipher,
            buf: Zeroizing::new(Vec::with_capacity(capacity)),
            chunk_index: 0,
            total: 0,
            poisoned: false,
        })
    }

    /// Encrypts the buffered plaintext as chunk `chunk_index` and writes it with its tag.
    fn write_chunk(&mut self) -> Result<()> {
        let len = u64::try_from(self.buf.len()).map_err(|_| Error::InvalidArgument("chunk size"))?;
        let tag = self.cipher.encrypt_chunk(self.chunk_index, &mut self.buf)?;
        // Within capacity: the buffer holds at most one chunk and has room for the tag.
        self.buf.extend_from_slice(&tag);
        self.inner.write_all(&self.buf)?;
        self.buf.clear();
        self.chunk_index =
            self.chunk_index.checked_add(1).ok_or(Error::InvalidArgument("too many chunks"))?;
        self.total = self.total.checked_add(len).ok_or(Error::InvalidArgument("message too long"))?;
        Ok(())
    }

    fn write_inner(&mut self, data: &[u8]) -> Result<usize> {
        let space = self.cipher.chunk_size().saturating_sub(self.buf.len());
        let n = space.min(data.len());
        let (head, _) = data.split_at_checked(n).ok_or(Error::InvalidArgument("write length"))?;
        self.buf.extend_from_slice(head);
        if self.buf.len() >= self.cipher.chunk_size() {
            self.write_chunk()?;
        }
        Ok(n)
    }

    /// Writes the last chunk (if non-empty) and the final tag, flushes, and returns `inner`.
    ///
    /// # Errors
    /// I/O errors of `inner`, or an earlier error.
    pub(crate) fn finish(mut self) -> Result<W> {
        if self.poisoned {
            return Err(Error::from_io(poisoned()));
        }
        if !self.buf.is_empty() {
            self.write_chunk()?;
        }
        let tag = self.cipher.final_tag(self.chunk_index, self.total)?;
        self.inner.write_all(&tag)?;
        self.inner.flush()?;
        Ok(self.inner)
    }
}

impl<W: Write> Write for SeipdWriter<W> {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        if self.poisoned {
            return Err(poisoned());
        }
        if data.is_empty() {
            return Ok(0);
        }
        self.write_inner(data).map_err(|e| {
            self.poisoned = true;
            e.into()
        })
    }

    /// Flushes `inner`; never writes a short chunk.
    fn flush(&mut self) -> io::Result<()> {
        if self.poisoned {
            return Err(poisoned());
        }
        self.inner.flush()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// More chunks may follow.
    Reading,
    /// The final tag verified; what is left in the plaintext window is the end.
    Done,
    /// An error happened; every further read fails.
    Failed,
}

/// Streams SEIPDv2 chunks (the packet body after the fields [`SeipdHeader`] reads) into
/// authenticated plaintext.
///
/// It reads ahead one chunk and two tags and decides that a chunk is the last one only at EOF
/// (STYLE §7). Plaintext is released only after its chunk's tag verified; the last chunk is
/// released only after the final tag verified too. `Ok(0)` means the whole packet body was
/// authenticated; truncation anywhere is an error.
#[derive(Debug)]
pub(crate) struct SeipdReader<R: Read> {
    inner: R,
    cipher: ChunkCipher,
    /// Fixed buffer of chunk + 2 tags.
    buf: Zeroizing<Vec<u8>>,
    /// Octets of `buf` holding data read from `inner` (ciphertext or, after decryption,
    /// plaintext and look-ahead).
    filled: usize,
    /// Octets at the front of `buf` belonging to the current (decrypted) chunk and its tag;
    /// the look-ahead after them moves to the front on the next refill.
    consumed: usize,
    /// Plaintext window `buf[pos..end]`.
    pos: usize,
    end: usize,
    chunk_index: u64,
    total: u64,
    state: State,
}

impl<R: Read> SeipdReader<R> {
    /// A reader over the chunks that follow `header` in `inner`.
    ///
    /// # Errors
    /// `Unsupported` for an unknown cipher or AEAD mode; `Decrypt` if the session key does not
    /// have the cipher's key length.
    pub(crate) fn new(inner: R, session_key: &SessionKey, header: &SeipdHeader) -> Result<Self> {
        let cipher = ChunkCipher::new(session_key, header).map_err(|e| match e {
            Error::InvalidArgument(_) => Error::Decrypt,
            other => other,
        })?;
        let size =
            cipher.chunk_size().checked_add(2 * TAG_LEN).ok_or(Error::InvalidArgument("chunk size"))?;
        Ok(Self {
            inner,
            cipher,
            buf: Zeroizing::new(vec![0u8; size]),
            filled: 0,
            consumed: 0,
            pos: 0,
            end: 0,
            chunk_index: 0,
            total: 0,
            state: State::Reading,
        })
    }

    /// The inner reader (positioned after the packet body once `read` returned `Ok(0)`).
    pub(crate) fn into_inner(self) -> R {
        self.inner
    }

    /// True once the final tag has been verified.
    pub(crate) fn is_done(&self) -> bool {
        self.state == State::Done
    }

    fn bounds() -> Error {
        Error::InvalidArgument("SEIPD reader: buffer bounds")
    }

    /// Counts a decrypted chunk of `len` octets.
    fn advance(&mut self, len: usize) -> Result<()> {
        let len = u64::try_from(len).map_err(|_| Self::bounds())?;
        self.chunk_index =
            self.chunk_index.checked_add(1).ok_or(Error::malformed("SEIPD: too many chunks"))?;
        self.total = self.total.checked_add(len).ok_or(Error::malformed("SEIPD: too long"))?;
        Ok(())
    }

    /// Reads until the buffer is full or `inner` is at EOF; returns true at EOF.
    fn fill(&mut self) -> Result<bool> {
        while self.filled < self.buf.len() {
            let dst = self.buf.get_mut(self.filled..).ok_or_else(Self::bounds)?;
            match self.inner.read(dst) {
                Ok(0) => return Ok(true),
                Ok(n) => {
                    self.filled = self
                        .filled
                        .checked_add(n)
                        .filter(|&f| f <= self.buf.len())
                        .ok_or_else(Self::bounds)?;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(Error::from_io(e)),
            }
        }
        Ok(false)
    }

    /// Decrypts the next chunk into the plaintext window, or verifies the final tag.
    fn refill(&mut self) -> Result<()> {
        // Move the look-ahead that followed the previous chunk to the front.
        if self.consumed > 0 {
            if self.consumed > self.filled {
                return Err(Self::bounds());
            }
            self.buf.copy_within(self.consumed..self.filled, 0);
            self.filled = self.filled.checked_sub(self.consumed).ok_or_else(Self::bounds)?;
            self.consumed = 0;
        }
        let eof = self.fill()?;
        let chunk_size = self.cipher.chunk_size();
        if !eof {
            // A full chunk and its tag, with at least a tag after them: not the last chunk
            // decision yet, but certainly a full one.
            let (ct, rest) = self.buf.split_at_mut_checked(chunk_size).ok_or_else(Self::bounds)?;
            let tag = *rest.first_chunk::<TAG_LEN>().ok_or_else(Self::bounds)?;
            self.cipher.decrypt_chunk(self.chunk_index, ct, &tag)?;
            self.advance(chunk_size)?;
            self.pos = 0;
            self.end = chunk_size;
            self.consumed = chunk_size.checked_add(TAG_LEN).ok_or_else(Self::bounds)?;
            return Ok(());
        }
        // At EOF with n octets buffered (STYLE §7).
        let n = self.filled;
        if n < TAG_LEN {
            return Err(Error::Truncated("SEIPD: final tag"));
        }
        if n == TAG_LEN {
            let tag = *self.buf.first_chunk::<TAG_LEN>().ok_or_else(Self::bounds)?;
            self.cipher.verify_final_tag(self.chunk_index, self.total, &tag)?;
            self.pos = 0;
            self.end = 0;
            self.state = State::Done;
            return Ok(());
        }
        let len =
            n.checked_sub(2 * TAG_LEN).filter(|&l| l > 0).ok_or(Error::malformed("SEIPD: empty chunk"))?;
        let (ct, rest) = self.buf.split_at_mut_checked(len).ok_or_else(Self::bounds)?;
        let (tag, rest) = rest.split_first_chunk::<TAG_LEN>().ok_or_else(Self::bounds)?;
        let final_tag = *rest.first_chunk::<TAG_LEN>().ok_or_else(Self::bounds)?;
        self.cipher.decrypt_chunk(self.chunk_index, ct, tag)?;
        self.advance(len)?;
        if let Err(e) = self.cipher.verify_final_tag(self.chunk_index, self.total, &final_tag) {
            // Do not leave the authenticated-but-unfinished last chunk in the buffer.
            if let Some(pt) = self.buf.get_mut(..len) {
                zeroize::Zeroize::zeroize(pt);
            }
            return Err(e);
        }
        self.pos = 0;
        self.end = len;
        self.consumed = n;
        self.state = State::Done;
        Ok(())
    }
}

impl<R: Read> BufRead for SeipdReader<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        loop {
            match self.state {
                State::Failed => return Err(poisoned()),
                _ if self.pos < self.end => break,
                State::Done => return Ok(&[]),
                State::Reading => {
                    if let Err(e) = self.refill() {
                        self.state = State::Failed;
                        return Err(e.into());
                    }
                }
            }
        }
        self.buf.get(self.pos..self.end).ok_or_else(|| Self::bounds().into())
    }

    fn consume(&mut self, amt: usize) {
        self.pos = self.pos.saturating_add(amt).min(self.end);
    }
}

impl<R: Read> Read for SeipdReader<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        if out.is_empty() {
            return Ok(0);
        }
        let available = self.fill_buf()?;
        let n = available.len().min(out.len());
        if let (Some(dst), Some(src)) = (out.get_mut(..n), available.get(..n)) {
            dst.copy_from_slice(src);
        }
        self.consume(n);
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::header::{Header, Tag};
    use crate::packet::partial::{PartialBodyReader, PartialBodyWriter};
    use base64::Engine as _;

    const SALT: [u8; 32] = [0x5a; 32];

    fn key(sym: SymmetricAlgorithm) -> SessionKey {
        SessionKey::from_bytes(&vec![0x42; sym.key_len().unwrap()])
    }

    /// Encrypts into a SEIPD body (fields + chunks + final tag), writing in pieces of `split`.
    fn encrypt(sym: SymmetricAlgorithm, aead: AeadAlgorithm, c: u8, data: &[u8], split: usize) -> Vec<u8> {
        let mut w = SeipdWriter::new(Vec::new(), &key(sym), sym, aead, c, SALT).unwrap();
        for piece in data.chunks(split.max(1)) {
            w.write_all(piece).unwrap();
        }
        w.finish().unwrap()
    }

    fn decrypt_with(body: &[u8], session_key: &SessionKey, byte_reads: bool) -> Result<Vec<u8>> {
        let mut src = body;
        let header = SeipdHeader::read_from(&mut src)?;
        let mut r = SeipdReader::new(src, session_key, &header)?;
        let mut out = Vec::new();
        if byte_reads {
            let mut b = [0u8; 1];
            loop {
                match r.read(&mut b).map_err(Error::from_io)? {
                    0 => break,
                    _ => out.push(b[0]),
                }
            }
        } else {
            let _ = r.read_to_end(&mut out).map_err(Error::from_io)?;
        }
        assert!(r.is_done());
        Ok(out)
    }

    fn decrypt(sym: SymmetricAlgorithm, body: &[u8]) -> Result<Vec<u8>> {
        decrypt_with(body, &key(sym), false)
    }

    fn data(len: usize) -> Vec<u8> {
        (0..len).map(|i| (i.wrapping_mul(31) >> 3).to_le_bytes()[0]).collect()
    }

    const MODES: [(SymmetricAlgorithm, AeadAlgorithm); 4] = [
        (SymmetricAlgorithm::Aes128, AeadAlgorithm::Ocb),
        (SymmetricAlgorithm::Aes256, AeadAlgorithm::Ocb),
        (SymmetricAlgorithm::Aes128, AeadAlgorithm::Gcm),
        (SymmetricAlgorithm::Aes256, AeadAlgorithm::Eax),
    ];

    #[test]
    fn round_trips_all_sizes_and_chunk_octets() {
        for (sym, aead) in MODES {
            for c in 0..=4u8 {
                let chunk = 1usize << (c + 6);
                for len in [0, 1, 15, 16, 17, chunk - 1, chunk, chunk + 1, 2 * chunk, 3 * chunk + 5] {
                    let plain = data(len);
                    let body = encrypt(sym, aead, c, &plain, 7);
                    // fields + chunks + one tag per chunk + the final tag
                    let chunks = len.div_ceil(chunk);
                    assert_eq!(body.len(), 36 + len + 16 * chunks + 16, "{aead:?} c={c} len={len}");
                    assert_eq!(decrypt(sym, &body).unwrap(), plain, "{aead:?} c={c} len={len}");
                }
            }
        }
    }

    #[test]
    fn write_splits_give_identical_ciphertext_and_byte_reads_match() {
        for (sym, aead) in MODES {
            let plain = data(64 * 3 + 20);
            let reference = encrypt(sym, aead, 0, &plain, plain.len());
            for split in [1, 2, 63, 64, 65, 100, 1000] {
                assert_eq!(encrypt(sym, aead, 0, &plain, split), reference);
            }
            assert_eq!(decrypt_with(&reference, &key(sym), true).unwrap(), plain);
        }
    }

    #[test]
    fn every_truncation_fails() {
        for (sym, aead) in MODES {
            for len in [64 * 3, 64 * 3 - 10, 0] {
                let body = encrypt(sym, aead, 0, &data(len), 64);
                for cut in 0..body.len() {
                    let r = decrypt(sym, &body[..cut]);
                    assert!(r.is_err(), "{aead:?} len {len} cut at {cut} decrypted");
                }
            }
        }
    }

    #[test]
    fn every_bit_flip_fails() {
        for (sym, aead) in MODES {
            let body = encrypt(sym, aead, 0, &data(64 * 2 + 10), 64);
            for i in 0..body.len() {
                for bit in 0..8 {
                    let mut bad = body.clone();
                    bad[i] ^= 1 << bit;
                    assert!(decrypt(sym, &bad).is_err(), "{aead:?} flip {i}.{bit}");
                }
            }
        }
    }

    #[test]
    fn short_tails_never_panic_and_are_classified() {
        for (sym, aead) in MODES {
            let header = SeipdHeader { sym, aead, chunk_size_octet: 0, salt: SALT };
            let mut fields = Vec::new();
            header.write_to(&mut fields).unwrap();
            for n in 0..=2 * TAG_LEN + 1 {
                let mut body = fields.clone();
                body.extend(std::iter::repeat_n(0xa5u8, n));
                let r = decrypt(sym, &body);
                match n {
                    0..TAG_LEN => assert!(matches!(r, Err(Error::Truncated(_))), "n={n}: {r:?}"),
                    TAG_LEN => assert!(matches!(r, Err(Error::Decrypt)), "n={n}: {r:?}"),
                    17..=32 => assert!(matches!(r, Err(Error::Malformed(_))), "n={n}: {r:?}"),
                    _ => assert!(matches!(r, Err(Error::Decrypt)), "n={n}: {r:?}"),
                }
            }
        }
    }

    #[test]
    fn errors_poison_and_wrong_keys_fail() {
        let sym = SymmetricAlgorithm::Aes128;
        let body = encrypt(sym, AeadAlgorithm::Ocb, 0, &data(300), 300);
        let mut bad = body.clone();
        bad[40] ^= 1; // first chunk
        let mut src = &bad[..];
        let header = SeipdHeader::read_from(&mut src).unwrap();
        let mut r = SeipdReader::new(src, &key(sym), &header).unwrap();
        let mut buf = [0u8; 10];
        assert!(r.read(&mut buf).is_err());
        assert!(r.read(&mut buf).is_err());
        assert_eq!(buf, [0; 10], "no unauthenticated plaintext released");
        let wrong = SessionKey::from_bytes(&[0x43; 16]);
        assert!(matches!(decrypt_with(&body, &wrong, false), Err(Error::Decrypt)));
        let short = SessionKey::from_bytes(&[0x42; 15]);
        assert!(matches!(decrypt_with(&body, &short, false), Err(Error::Decrypt)));
        assert!(SeipdWriter::new(Vec::new(), &short, sym, AeadAlgorithm::Ocb, 0, SALT).is_err());
        assert!(SeipdWriter::new(Vec::new(), &key(sym), sym, AeadAlgorithm::Ocb, 17, SALT).is_err());
        assert!(matches!(
            SeipdWriter::new(Vec::new(), &key(sym), sym, AeadAlgorithm::Unknown(7), 0, SALT),
            Err(Error::Unsupported(_))
        ));
    }

    // ---- RFC 9580 vectors ----

    fn json(text: &str) -> serde_json::Value {
        serde_json::from_str(text).unwrap()
    }

    fn hexf(json: &serde_json::Value, name: &str) -> Vec<u8> {
        hex::decode(json[name].as_str().unwrap()).unwrap()
    }

    /// Dearmors a message (no CRC line in these files).
    fn dearmor(text: &str) -> Vec<u8> {
        let b64: String = text
            .lines()
            .skip_while(|l| !l.starts_with("-----BEGIN"))
            .skip(1)
            .skip_while(|l| !l.is_empty())
            .skip(1)
            .take_while(|l| !l.starts_with("-----END") && !l.starts_with('='))
            .collect();
        base64::engine::general_purpose::STANDARD.decode(b64).unwrap()
    }

    /// Reads packets from a whole message; returns (tag, body) pairs.
    fn packets(mut bytes: &[u8]) -> Vec<(Tag, Vec<u8>)> {
        let mut out = Vec::new();
        while let Some(h) = Header::read_from(&mut bytes).unwrap() {
            let mut r = PartialBodyReader::new(&mut bytes, h.length);
            let mut body = Vec::new();
            let _ = r.read_to_end(&mut body).unwrap();
            out.push((h.tag, body));
        }
        out
    }

    /// Checks every SEIPD intermediate of an A.8–A.11 JSON and decrypts its SEIPD packet.
    fn check_seipd_vector(v: &serde_json::Value) {
        let session_key = SessionKey::from_bytes(&hexf(v, "session_key"));
        let seipd_packet = hexf(v, "seipd_packet");
        let pk = packets(&seipd_packet);
        assert_eq!(pk.len(), 1);
        assert_eq!(pk[0].0, Tag::Seipd);
        let body = &pk[0].1;
        let header = SeipdHeader::read_from(&mut &body[..]).unwrap();
        assert_eq!(header.associated_data().to_vec(), hexf(v, "hkdf_info"));
        assert_eq!(header.associated_data().to_vec(), hexf(v, "chunk0_aad"));

        // HKDF output = message key ‖ IV.
        let (okm, key_len) = derive_keys(session_key.as_bytes(), &header).unwrap();
        assert_eq!(*okm, hexf(v, "hkdf_output"));
        assert_eq!(okm[..key_len], hexf(v, "message_key"));
        assert_eq!(okm[key_len..], hexf(v, "iv"));

        // Nonces and the final AD.
        let cipher = ChunkCipher::new(&session_key, &header).unwrap();
        let nonce_len = header.aead.nonce_len().unwrap();
        assert_eq!(cipher.nonce(0).unwrap()[..nonce_len], hexf(v, "chunk0_nonce"));
        assert_eq!(cipher.nonce(1).unwrap()[..nonce_len], hexf(v, "final_nonce"));
        let plaintext = [hexf(v, "literal_data_packet"), hexf(v, "padding_packet")].concat();
        let total = u64::try_from(plaintext.len()).unwrap();
        assert_eq!(cipher.final_ad(total).to_vec(), hexf(v, "final_aad"));

        // The chunk (A.8 prints it) and the final tag, by the pure functions.
        let mut chunk = plaintext.clone();
        let tag = cipher.encrypt_chunk(0, &mut chunk).unwrap();
        chunk.extend_from_slice(&tag);
        if v.get("chunk0_encrypted").is_some() {
            assert_eq!(chunk, hexf(v, "chunk0_encrypted"));
        }
        let (after_fields, final_tag) = body[36..].split_at(chunk.len());
        assert_eq!(after_fields, chunk);
        assert_eq!(final_tag, cipher.final_tag(1, total).unwrap());

        // The streaming reader decrypts to literal ‖ padding, at any read size.
        assert_eq!(decrypt_with(body, &session_key, false).unwrap(), plaintext);
        assert_eq!(decrypt_with(body, &session_key, true).unwrap(), plaintext);

        // The streaming writer, framed, reproduces the packet byte for byte.
        let w = PartialBodyWriter::new(Vec::new(), Tag::Seipd);
        let mut w =
            SeipdWriter::new(w, &session_key, header.sym, header.aead, header.chunk_size_octet, header.salt)
                .unwrap();
        w.write_all(&plaintext).unwrap();
        assert_eq!(w.finish().unwrap().finish().unwrap(), seipd_packet);
    }

    #[test]
    fn rfc9580_a8_x25519_ocb() {
        let v =
            json(include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/a08-x25519-aead-ocb.json")));
        check_seipd_vector(&v);
        let msg = dearmor(include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/a08-x25519-aead-ocb-message.asc"
        )));
        let pk = packets(&msg);
        assert_eq!(pk.iter().map(|p| p.0).collect::<Vec<_>>(), [Tag::Pkesk, Tag::Seipd]);
        let session_key = SessionKey::from_bytes(&hexf(&v, "session_key"));
        let plain = decrypt_with(&pk[1].1, &session_key, false).unwrap();
        assert_eq!(plain, [hexf(&v, "literal_data_packet"), hexf(&v, "padding_packet")].concat());
    }

    /// A.9 (EAX), A.10 (OCB), A.11 (GCM): SKESK → session key → SEIPD → literal packet.
    #[test]
    fn rfc9580_a9_a10_a11_skesk_messages() {
        let cases = [
            (
                include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/a09-aead-eax.json")),
                include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/a09-aead-eax-message.asc")),
            ),
            (
                include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/a10-aead-ocb.json")),
                include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/a10-aead-ocb-message.asc")),
            ),
            (
                include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/a11-aead-gcm.json")),
                include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/a11-aead-gcm-message.asc")),
            ),
        ];
        for (json_text, armored) in cases {
            let v = json(json_text);
            check_seipd_vector(&v);
            let pk = packets(&dearmor(armored));
            assert_eq!(pk.iter().map(|p| p.0).collect::<Vec<_>>(), [Tag::Skesk, Tag::Seipd]);
            let skesk = crate::packet::skesk::Skesk::from_bytes(&pk[0].1).unwrap();
            let session_key =
                crate::message::skesk::decrypt_session_key(&skesk, &hexf(&v, "s2k_derived_key")).unwrap();
            assert_eq!(session_key.as_bytes(), hexf(&v, "session_key"));
            let plain = decrypt_with(&pk[1].1, &session_key, false).unwrap();
            let mut lit = crate::message::literal::LiteralReader::new(&plain[..]).unwrap();
            let mut text = Vec::new();
            let _ = lit.read_to_end(&mut text).unwrap();
            assert_eq!(text, b"Hello, world!");
            assert_eq!(lit.into_inner(), hexf(&v, "padding_packet"));
        }
    }
}

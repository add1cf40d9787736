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
pub(crate) fn derive_keys(
    session_key: &[u8],
    header: &SeipdHeader,
) -> Result<(Zeroizing<Vec<u8>>, usize)> {
    let key_len =
        header
            .sym
            .key_len()
            .ok_or(Error::Unsupported(Unsupported::SymmetricAlgorithm(
                header.sym.into(),
            )))?;
    let iv_len = header
        .aead
        .nonce_len()
        .and_then(|n| n.checked_sub(INDEX_LEN))
        .ok_or(Error::Unsupported(Unsupported::AeadAlgorithm(
            header.aead.into(),
        )))?;
    let okm_len = key_len
        .checked_add(iv_len)
        .filter(|&n| n <= MAX_OKM_LEN)
        .ok_or(Error::InvalidArgument("HKDF length"))?;
    let mut okm = Zeroizing::new(vec![0u8; okm_len]);
    hkdf::sha256(
        &header.salt,
        session_key,
        &header.associated_data(),
        &mut okm,
    )?;
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
        if header.sym.key_len() != Some(session_key.as_bytes().len())
            && header.sym.key_len().is_some()
        {
            return Err(Error::InvalidArgument(
                "session key length does not match the cipher",
            ));
        }
        let (okm, key_len) = derive_keys(session_key.as_bytes(), header)?;
        let (message_key, iv_part) = okm
            .split_at_checked(key_len)
            .ok_or(Error::InvalidArgument("HKDF length"))?;
        let cipher = AeadCipher::new(header.sym, header.aead, message_key)?;
        let mut iv = [0u8; 16];
        iv.get_mut(..iv_part.len())
            .ok_or(Error::InvalidArgument("IV length"))?
            .copy_from_slice(iv_part);
        let nonce_len = iv_part
            .len()
            .checked_add(INDEX_LEN)
            .ok_or(Error::InvalidArgument("IV length"))?;
        let mut ad = [0u8; 13];
        let (head, _) = ad
            .split_first_chunk_mut::<5>()
            .ok_or(Error::InvalidArgument("AD length"))?;
        *head = header.associated_data();
        Ok(Self {
            cipher,
            iv,
            nonce_len,
            ad,
            chunk_size: header.chunk_size(),
        })
    }

    /// The chunk size in octets.
    pub(crate) fn chunk_size(&self) -> usize {
        self.chunk_size
    }

    /// The nonce for `index`: IV ‖ index as a big-endian u64 (RFC 9580 §5.13.2).
    fn nonce(&self, index: u64) -> Result<[u8; 16]> {
        let mut nonce = self.iv;
        let iv_len = self
            .nonce_len
            .checked_sub(INDEX_LEN)
            .ok_or(Error::InvalidArgument("nonce length"))?;
        nonce
            .get_mut(iv_len..self.nonce_len)
            .ok_or(Error::InvalidArgument("nonce length"))?
            .copy_from_slice(&index.to_be_bytes());
        Ok(nonce)
    }

    fn nonce_slice(nonce: &[u8; 16], len: usize) -> Result<&[u8]> {
        nonce
            .get(..len)
            .ok_or(Error::InvalidArgument("nonce length"))
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
        self.cipher.encrypt_in_place(
            Self::nonce_slice(&nonce, self.nonce_len)?,
            self.chunk_ad(),
            buf,
        )
    }

    /// Decrypts chunk number `index` in place after checking `tag`; `buf` is wiped on failure.
    ///
    /// # Errors
    /// `Decrypt` if the tag does not verify.
    pub(crate) fn decrypt_chunk(
        &self,
        index: u64,
        buf: &mut [u8],
        tag: &[u8; TAG_LEN],
    ) -> Result<()> {
        let nonce = self.nonce(index)?;
        self.cipher.decrypt_in_place(
            Self::nonce_slice(&nonce, self.nonce_len)?,
            self.chunk_ad(),
            buf,
            tag,
        )
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
    pub(crate) fn verify_final_tag(
        &self,
        chunk_count: u64,
        total: u64,
        tag: &[u8; TAG_LEN],
    ) -> Result<()> {
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
        let header = SeipdHeader {
            sym,
            aead,
            chunk_size_octet,
            salt,
        };
        let cipher = ChunkCipher::new(session_key, &header)?;
        let capacity = cipher
            .chunk_size()
            .checked_add(TAG_LEN)
            .ok_or(Error::InvalidArgument("chunk size"))?;
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
        let len =
            u64::try_from(self.buf.len()).map_err(|_| Error::InvalidArgument("chunk size"))?;
        let tag = self.cipher.encrypt_chunk(self.chunk_index, &mut self.buf)?;
        // Within capacity: the buffer holds at most one chunk and has room for the tag.
        self.buf.extend_from_slice(&tag);
        self.inner.write_all(&self.buf)?;
        self.buf.clear();
        self.chunk_index = self
            .chunk_index
            .checked_add(1)
            .ok_or(Error::InvalidArgument("too many chunks"))?;
        self.total = self
            .total
            .checked_add(len)
            .ok_or(Error::InvalidArgument("message too long"))?;
        Ok(())
    }

    fn write_inner(&mut self, data: &[u8]) -> Result<usize> {
        let space = self.cipher.chunk_size().saturating_sub(self.buf.len());
        let n = space.min(data.len());
        let (head, _) = data
            .split_at_checked(n)
            .ok_or(Error::InvalidArgument("write length"))?;
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
        let size = cipher
            .chunk_size()
            .checked_add(2 * TAG_LEN)
            .ok_or(Error::InvalidArgument("chunk size"))?;
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
        self.chunk_index = self
            .chunk_index
            .checked_add(1)
            .ok_or(Error::malformed("SEIPD: too many chunks"))?;
        self.total = self
            .total
            .checked_add(len)
            .ok_or(Error::malformed("SEIPD: too long"))?;
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
            self.filled = self
                .filled
                .checked_sub(self.consumed)
                .ok_or_else(Self::bounds)?;
            self.consumed = 0;
        }
        let eof = self.fill()?;
        let chunk_size = self.cipher.chunk_size();
        if !eof {
            // A full chunk and its tag, with at least a tag after them: not the last chunk
            // decision yet, but certainly a full one.
            let (ct, rest) = self
                .buf
                .split_at_mut_checked(chunk_size)
                .ok_or_else(Self::bounds)?;
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
            self.cipher
                .verify_final_tag(self.chunk_index, self.total, &tag)?;
            self.pos = 0;
            self.end = 0;
            self.state = State::Done;
            return Ok(());
        }
        let len = n
            .checked_sub(2 * TAG_LEN)
            .filter(|&l| l > 0)
            .ok_or(Error::malformed("SEIPD: empty chunk"))?;
        let (ct, rest) = self
            .buf
            .split_at_mut_checked(len)
            .ok_or_else(Self::bounds)?;
        let (tag, rest) = rest
            .split_first_chunk::<TAG_LEN>()
            .ok_or_else(Self::bounds)?;
        let final_tag = *rest.first_chunk::<TAG_LEN>().ok_or_else(Self::bounds)?;
        self.cipher.decrypt_chunk(self.chunk_index, ct, tag)?;
        self.advance(len)?;
        if let Err(e) = self
            .cipher
            .verify_final_tag(self.chunk_index, self.total, &final_tag)
        {
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
        self.buf
            .get(self.pos..self.end)
            .ok_or_else(|| Self::bounds().into())
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
}

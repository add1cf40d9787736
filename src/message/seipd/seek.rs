//! [`RandomChunks`]: the plaintext of a SEIPDv2 packet at any offset, decrypting only the
//! chunks a read touches.
//!
//! Every chunk is authenticated on its own, under a nonce made from its index (RFC 9580
//! §5.13.2), so chunk `i` can be checked and decrypted without the chunks before it. Where
//! chunk `i` is in the packet body follows from the chunk size alone; only the last chunk's
//! length, and so the plaintext's, needs the body's length, which a fixed-length packet gives
//! at once and a partial-length one after its framing has been read (never its chunks).
//!
//! <https://www.rfc-editor.org/rfc/rfc9580#section-5.13.2>

use crate::crypto::aead_backend::TAG_LEN;
use crate::crypto::secret::{SecretVec, SessionKey};
use crate::error::{Error, Result};
use crate::packet::Serialize;
use crate::packet::partial::{PartIndex, ReadAt};
use crate::packet::seipd::SeipdHeader;

use super::{SeipdCipher, bounds, octets};

/// A chunk's plaintext in the reader's buffer: its index and length.
#[derive(Debug, Clone, Copy)]
struct Held {
    index: u64,
    len: usize,
}

/// Random access to the plaintext of one SEIPDv2 packet in `src`.
///
/// One chunk of ciphertext and one of plaintext are kept (the plaintext wiped on drop), and
/// the framing's checkpoints (bounded, see [`PartIndex`]); nothing else grows.
#[derive(Debug)]
pub(crate) struct RandomChunks<S: ReadAt> {
    src: S,
    framing: PartIndex,
    cipher: SeipdCipher,
    /// Body offset of the first chunk (after the fields).
    first: u64,
    chunk_size: usize,
    /// Chunks, and plaintext octets.
    chunks: u64,
    total: u64,
    sealed: Vec<u8>,
    plain: SecretVec,
    held: Option<Held>,
    /// Whether the final tag has verified.
    final_checked: bool,
}

impl<S: ReadAt> RandomChunks<S> {
    /// The SEIPDv2 fields at the start of the body `framing` describes in `src`.
    ///
    /// # Errors
    /// As [`SeipdHeader::read_from`], and `Truncated` or `Malformed` from the framing.
    pub(crate) fn header(src: &mut S, framing: &mut PartIndex) -> Result<SeipdHeader> {
        let mut fields = [0u8; 36];
        framing.read_exact(src, 0, &mut fields)?;
        SeipdHeader::read_from(&mut &fields[..])
    }

    /// Opens the chunks after `header` with `session_key`; reads the rest of the framing if
    /// the body has partial lengths, to learn its length.
    ///
    /// # Errors
    /// `Decrypt` for a session key of the wrong length; `Unsupported` for an unknown suite;
    /// `Truncated` if the body is too short for the final tag; `Malformed` if it ends with a
    /// chunk that holds no octet; errors of the framing.
    pub(crate) fn new(
        mut src: S,
        mut framing: PartIndex,
        session_key: &SessionKey,
        header: &SeipdHeader,
    ) -> Result<Self> {
        let cipher = SeipdCipher::new(session_key, header).map_err(|e| match e {
            Error::InvalidArgument(_) => Error::Decrypt,
            other => other,
        })?;
        let first = octets(header.encoded_len())?;
        let (body_len, _) = framing.end(&mut src)?;
        let tag = octets(TAG_LEN)?;
        // The chunks and their tags, between the fields and the final tag.
        let data = body_len
            .checked_sub(first)
            .and_then(|n| n.checked_sub(tag))
            .ok_or(Error::Truncated("SEIPD: final tag"))?;
        let chunk_size = cipher.chunk_size();
        let slot = octets(chunk_size)?.checked_add(tag).ok_or_else(bounds)?;
        let chunks = data.div_ceil(slot);
        // The last slot holds at least one octet and its tag.
        let last_slot = data.checked_sub(chunks.saturating_sub(1).saturating_mul(slot)).ok_or_else(bounds)?;
        if chunks > 0 && last_slot <= tag {
            return Err(Error::malformed("SEIPD: empty chunk"));
        }
        let total = data.checked_sub(chunks.saturating_mul(tag)).ok_or_else(bounds)?;
        let slot_len = usize::try_from(slot).map_err(|_| bounds())?;
        Ok(Self {
            src,
            framing,
            cipher,
            first,
            chunk_size,
            chunks,
            total,
            sealed: vec![0; slot_len],
            plain: SecretVec::zeroed(chunk_size),
            held: None,
            final_checked: false,
        })
    }

    /// The source, for tests that count what was read.
    #[cfg(test)]
    pub(crate) fn source(&self) -> &S {
        &self.src
    }

    /// Plaintext octets in the packet.
    pub(crate) fn len(&self) -> u64 {
        self.total
    }

    /// Body offset of chunk `index`'s first octet.
    fn chunk_at(&self, index: u64) -> Result<u64> {
        let slot = octets(self.chunk_size)?.checked_add(octets(TAG_LEN)?).ok_or_else(bounds)?;
        index.checked_mul(slot).and_then(|o| o.checked_add(self.first)).ok_or_else(bounds)
    }

    /// Plaintext octets in chunk `index`.
    fn chunk_len(&self, index: u64) -> Result<usize> {
        let size = octets(self.chunk_size)?;
        let before = index.checked_mul(size).ok_or_else(bounds)?;
        let len = self.total.checked_sub(before).ok_or_else(bounds)?.min(size);
        usize::try_from(len).map_err(|_| bounds())
    }

    /// Authenticates and decrypts chunk `index` into the plaintext buffer (the last chunk
    /// together with the final tag), unless it is there already.
    fn load(&mut self, index: u64) -> Result<usize> {
        if let Some(held) = self.held.filter(|h| h.index == index) {
            return Ok(held.len);
        }
        self.held = None;
        let len = self.chunk_len(index)?;
        let slot_len = len.checked_add(TAG_LEN).ok_or_else(bounds)?;
        let at = self.chunk_at(index)?;
        let sealed = self.sealed.get_mut(..slot_len).ok_or_else(bounds)?;
        self.framing.read_exact(&mut self.src, at, sealed)?;
        let (ct, tag) = sealed.split_at(len);
        let tag = tag.first_chunk::<TAG_LEN>().ok_or_else(bounds)?;
        let out = self.plain.get_mut(..len).ok_or_else(bounds)?;
        self.cipher.open_chunk_to(index, ct, out, tag)?;
        if index.checked_add(1) == Some(self.chunks)
            && let Err(e) = self.check_final_tag()
        {
            zeroize::Zeroize::zeroize(self.plain.as_mut_slice());
            return Err(e);
        }
        self.held = Some(Held { index, len });
        Ok(len)
    }

    /// Checks the final tag, which authenticates the number of chunks and the plaintext
    /// length.
    fn check_final_tag(&mut self) -> Result<()> {
        if self.final_checked {
            return Ok(());
        }
        let mut tag = [0u8; TAG_LEN];
        let at = self.chunk_at(self.chunks)?;
        let at = match self.chunks.checked_sub(1) {
            // The last chunk is shorter than a slot: the tag follows its own tag.
            Some(last) => self
                .chunk_at(last)?
                .checked_add(octets(self.chunk_len(last)?.checked_add(TAG_LEN).ok_or_else(bounds)?)?)
                .ok_or_else(bounds)?,
            None => at,
        };
        self.framing.read_exact(&mut self.src, at, &mut tag)?;
        self.cipher.open_final(self.chunks, self.total, &tag)?;
        self.final_checked = true;
        Ok(())
    }

    /// Authenticates the whole packet: the last chunk and the final tag (the chunks before
    /// were each checked when read; the final tag binds their number and the length).
    ///
    /// # Errors
    /// `Decrypt` if either does not verify; errors of the source.
    pub(crate) fn check_end(&mut self) -> Result<()> {
        match self.chunks.checked_sub(1) {
            Some(last) => self.load(last).map(|_| ()),
            None => self.check_final_tag(),
        }
    }

    /// Copies plaintext from offset `pos` into `out`, up to the end of its chunk; `Ok(0)` at
    /// or after the end of the plaintext.
    ///
    /// # Errors
    /// `Decrypt` if the chunk does not authenticate; `Truncated` if the source ends early.
    pub(crate) fn read_at(&mut self, pos: u64, out: &mut [u8]) -> Result<usize> {
        if pos >= self.total || out.is_empty() {
            return Ok(0);
        }
        let size = octets(self.chunk_size)?;
        let index = pos.checked_div(size).ok_or_else(bounds)?;
        let into = usize::try_from(pos.checked_rem(size).ok_or_else(bounds)?).map_err(|_| bounds())?;
        let len = self.load(index)?;
        let src = self.plain.get(into..len).ok_or_else(bounds)?;
        let n = src.len().min(out.len());
        out.get_mut(..n).ok_or_else(bounds)?.copy_from_slice(src.get(..n).ok_or_else(bounds)?);
        Ok(n)
    }
}

/// The plaintext, for the framing of the packets inside it.
impl<S: ReadAt> ReadAt for RandomChunks<S> {
    fn read_exact_at(&mut self, mut offset: u64, mut buf: &mut [u8]) -> Result<()> {
        while !buf.is_empty() {
            let n = self.read_at(offset, buf)?;
            if n == 0 {
                return Err(Error::Truncated("encrypted data"));
            }
            let (_, rest) = std::mem::take(&mut buf).split_at_mut(n);
            buf = rest;
            offset = offset.checked_add(octets(n)?).ok_or_else(bounds)?;
        }
        Ok(())
    }
}

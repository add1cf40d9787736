//! The keyed per-message state of SEIPDv2: key derivation, per-chunk AEAD and the final tag.
//!
//! <https://www.rfc-editor.org/rfc/rfc9580#section-5.13.2>

use crate::crypto::aead::KeyedAead;
use crate::crypto::aead_backend::TAG_LEN;
use crate::crypto::hkdf;
use crate::crypto::secret::{SecretVec, SessionKey};
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
pub(crate) fn derive_keys(session_key: &[u8], header: &SeipdHeader) -> Result<(SecretVec, usize)> {
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
    let mut okm = SecretVec::zeroed(okm_len);
    hkdf::sha256(&header.salt, session_key, &header.associated_data(), &mut okm)?;
    Ok((okm, key_len))
}

/// The keyed per-message state: one AEAD cipher, the IV and the associated data.
#[derive(Debug)]
pub(crate) struct SeipdCipher {
    cipher: KeyedAead,
    /// IV ‖ space for the chunk index; only the first `nonce_len` octets are used.
    iv: [u8; 16],
    nonce_len: usize,
    /// The five header octets ‖ room for the total length (final tag only).
    ad: [u8; 13],
    chunk_size: usize,
}

impl SeipdCipher {
    /// Derives the message key and IV for `header` from `session_key`.
    ///
    /// # Errors
    /// `Unsupported` for an unknown cipher or AEAD mode; `InvalidArgument` if the session key
    /// does not have the cipher's key length.
    pub(crate) fn new(session_key: &SessionKey, header: &SeipdHeader) -> Result<Self> {
        if header.sym.key_len() != Some(session_key.as_bytes().len()) && header.sym.key_len().is_some() {
            return Err(Error::InvalidArgument("session key length does not match the cipher"));
        }
        let _ = KeyedAead::check(header.sym, header.aead)?;
        let (okm, key_len) = derive_keys(session_key.as_bytes(), header)?;
        let (message_key, iv_part) =
            okm.split_at_checked(key_len).ok_or(Error::InvalidArgument("HKDF length"))?;
        let cipher = KeyedAead::new(header.sym, header.aead, message_key)?;
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
    pub(super) fn nonce(&self, index: u64) -> Result<[u8; 16]> {
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

    pub(super) fn final_ad(&self, total: u64) -> [u8; 13] {
        let mut ad = self.ad;
        let (_, tail) = ad.split_at_mut(5);
        tail.copy_from_slice(&total.to_be_bytes());
        ad
    }

    /// Encrypts chunk number `index` in place and returns its tag.
    ///
    /// # Errors
    /// `InvalidArgument` if `buf` is longer than a chunk.
    pub(crate) fn seal_chunk(&self, index: u64, buf: &mut [u8]) -> Result<[u8; TAG_LEN]> {
        if buf.len() > self.chunk_size {
            return Err(Error::InvalidArgument("chunk too long"));
        }
        let nonce = self.nonce(index)?;
        self.cipher.seal(Self::nonce_slice(&nonce, self.nonce_len)?, self.chunk_ad(), buf)
    }

    /// Decrypts chunk number `index` in place after checking `tag`; `buf` is wiped on failure.
    ///
    /// # Errors
    /// `Decrypt` if the tag does not verify.
    pub(crate) fn open_chunk(&self, index: u64, buf: &mut [u8], tag: &[u8; TAG_LEN]) -> Result<()> {
        let nonce = self.nonce(index)?;
        self.cipher.open(Self::nonce_slice(&nonce, self.nonce_len)?, self.chunk_ad(), buf, tag)
    }

    /// Decrypts chunk number `index` from `ct` into `out` (as long) after checking `tag`;
    /// `out` is wiped on failure.
    ///
    /// # Errors
    /// `Decrypt` if the tag does not verify.
    pub(crate) fn open_chunk_to(
        &self,
        index: u64,
        ct: &[u8],
        out: &mut [u8],
        tag: &[u8; TAG_LEN],
    ) -> Result<()> {
        let nonce = self.nonce(index)?;
        self.cipher.open_to(Self::nonce_slice(&nonce, self.nonce_len)?, self.chunk_ad(), ct, out, tag)
    }

    /// The final tag: the AEAD of the empty string with the nonce for `chunk_count` and
    /// AD = the five header octets ‖ `total` (plaintext octets) as a big-endian u64.
    ///
    /// # Errors
    /// None in practice (the inputs are fixed-size).
    pub(crate) fn seal_final(&self, chunk_count: u64, total: u64) -> Result<[u8; TAG_LEN]> {
        let nonce = self.nonce(chunk_count)?;
        self.cipher.seal(Self::nonce_slice(&nonce, self.nonce_len)?, &self.final_ad(total), &mut [])
    }

    /// Checks the final tag.
    ///
    /// # Errors
    /// `Decrypt` if it does not verify.
    pub(crate) fn open_final(&self, chunk_count: u64, total: u64, tag: &[u8; TAG_LEN]) -> Result<()> {
        let nonce = self.nonce(chunk_count)?;
        self.cipher.open(Self::nonce_slice(&nonce, self.nonce_len)?, &self.final_ad(total), &mut [], tag)
    }
}

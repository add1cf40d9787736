//! [`AeadBackend`]: the one interface of the AEAD implementations (`aead`'s RustCrypto and OCB
//! ones, and `accel`'s), so that the chunk engine does not care which runs.

use crate::error::{Error, Result};

/// The authentication tag length of every AEAD mode OpenPGP defines.
pub(crate) const TAG_LEN: usize = 16;

/// One keyed AEAD with 16-octet tags, encrypting and decrypting in place (or decrypting from
/// one buffer into another) with detached tags.
pub(super) trait AeadBackend: Send + Sync {
    /// Encrypts `buf` in place and returns the tag.
    ///
    /// # Errors
    /// `InvalidArgument` if `nonce` does not have the mode's nonce length or the input is longer
    /// than the mode allows.
    fn seal(&self, nonce: &[u8], ad: &[u8], buf: &mut [u8]) -> Result<[u8; TAG_LEN]>;

    /// Decrypts `buf` in place after checking `tag`, in constant time.
    ///
    /// # Errors
    /// `Decrypt` on any failure (bad tag, wrong nonce length, too long); `buf` is then zeroed,
    /// so that no unauthenticated plaintext escapes.
    fn open(&self, nonce: &[u8], ad: &[u8], buf: &mut [u8], tag: &[u8; TAG_LEN]) -> Result<()>;

    /// Decrypts `ct` into `out` (as long) after checking `tag`, in constant time, so that the
    /// buffer the ciphertext was read into never holds plaintext. This default copies and
    /// decrypts in place; a mode that can read one buffer and write another in the same pass
    /// does so.
    ///
    /// # Errors
    /// As [`open`](Self::open), and `Decrypt` if the lengths differ; `out` is then zeroed.
    fn open_to(&self, nonce: &[u8], ad: &[u8], ct: &[u8], out: &mut [u8], tag: &[u8; TAG_LEN]) -> Result<()> {
        if ct.len() != out.len() {
            zeroize::Zeroize::zeroize(out);
            return Err(Error::Decrypt);
        }
        out.copy_from_slice(ct);
        self.open(nonce, ad, out, tag)
    }
}

//! [`ChunkAead`]: the one interface of the AEAD implementations (`aead`'s RustCrypto and OCB
//! ones, and `accel`'s), so that the chunk engine does not care which runs.

use crate::error::Result;

/// The authentication tag length of every AEAD mode OpenPGP defines.
pub(crate) const TAG_LEN: usize = 16;

/// One keyed AEAD with 16-octet tags, encrypting and decrypting in place with detached tags.
pub(super) trait ChunkAead: Send + Sync {
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
}

//! String-to-key specifiers (RFC 9580 §3.7).
//!
//! <https://www.rfc-editor.org/rfc/rfc9580#section-3.7>

use crate::crypto::HashAlgorithm;

/// An S2K specifier.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum S2k {
    /// Type 3: iterated and salted, with the coded count octet.
    IteratedSalted { hash: HashAlgorithm, salt: [u8; 8], count: u8 },
    /// Type 4: Argon2id with passes `t`, parallelism `p` and memory exponent `m` (2^m KiB).
    Argon2 { salt: [u8; 16], t: u8, p: u8, m: u8 },
    /// Any other type (0 simple, 1 salted, 101 GnuPG, ...), kept verbatim (type octet first).
    Other(Vec<u8>),
}

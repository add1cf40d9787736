//! Bounds on every resource that input controls.
#![deny(clippy::indexing_slicing, clippy::arithmetic_side_effects)]

use crate::error::{Error, Limit, Result};

/// Bounds on every resource that an attacker-supplied input can make this crate spend.
///
/// Every limit is checked *before* the corresponding allocation or computation. Exceeding one is
/// reported as [`Error::LimitExceeded`] naming the limit.
///
/// The defaults are generous enough for every legitimate input we know of (they open the
/// RFC 9580 A.5 key, whose Argon2 parameters ask for 2 GiB) and small enough that a hostile
/// input cannot exhaust a typical machine.
///
/// | Resource | Limit (its setter is `with_` and the same name) | Default | Error |
/// |---|---|---|---|
/// | Argon2 memory | [`max_argon2_memory_kib`](Self::max_argon2_memory_kib) | 2 GiB | `Argon2Memory` |
/// | Argon2 passes | [`max_argon2_passes`](Self::max_argon2_passes) | 16 | `Argon2Passes` |
/// | Argon2 lanes | [`max_argon2_parallelism`](Self::max_argon2_parallelism) | 64 | `Argon2Parallelism` |
/// | Argon2 memory × passes | [`max_argon2_work`](Self::max_argon2_work) | 2 GiB × 1 (2^21 KiB) | `Argon2Work` |
/// | Iterated S2K octets | [`max_s2k_iterations`](Self::max_s2k_iterations) | 65011712 | `S2kIterations` |
/// | S2K runs per message | [`max_s2k_derivations`](Self::max_s2k_derivations) | 8 | `S2kDerivations` |
/// | Non-streamed packet body | [`max_packet_len`](Self::max_packet_len) | 1 MiB | `PacketLength` |
/// | PKESKs + SKESKs per message | [`max_session_key_packets`](Self::max_session_key_packets) | 1024 | `SessionKeyPackets` |
/// | Signatures per message or certificate component; their total size per message is also bounded by the packet body limit | [`max_signatures`](Self::max_signatures) | 1024 | `Signatures` |
/// | Subpackets per signature | [`max_subpackets`](Self::max_subpackets) | 512 | `Subpackets` |
/// | Armor header section | [`max_armor_header_len`](Self::max_armor_header_len) | 4096 octets | `ArmorHeaders` |
/// | Packets per certificate | [`max_cert_packets`](Self::max_cert_packets) | 100000 | `CertPackets` |
/// | Octets of one certificate or keyring read into memory | [`max_keyring_len`](Self::max_keyring_len) | 128 MiB | `KeyringLength` |
/// | S2K runs per [`Tsk::unlock`](crate::Tsk::unlock) call | [`max_unlock_derivations`](Self::max_unlock_derivations) | 16 | `UnlockDerivations` |
/// | Signed text of a cleartext-signed message | [`max_cleartext_len`](Self::max_cleartext_len) | 64 MiB | `CleartextLength` |
///
/// For a service that handles input from anyone (a key server, a web service, a mail
/// gateway), [`Limits::untrusted_input`] is a much smaller preset.
///
/// ```
/// let limits = sixpgp::Limits::default().with_max_argon2_memory_kib(64 * 1024);
/// assert_eq!(limits.max_argon2_memory_kib(), 64 * 1024);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    argon2_memory_kib: u64,
    argon2_passes: u32,
    argon2_parallelism: u32,
    argon2_work: u64,
    s2k_iterations: u64,
    s2k_derivations: usize,
    packet_len: usize,
    session_key_packets: usize,
    signatures: usize,
    subpackets: usize,
    armor_header_len: usize,
    cert_packets: usize,
    keyring_len: usize,
    unlock_derivations: usize,
    cleartext_len: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            argon2_memory_kib: 1 << 21,
            argon2_passes: 16,
            argon2_parallelism: 64,
            argon2_work: 1 << 21,
            s2k_iterations: 65_011_712,
            s2k_derivations: 8,
            packet_len: 1 << 20,
            session_key_packets: 1024,
            signatures: 1024,
            subpackets: 512,
            armor_header_len: 4096,
            cert_packets: 100_000,
            keyring_len: 128 << 20,
            unlock_derivations: 16,
            cleartext_len: 64 << 20,
        }
    }
}

impl Limits {
    /// Limits for a service that handles input from anyone (a key server, a web service, a
    /// mail gateway), where one request must not be able to take seconds of CPU or gigabytes
    /// of memory:
    ///
    /// | Limit | Value | Why |
    /// |---|---|---|
    /// | Argon2 memory | 64 MiB | RFC 9106's second recommended option (64 MiB, 3 passes), what [`Tsk::lock`](crate::Tsk::lock) uses |
    /// | Argon2 passes, lanes | 3, 4 | the same option |
    /// | Argon2 memory × passes | 192 MiB (3 × 2^16 KiB) | the same option, no more |
    /// | Iterated S2K octets | 65011712 (the default) | the largest encodable count, which other implementations use; cheap next to Argon2 |
    /// | S2K runs per message | 2 | one password tried on one or two SKESKs |
    /// | S2K runs per unlock | 4 | a primary key and a few subkeys |
    /// | Non-streamed packet body | 256 KiB | larger than any key, signature or session-key packet of the supported algorithms (a certificate with a larger packet, such as a big photo, is refused) |
    /// | PKESKs + SKESKs per message | 64 | |
    /// | Signatures per message or component | 256 | room for a user ID's third-party certifications |
    /// | Subpackets per signature | 64 | |
    /// | Armor header section | 1024 octets | |
    /// | Packets per certificate | 4096 | |
    /// | Octets of one certificate or keyring | 8 MiB | |
    /// | Cleartext-signed text | 8 MiB | the text is held in memory until its signatures are read |
    ///
    /// Keys locked with RFC 9580's first recommended Argon2 option (2 GiB, as in the RFC's A.5
    /// example) do not open under these limits; unlock such keys with the defaults, where the
    /// key is trusted.
    ///
    /// ```
    /// let limits = sixpgp::Limits::untrusted_input();
    /// assert!(limits.max_argon2_memory_kib() < sixpgp::Limits::default().max_argon2_memory_kib());
    /// ```
    #[must_use]
    pub const fn untrusted_input() -> Self {
        Self {
            argon2_memory_kib: 1 << 16,
            argon2_passes: 3,
            argon2_parallelism: 4,
            argon2_work: 3 << 16,
            s2k_iterations: 65_011_712,
            s2k_derivations: 2,
            packet_len: 256 << 10,
            session_key_packets: 64,
            signatures: 256,
            subpackets: 64,
            armor_header_len: 1024,
            cert_packets: 4096,
            keyring_len: 8 << 20,
            unlock_derivations: 4,
            cleartext_len: 8 << 20,
        }
    }
}

macro_rules! limit_accessors {
    ($($(#[$doc:meta])* $field:ident : $ty:ty, $setter:ident, $getter:ident;)*) => {
        impl Limits {
            $(
                #[doc = concat!("Sets [`", stringify!($getter), "`](Self::", stringify!($getter), ").")]
                #[must_use]
                pub const fn $setter(mut self, value: $ty) -> Self {
                    self.$field = value;
                    self
                }

                $(#[$doc])*
                #[must_use]
                pub const fn $getter(&self) -> $ty {
                    self.$field
                }
            )*
        }
    };
}

limit_accessors! {
    /// Largest Argon2 memory, in KiB (default 2 GiB, RFC 9106's first recommended option).
    argon2_memory_kib: u64, with_max_argon2_memory_kib, max_argon2_memory_kib;
    /// Largest number of Argon2 passes (default 16).
    argon2_passes: u32, with_max_argon2_passes, max_argon2_passes;
    /// Largest Argon2 degree of parallelism (default 64).
    argon2_parallelism: u32, with_max_argon2_parallelism, max_argon2_parallelism;
    /// Largest Argon2 work: memory in KiB times passes (default 2^21, 2 GiB and one pass). The
    /// time of one derivation grows with this product: both options RFC 9106 recommends fit (2
    /// GiB and one pass; 64 MiB and three), while the memory and pass limits alone would let one
    /// SKESK ask for 2 GiB and 16 passes, tens of seconds of CPU.
    argon2_work: u64, with_max_argon2_work, max_argon2_work;
    /// Largest iterated+salted S2K octet count (default: the largest encodable, 65011712).
    s2k_iterations: u64, with_max_s2k_iterations, max_s2k_iterations;
    /// Most password-based key derivations (S2K runs over SKESKs, for every password given)
    /// attempted while opening one message (default 8). Each run may cost the full Argon2 or
    /// iteration limits above, so without this bound a message with many SKESKs would multiply
    /// that cost.
    s2k_derivations: usize, with_max_s2k_derivations, max_s2k_derivations;
    /// Largest body of a packet that is read whole rather than streamed (default 1 MiB).
    packet_len: usize, with_max_packet_len, max_packet_len;
    /// Most PKESK/SKESK packets considered in one message (default 1024).
    session_key_packets: usize, with_max_session_key_packets, max_session_key_packets;
    /// Most signatures considered on one message or certificate component (default 1024).
    signatures: usize, with_max_signatures, max_signatures;
    /// Most subpackets in one signature (default 512).
    subpackets: usize, with_max_subpackets, max_subpackets;
    /// Longest armor header section, in octets (default 4096).
    armor_header_len: usize, with_max_armor_header_len, max_armor_header_len;
    /// Most packets in one certificate or secret key (default 100000).
    cert_packets: usize, with_max_cert_packets, max_cert_packets;
    /// Most octets of packet bodies in one certificate or keyring parse (default 128 MiB).
    keyring_len: usize, with_max_keyring_len, max_keyring_len;
    /// Most password-based key derivations (S2K runs) one [`Tsk::unlock`](crate::Tsk::unlock)
    /// call attempts (default 16). A key may have any number of locked subkeys, each with its
    /// own S2K at up to the Argon2 limits above; packets refused without deriving anything
    /// (unknown protection, parameters over the limits) do not count.
    unlock_derivations: usize, with_max_unlock_derivations, max_unlock_derivations;
    /// Longest signed text of a cleartext-signed message, in octets after dash-unescaping
    /// (default 64 MiB). The text is held in memory: a v6 signature's salt comes after it.
    cleartext_len: usize, with_max_cleartext_len, max_cleartext_len;
}

impl Limits {
    /// Checks a count or size against a limit.
    pub(crate) fn check(value: u64, max: u64, which: Limit) -> Result<()> {
        if value > max { Err(Error::LimitExceeded(which)) } else { Ok(()) }
    }
}

//! String-to-key derivation (RFC 9580 §3.7.1): iterated and salted (type 3) and Argon2 (type 4).
//!
//! <https://www.rfc-editor.org/rfc/rfc9580#section-3.7.1>
//!
//! Every resource the specifier asks for (hash octets, Argon2 memory, passes, lanes) is checked
//! against [`Limits`] before any work or allocation.
#![deny(clippy::indexing_slicing, clippy::arithmetic_side_effects)]

use zeroize::Zeroizing;

use crate::crypto::hash::Hasher;
use crate::crypto::secret::SecretVec;
use crate::error::{Error, Limit, Result, Unsupported};
use crate::limits::Limits;
use crate::types::HashAlgorithm;

/// An S2K specifier: which derivation, with which parameters (RFC 9580 §3.7.1). The packet
/// layer reads and writes its wire form.
#[derive(Clone, PartialEq, Eq)]
pub(crate) enum S2k {
    /// Type 3: iterated and salted, with the coded count octet.
    IteratedSalted { hash: HashAlgorithm, salt: [u8; 8], count: u8 },
    /// Type 4: Argon2id with passes `t`, parallelism `p` and memory exponent `m` (2^m KiB).
    Argon2 { salt: [u8; 16], t: u8, p: u8, m: u8 },
    /// Any other type (0 simple, 1 salted, 101 GnuPG, ...), kept verbatim (type octet first).
    Other(Vec<u8>),
}

/// The parameters without the salt: a logged salt, with the protected key beside it, is what an
/// offline attack on the password needs.
impl std::fmt::Debug for S2k {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::IteratedSalted { hash, count, .. } => f
                .debug_struct("IteratedSalted")
                .field("hash", hash)
                .field("count", count)
                .finish_non_exhaustive(),
            Self::Argon2 { t, p, m, .. } => {
                f.debug_struct("Argon2").field("t", t).field("p", p).field("m", m).finish_non_exhaustive()
            }
            Self::Other(bytes) => write!(f, "Other({} octets)", bytes.len()),
        }
    }
}

/// Decodes the coded count octet of an iterated and salted S2K into an octet count
/// (RFC 9580 §3.7.1.3): `(16 + (c & 15)) << ((c >> 4) + 6)`.
///
/// <https://www.rfc-editor.org/rfc/rfc9580#section-3.7.1.3>
pub(crate) fn count_octets(count: u8) -> u64 {
    // `16 | (c & 15)` equals `16 + (c & 15)` because the low nibble is below 16.
    let mantissa = 16 | u64::from(count & 15);
    // The exponent is at most 15 + 6 = 21, so the shift cannot overflow a u64.
    let exponent = u32::from(count.checked_shr(4).unwrap_or(0)).saturating_add(6);
    mantissa.checked_shl(exponent).unwrap_or(u64::MAX)
}

/// Longest key this module derives (two SHA2-256 contexts; any cipher key fits).
const MAX_KEY_LEN: usize = 64;

/// A derivation whose every parameter has been checked: running it can no longer fail
/// because of the specifier, only do the work.
enum Plan {
    Iterated { octets: u64 },
    Argon2(Argon2Params),
}

/// Checks everything [`derive`] would check, without deriving anything: callers validate a
/// whole protection (cipher, mode, nonce, S2K) before spending the derivation's time and memory.
///
/// # Errors
/// As [`derive`].
pub(crate) fn check(s2k: &S2k, key_len: usize, limits: &Limits) -> Result<()> {
    plan(s2k, key_len, limits).map(|_| ())
}

fn plan(s2k: &S2k, key_len: usize, limits: &Limits) -> Result<Plan> {
    if key_len == 0 || key_len > MAX_KEY_LEN {
        return Err(Error::InvalidArgument("S2K: key length"));
    }
    match s2k {
        S2k::IteratedSalted { hash, count, .. } => {
            let _ = Hasher::new(*hash)?;
            let octets = count_octets(*count);
            Limits::check(octets, limits.max_s2k_iterations(), Limit::S2kIterations)?;
            Ok(Plan::Iterated { octets })
        }
        S2k::Argon2 { t, p, m, .. } => {
            let params = Argon2Params::check(*t, *p, *m, limits)?;
            // What `argon2id` will ask of the argon2 crate (it refuses tags under 4 octets).
            let _ = argon2::Params::new(params.memory_kib, params.t, params.p, Some(key_len))
                .map_err(|_| Error::InvalidArgument("S2K: Argon2 parameters"))?;
            Ok(Plan::Argon2(params))
        }
        S2k::Other(spec) => Err(Error::Unsupported(Unsupported::S2k(spec.first().copied().unwrap_or(0)))),
    }
}

/// Derives `key_len` octets from `password` as `s2k` specifies.
///
/// # Errors
/// - `LimitExceeded` if the iteration count or an Argon2 parameter exceeds `limits`;
/// - `Malformed` for Argon2 parameters RFC 9580 §3.7.1.4 forbids (zero passes or lanes, a
///   memory exponent below `3 + ceil(log2(p))` or above 31);
/// - `Unsupported(S2k)` for any other S2K type, `Unsupported(HashAlgorithm)` for an unknown hash;
/// - `InvalidArgument` if `key_len` is 0 or above 64 (or below 4 for Argon2).
pub(crate) fn derive(s2k: &S2k, password: &[u8], key_len: usize, limits: &Limits) -> Result<SecretVec> {
    match (plan(s2k, key_len, limits)?, s2k) {
        (Plan::Iterated { octets }, S2k::IteratedSalted { hash, salt, .. }) => {
            iterated_salted(&Hasher::new(*hash)?, salt, password, octets, key_len)
        }
        (Plan::Argon2(params), S2k::Argon2 { salt, .. }) => argon2id(password, salt, &params, key_len),
        _ => Err(Error::InvalidArgument("S2K: specifier")),
    }
}

/// Iterated and salted S2K (RFC 9580 §3.7.1.3, with the multi-context rule of §3.7.1.1).
/// <https://www.rfc-editor.org/rfc/rfc9580#section-3.7.1.3>
fn iterated_salted(
    hasher: &Hasher,
    salt: &[u8; 8],
    password: &[u8],
    octets: u64,
    key_len: usize,
) -> Result<SecretVec> {
    // "the salt and the passphrase are repeatedly hashed until count octets have been hashed";
    // "If the count is less than the size of the salt plus passphrase, the full salt plus
    // passphrase are hashed" once.
    let mut unit = SecretVec::with_capacity(salt.len().saturating_add(password.len()));
    unit.extend_from_slice(salt);
    unit.extend_from_slice(password);
    let unit_len = u64::try_from(unit.len()).map_err(|_| Error::InvalidArgument("S2K: password"))?;
    let total = octets.max(unit_len);

    // A buffer of whole repetitions so the hash sees large updates (8 KiB or one unit).
    let reps = 8192usize.checked_div(unit.len()).unwrap_or(1).max(1);
    let mut block = SecretVec::with_capacity(unit.len().saturating_mul(reps));
    for _ in 0..reps {
        block.extend_from_slice(&unit);
    }
    let block_len = u64::try_from(block.len()).map_err(|_| Error::Internal("S2K"))?;

    let mut key = SecretVec::with_capacity(key_len);
    // §3.7.1.1: "If the hash size is less than the key size, multiple instances of the hash
    // context are created ... the first is preloaded with zero octets, the second with one
    // zero octet, and so forth", until enough octets exist; the leftmost octets are the key.
    let mut preload: usize = 0;
    while key.len() < key_len {
        let mut h = hasher.clone();
        for _ in 0..preload {
            h.update(&[0]);
        }
        let mut left = total;
        while left > 0 {
            let n = left.min(block_len);
            let n_usize = usize::try_from(n).map_err(|_| Error::Internal("S2K"))?;
            h.update(block.get(..n_usize).ok_or(Error::Internal("S2K"))?);
            // n ≤ left by construction.
            left = left.saturating_sub(n);
        }
        let digest = Zeroizing::new(h.finish());
        let need = key_len.saturating_sub(key.len()).min(digest.len());
        key.extend_from_slice(digest.get(..need).ok_or(Error::Internal("S2K"))?);
        preload = preload.checked_add(1).ok_or(Error::Internal("S2K"))?;
    }
    Ok(key)
}

/// Checked Argon2 parameters.
#[derive(Debug)]
struct Argon2Params {
    t: u32,
    p: u32,
    /// Memory in KiB, `2^m`.
    memory_kib: u32,
}

impl Argon2Params {
    /// RFC 9580 §3.7.1.4 bounds and the caller's limits, checked before anything is allocated.
    fn check(t: u8, p: u8, m: u8, limits: &Limits) -> Result<Self> {
        let (t, p) = (u32::from(t), u32::from(p));
        // Memory 2^m KiB, computed without overflow.
        let memory_kib = 1u64.checked_shl(u32::from(m)).filter(|_| m < 64);
        let memory_kib = memory_kib.ok_or(Error::LimitExceeded(Limit::Argon2Memory))?;
        Limits::check(memory_kib, limits.max_argon2_memory_kib(), Limit::Argon2Memory)?;
        Limits::check(u64::from(t), u64::from(limits.max_argon2_passes()), Limit::Argon2Passes)?;
        Limits::check(u64::from(p), u64::from(limits.max_argon2_parallelism()), Limit::Argon2Parallelism)?;
        Limits::check(memory_kib.saturating_mul(u64::from(t)), limits.max_argon2_work(), Limit::Argon2Work)?;
        // "The number of passes t and the degree of parallelism p MUST be non-zero. The memory
        // size m ... MUST be a value from 3+ceil(log2(p)) to 31", i.e. 2^m ≥ 8p.
        if t == 0 {
            return Err(Error::malformed("S2K: Argon2 passes is zero"));
        }
        if p == 0 {
            return Err(Error::malformed("S2K: Argon2 parallelism is zero"));
        }
        if m > 31 || memory_kib < 8 * u64::from(p) {
            return Err(Error::malformed("S2K: Argon2 memory exponent out of range"));
        }
        let memory_kib = u32::try_from(memory_kib)
            .map_err(|_| Error::malformed("S2K: Argon2 memory exponent out of range"))?;
        Ok(Self { t, p, memory_kib })
    }
}

/// Argon2id, version 0x13 (RFC 9106), as RFC 9580 §3.7.1.4 uses it: no secret, no associated
/// data, tag length `key_len`.
/// <https://www.rfc-editor.org/rfc/rfc9580#section-3.7.1.4>
fn argon2id(password: &[u8], salt: &[u8], params: &Argon2Params, key_len: usize) -> Result<SecretVec> {
    let argon_params = argon2::Params::new(params.memory_kib, params.t, params.p, Some(key_len))
        .map_err(|_| Error::InvalidArgument("S2K: Argon2 parameters"))?;
    let ctx = argon2::Argon2::new(argon2::Algorithm::Argon2id, argon2::Version::V0x13, argon_params);
    // The memory is allocated fallibly (no abort on failure) only after the limit checks, and
    // wiped when dropped: it is derived from the password.
    let blocks = ctx.params().block_count();
    let mut memory: Zeroizing<Vec<argon2::Block>> = Zeroizing::new(Vec::new());
    memory.try_reserve_exact(blocks).map_err(|_| Error::LimitExceeded(Limit::Argon2Memory))?;
    memory.resize(blocks, argon2::Block::new());
    let mut key = SecretVec::zeroed(key_len);
    ctx.hash_password_into_with_memory(password, salt, &mut key, memory.as_mut_slice())
        .map_err(|_| Error::InvalidArgument("S2K: Argon2 parameters"))?;
    Ok(key)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::HashAlgorithm;

    fn json(text: &str) -> serde_json::Value {
        serde_json::from_str(text).unwrap()
    }

    /// RFC 9580 A.9, A.10 (and the same construction in A.11): SHA2-256, count octet 0xFF.
    #[test]
    fn iterated_salted_rfc9580_vectors() {
        let files = [
            include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/a09-aead-eax.json")),
            include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/a10-aead-ocb.json")),
        ];
        for text in files {
            let v = json(text);
            let salt: [u8; 8] = hex::decode(v["s2k_salt"].as_str().unwrap()).unwrap().try_into().unwrap();
            let s2k = S2k::IteratedSalted { hash: HashAlgorithm::Sha256, salt, count: 0xff };
            let pw = v["password"].as_str().unwrap().as_bytes();
            let key = derive(&s2k, pw, 16, &Limits::default()).unwrap();
            assert_eq!(hex::encode(key.as_slice()), v["s2k_derived_key"].as_str().unwrap());
        }
        assert_eq!(count_octets(0xff), 65_011_712);
        assert_eq!(count_octets(0), 1024);
    }

    /// Cross-checks the counting and multi-context rules against a direct construction.
    #[test]
    fn iterated_salted_rules() {
        let salt = [1, 2, 3, 4, 5, 6, 7, 8];
        let s2k = S2k::IteratedSalted { hash: HashAlgorithm::Sha256, salt, count: 0 };
        // 1024 octets of (salt ‖ "pw") repeated, truncated: 102 full units and 4 octets.
        let mut stream = Vec::new();
        while stream.len() < 1024 {
            stream.extend_from_slice(&salt);
            stream.extend_from_slice(b"pw");
        }
        stream.truncate(1024);
        let first = crate::crypto::hash::sha256(&stream);
        let mut preloaded = vec![0u8];
        preloaded.extend_from_slice(&stream);
        let second = crate::crypto::hash::sha256(&preloaded);
        let key = derive(&s2k, b"pw", 48, &Limits::default()).unwrap();
        assert_eq!(&key[..32], &first);
        assert_eq!(&key[32..], &second[..16]);

        // A passphrase longer than the count is hashed once, whole.
        let long = [b'x'; 2000];
        let mut whole = salt.to_vec();
        whole.extend_from_slice(&long);
        let key = derive(&s2k, &long, 32, &Limits::default()).unwrap();
        assert_eq!(key.as_slice(), crate::crypto::hash::sha256(&whole));
    }

    #[test]
    fn iterated_salted_limits_and_errors() {
        let s2k = S2k::IteratedSalted { hash: HashAlgorithm::Sha256, salt: [0; 8], count: 0xff };
        let limits = Limits::default().with_max_s2k_iterations(1 << 20);
        assert!(matches!(derive(&s2k, b"pw", 16, &limits), Err(Error::LimitExceeded(Limit::S2kIterations))));
        let s2k = S2k::IteratedSalted { hash: HashAlgorithm::Unknown(1), salt: [0; 8], count: 0 };
        assert!(matches!(
            derive(&s2k, b"pw", 16, &Limits::default()),
            Err(Error::Unsupported(Unsupported::HashAlgorithm(1)))
        ));
        let other = S2k::Other(vec![1, 8, 0, 0, 0, 0, 0, 0, 0, 0]);
        assert!(matches!(
            derive(&other, b"pw", 16, &Limits::default()),
            Err(Error::Unsupported(Unsupported::S2k(1)))
        ));
        assert!(matches!(derive(&s2k, b"pw", 0, &Limits::default()), Err(Error::InvalidArgument(_))));
    }

    /// The Argon2 reference implementation's Argon2id v0x13 vectors (phc-winner-argon2
    /// `src/test.c`): password "password", salt "somesalt", t = 2, m = 2^8 KiB, p = 1 and 2.
    #[test]
    fn argon2id_reference_vectors() {
        let cases = [
            (1, "9dfeb910e80bad0311fee20f9c0e2b12c17987b4cac90c2ef54d5b3021c68bfe"),
            (2, "6d093c501fd5999645e0ea3bf620d7b8be7fd2db59c20d9fff9539da2bf57037"),
        ];
        for (p, want) in cases {
            let params = Argon2Params::check(2, p, 8, &Limits::default()).unwrap();
            let key = argon2id(b"password", b"somesalt", &params, 32).unwrap();
            assert_eq!(hex::encode(key.as_slice()), want);
        }
    }

    #[test]
    fn argon2_limits_are_checked_first() {
        let derive_with =
            |t, p, m, limits: &Limits| derive(&S2k::Argon2 { salt: [0; 16], t, p, m }, b"pw", 32, limits);
        let limits = Limits::default();
        // 2^31 KiB = 2 TiB: refused by the limit check, before any allocation.
        assert!(matches!(derive_with(1, 4, 31, &limits), Err(Error::LimitExceeded(Limit::Argon2Memory))));
        for m in [32, 63, 64, 200, 255] {
            assert!(matches!(derive_with(1, 4, m, &limits), Err(Error::LimitExceeded(Limit::Argon2Memory))));
        }
        assert!(matches!(
            derive_with(1, 4, 16, &limits.with_max_argon2_memory_kib(1 << 15)),
            Err(Error::LimitExceeded(Limit::Argon2Memory))
        ));
        assert!(matches!(derive_with(17, 1, 10, &limits), Err(Error::LimitExceeded(Limit::Argon2Passes))));
        // Memory times passes: 2 GiB with 16 passes (about 30 s) or with 2 are refused before
        // any allocation; RFC 9106's two recommended settings pass the check.
        for (t, m) in [(16, 21), (2, 21), (16, 18), (5, 19)] {
            assert!(
                matches!(derive_with(t, 4, m, &limits), Err(Error::LimitExceeded(Limit::Argon2Work))),
                "t {t} m {m}"
            );
        }
        for (t, m) in [(1, 21), (3, 16), (16, 17)] {
            assert!(Argon2Params::check(t, 4, m, &limits).is_ok(), "t {t} m {m}");
        }
        assert!(matches!(
            derive_with(1, 65, 16, &limits),
            Err(Error::LimitExceeded(Limit::Argon2Parallelism))
        ));
        // RFC 9580 bounds: non-zero t and p, 2^m ≥ 8p.
        assert!(matches!(derive_with(0, 1, 10, &limits), Err(Error::Malformed(_))));
        assert!(matches!(derive_with(1, 0, 10, &limits), Err(Error::Malformed(_))));
        assert!(matches!(derive_with(1, 4, 4, &limits), Err(Error::Malformed(_))));
        assert!(derive_with(1, 4, 5, &limits).is_ok());
        // A 2^31 KiB limit lets m = 32 past the limit check, but not past the RFC bound.
        let huge = limits.with_max_argon2_memory_kib(u64::MAX).with_max_argon2_work(u64::MAX);
        assert!(matches!(derive_with(1, 1, 32, &huge), Err(Error::Malformed(_))));
    }

    /// RFC 9580 A.5: Argon2id with t = 1, p = 4, m = 21 (2 GiB), the primary key's S2K output.
    /// One derivation on purpose: it allocates 2 GiB (Argon2 is optimized in the test profile);
    /// the subkey uses the same parameters with another salt.
    #[test]
    fn argon2_rfc9580_a5() {
        let v = json(include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/a05-v6-secret-key-locked.json"
        )));
        let parsed = &v["parsed_from_packets_not_listed_in_rfc_text"];
        let pw = v["passphrase"].as_str().unwrap().as_bytes();
        let salt: [u8; 16] =
            hex::decode(parsed["primary_argon2_salt"].as_str().unwrap()).unwrap().try_into().unwrap();
        let s2k = S2k::Argon2 { salt, t: 1, p: 4, m: 21 };
        let out = derive(&s2k, pw, 32, &Limits::default()).unwrap();
        assert_eq!(hex::encode(out.as_slice()), v["primary"]["s2k_derived_key"].as_str().unwrap());
    }
}

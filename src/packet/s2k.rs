//! String-to-key specifiers (RFC 9580 §3.7): their wire form. The parameters themselves are
//! `crypto::s2k::S2k`, which the derivation takes.
//!
//! <https://www.rfc-editor.org/rfc/rfc9580#section-3.7>

use std::io::{self, Write};

pub(crate) use crate::crypto::s2k::S2k;
use crate::error::{Error, Result};
use crate::packet::Serialize;
use crate::packet::reader::Reader;
use crate::types::HashAlgorithm;

/// S2K type 3, iterated and salted (RFC 9580 §3.7.1.3).
const TYPE_ITERATED_SALTED: u8 = 3;
/// S2K type 4, Argon2 (RFC 9580 §3.7.1.4).
const TYPE_ARGON2: u8 = 4;
/// Largest encoded Argon2 memory exponent: 2^31 KiB (RFC 9580 §3.7.1.4).
const ARGON2_MAX_ENCODED_M: u8 = 31;

/// ⌈log2 p⌉ for p ≥ 1.
fn ceil_log2(p: u8) -> u8 {
    // next_power_of_two of a u32 built from a u8 is at most 256; trailing_zeros is at most 8.
    let bits = u32::from(p).next_power_of_two().trailing_zeros();
    u8::try_from(bits).unwrap_or(u8::MAX)
}

impl S2k {
    /// Parses a whole S2K specifier whose length is known (v6 SKESK and secret keys carry a
    /// length octet before it).
    ///
    /// # Errors
    /// `Truncated` if it is empty or too short for its type, `Malformed` if a type 3 or 4
    /// specifier has trailing octets or invalid Argon2 parameters.
    pub(crate) fn parse(spec: &[u8]) -> Result<Self> {
        let mut r = Reader::new(spec, "S2K specifier");
        let s2k_type = r.u8()?;
        let s2k = match s2k_type {
            // Iterated and Salted S2K: type, hash algorithm, 8-octet salt, count.
            // <https://www.rfc-editor.org/rfc/rfc9580#section-3.7.1.3>
            TYPE_ITERATED_SALTED => {
                let hash = HashAlgorithm::from(r.u8()?);
                let salt = r.array::<8>()?;
                let count = r.u8()?;
                Self::IteratedSalted { hash, salt, count }
            }
            // Argon2: type, 16-octet salt, t (passes), p (parallelism), encoded_m.
            // <https://www.rfc-editor.org/rfc/rfc9580#section-3.7.1.4>
            TYPE_ARGON2 => {
                let salt = r.array::<16>()?;
                let t = r.u8()?;
                let p = r.u8()?;
                let m = r.u8()?;
                // "The number of passes t and the degree of parallelism p MUST be non-zero."
                if t == 0 || p == 0 {
                    return Err(Error::malformed("S2K specifier: Argon2 t or p is zero"));
                }
                // "The encoded memory size MUST be a value from 3+ceil(log_2(p)) to 31."
                let min_m = ceil_log2(p).saturating_add(3);
                if m < min_m || m > ARGON2_MAX_ENCODED_M {
                    return Err(Error::malformed("S2K specifier: Argon2 memory size out of range"));
                }
                Self::Argon2 { salt, t, p, m }
            }
            _ => return Ok(Self::Other(spec.to_vec())),
        };
        r.finish()?;
        Ok(s2k)
    }
}

/// The specifier, without a length octet.
impl Serialize for S2k {
    type Buf = Vec<u8>;

    fn write_to(&self, w: &mut (impl Write + ?Sized)) -> io::Result<()> {
        match self {
            Self::IteratedSalted { hash, salt, count } => {
                w.write_all(&[TYPE_ITERATED_SALTED, u8::from(*hash)])?;
                w.write_all(salt)?;
                w.write_all(&[*count])
            }
            Self::Argon2 { salt, t, p, m } => {
                w.write_all(&[TYPE_ARGON2])?;
                w.write_all(salt)?;
                w.write_all(&[*t, *p, *m])
            }
            Self::Other(raw) => w.write_all(raw),
        }
    }

    fn encoded_len(&self) -> usize {
        match self {
            Self::IteratedSalted { .. } => 11,
            Self::Argon2 { .. } => 20,
            Self::Other(raw) => raw.len(),
        }
    }
}

#[cfg(test)]
pub(super) mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::crypto::s2k::count_octets;

    /// Any S2K specifier that round-trips.
    pub(crate) fn arb_s2k() -> impl Strategy<Value = S2k> {
        prop_oneof![
            (any::<u8>(), any::<[u8; 8]>(), any::<u8>()).prop_map(|(h, salt, count)| {
                S2k::IteratedSalted { hash: HashAlgorithm::from(h), salt, count }
            }),
            (any::<[u8; 16]>(), 1u8..=255, 1u8..=255, 0u8..=31).prop_filter_map(
                "Argon2 memory too small",
                |(salt, t, p, m)| {
                    (m >= ceil_log2(p).saturating_add(3)).then_some(S2k::Argon2 { salt, t, p, m })
                }
            ),
            (any::<u8>(), proptest::collection::vec(any::<u8>(), 0..40)).prop_filter_map(
                "types 3 and 4 are parsed",
                |(ty, rest)| {
                    (ty != 3 && ty != 4).then(|| {
                        let mut raw = vec![ty];
                        raw.extend(rest);
                        S2k::Other(raw)
                    })
                }
            ),
        ]
    }

    proptest! {
        #[test]
        fn round_trip(s2k in arb_s2k()) {
            let bytes = s2k.to_vec();
            prop_assert_eq!(bytes.len(), s2k.encoded_len());
            prop_assert_eq!(S2k::parse(&bytes).unwrap(), s2k);
        }

        #[test]
        fn never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..40)) {
            let _ = S2k::parse(&bytes);
        }
    }

    #[test]
    fn count_decoding() {
        assert_eq!(count_octets(0), 1024);
        assert_eq!(count_octets(0x60), 65536);
        assert_eq!(count_octets(255), 65_011_712);
    }

    #[test]
    fn argon2_parameter_checks() {
        let mut spec = vec![4u8];
        spec.extend([0u8; 16]);
        let with = |t: u8, p: u8, m: u8| {
            let mut s = spec.clone();
            s.extend([t, p, m]);
            S2k::parse(&s)
        };
        // RFC 9580 A.5: t=1, p=4, m=21.
        assert!(with(1, 4, 21).is_ok());
        assert!(matches!(with(0, 4, 21), Err(Error::Malformed(_))));
        assert!(matches!(with(1, 0, 21), Err(Error::Malformed(_))));
        // p = 4 needs m >= 5; p = 5 needs m >= 6.
        assert!(with(1, 4, 5).is_ok());
        assert!(matches!(with(1, 4, 4), Err(Error::Malformed(_))));
        assert!(matches!(with(1, 5, 5), Err(Error::Malformed(_))));
        assert!(with(1, 1, 3).is_ok());
        assert!(matches!(with(1, 1, 32), Err(Error::Malformed(_))));
        // Trailing octet, truncation, empty.
        let mut long = spec.clone();
        long.extend([1, 1, 3, 0]);
        assert!(matches!(S2k::parse(&long), Err(Error::Malformed(_))));
        assert!(matches!(S2k::parse(&spec), Err(Error::Truncated(_))));
        assert!(matches!(S2k::parse(&[]), Err(Error::Truncated(_))));
        assert!(matches!(S2k::parse(&[3, 8, 1]), Err(Error::Truncated(_))));
    }
}

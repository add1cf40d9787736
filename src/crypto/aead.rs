//! AEAD ciphers as OpenPGP uses them (RFC 9580 §5.13.3–§5.13.5): AES-128/192/256 with EAX, OCB
//! or GCM, 16-octet tags, detached and in place.
//!
//! One [`AeadCipher`] is built per message (or per SKESK) and used for every chunk, so the key
//! schedule runs once.
//!
//! OCB is our own [`crate::crypto::ocb::Ocb`] (RFC 7253 on the `aes` crate's multi-block API,
//! faster than `ocb3` 0.2, which feeds AES one block at a time). AES-128-GCM and
//! AES-256-GCM run on `graviola` where the CPU allows ([`crate::crypto::accel`], faster);
//! otherwise, and for AES-192, on our own [`crate::crypto::gcm::Gcm`] (CTR and GHASH in
//! one pass, where `aes-gcm` makes two). EAX comes from RustCrypto.
//!
//! Zeroization: the AES key schedules are wiped on drop (the `aes` crate's `zeroize` feature,
//! and `graviola`'s own), and so are the GHASH keys and our OCB L table. `eax` 0.6 keeps
//! a copy of the raw key that it does not wipe; it gives us no way to clear it without `unsafe`.

use aes::{Aes128, Aes192, Aes256};
use eax::Eax;
use eax::aead::consts::U16;
use eax::aead::{AeadCore, AeadInOut, KeyInit};
use zeroize::Zeroize;

use crate::crypto::accel::{self, FastGcm};
use crate::crypto::gcm::Gcm;
use crate::crypto::ocb::Ocb;
use crate::crypto::{AeadAlgorithm, SymmetricAlgorithm};
use crate::error::{Error, Result, Unsupported};

/// The authentication tag length of every AEAD mode OpenPGP defines.
pub(crate) const TAG_LEN: usize = 16;

/// OCB's nonce length in OpenPGP.
const OCB_NONCE_LEN: usize = 15;

/// The concrete cipher, boxed: built once per message, and the OCB state is large.
enum Inner {
    Aes128Eax(Box<Eax<Aes128>>),
    Aes192Eax(Box<Eax<Aes192>>),
    Aes256Eax(Box<Eax<Aes256>>),
    Aes128Ocb(Box<Ocb<Aes128>>),
    Aes192Ocb(Box<Ocb<Aes192>>),
    Aes256Ocb(Box<Ocb<Aes256>>),
    Aes128Gcm(Box<Gcm<Aes128>>),
    Aes192Gcm(Box<Gcm<Aes192>>),
    Aes256Gcm(Box<Gcm<Aes256>>),
    /// AES-128-GCM or AES-256-GCM on `graviola`, where the CPU allows (see `accel`).
    FastGcm(Box<FastGcm>),
}

/// An AES-based AEAD cipher keyed once, encrypting and decrypting in place with detached
/// 16-octet tags.
pub(crate) struct AeadCipher {
    inner: Inner,
    aead: AeadAlgorithm,
}

impl std::fmt::Debug for AeadCipher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AeadCipher").field("aead", &self.aead).finish_non_exhaustive()
    }
}

fn key_init<A: KeyInit>(key: &[u8]) -> Result<A> {
    A::new_from_slice(key).map_err(|_| Error::InvalidArgument("AEAD key length"))
}

/// Encrypts `buf` in place with any RustCrypto AEAD that has 16-octet tags.
fn seal<A: AeadInOut + AeadCore<TagSize = U16>>(
    a: &A,
    nonce: &[u8],
    ad: &[u8],
    buf: &mut [u8],
) -> Result<[u8; TAG_LEN]> {
    let nonce =
        <&eax::aead::Nonce<A>>::try_from(nonce).map_err(|_| Error::InvalidArgument("AEAD nonce length"))?;
    let tag = a
        .encrypt_inout_detached(nonce, ad, buf.into())
        .map_err(|_| Error::InvalidArgument("AEAD input too long"))?;
    Ok(tag.into())
}

/// Decrypts `buf` in place; on any failure the buffer is wiped so that no unauthenticated
/// plaintext (OCB decrypts before it checks) can escape.
fn open<A: AeadInOut + AeadCore<TagSize = U16>>(
    a: &A,
    nonce: &[u8],
    ad: &[u8],
    buf: &mut [u8],
    tag: &[u8; TAG_LEN],
) -> Result<()> {
    let result = match <&eax::aead::Nonce<A>>::try_from(nonce) {
        Ok(nonce) => a.decrypt_inout_detached(nonce, ad, buf.into(), tag.into()),
        Err(_) => Err(eax::aead::Error),
    };
    result.map_err(|_| {
        buf.zeroize();
        Error::Decrypt
    })
}

/// OpenPGP's OCB nonce is exactly 15 octets (RFC 9580 §5.13.4); `Ocb` itself accepts the
/// 1..=15 octets of RFC 7253.
fn ocb_nonce(nonce: &[u8]) -> Result<&[u8]> {
    if nonce.len() == OCB_NONCE_LEN { Ok(nonce) } else { Err(Error::InvalidArgument("AEAD nonce length")) }
}

/// Runs `$ocb` for our OCB, `$gcm` for our GCM and `$e` for the RustCrypto ciphers, with `$a`
/// bound to the cipher.
macro_rules! dispatch {
    ($self:expr, $a:ident => ocb: $ocb:expr, gcm: $gcm:expr, rustcrypto: $e:expr) => {
        match &$self.inner {
            Inner::Aes128Ocb($a) => $ocb,
            Inner::Aes192Ocb($a) => $ocb,
            Inner::Aes256Ocb($a) => $ocb,
            Inner::Aes128Gcm($a) => $gcm,
            Inner::Aes192Gcm($a) => $gcm,
            Inner::Aes256Gcm($a) => $gcm,
            Inner::FastGcm($a) => $gcm,
            Inner::Aes128Eax($a) => $e,
            Inner::Aes192Eax($a) => $e,
            Inner::Aes256Eax($a) => $e,
        }
    };
}

impl AeadCipher {
    /// Whether [`AeadCipher::new`] accepts `sym` and `aead` (with a key of `sym`'s length), and
    /// the nonce length of `aead`: callers check a protection before deriving its key.
    ///
    /// # Errors
    /// As [`AeadCipher::new`] for the algorithms.
    pub(crate) fn check(sym: SymmetricAlgorithm, aead: AeadAlgorithm) -> Result<usize> {
        if let SymmetricAlgorithm::Unknown(s) = sym {
            return Err(Error::Unsupported(Unsupported::SymmetricAlgorithm(s)));
        }
        // Every known cipher (AES) is implemented with every known mode.
        aead.nonce_len().ok_or(Error::Unsupported(Unsupported::AeadAlgorithm(aead.into())))
    }

    /// Keys `aead` over `sym` with `key`.
    ///
    /// # Errors
    /// `Unsupported(SymmetricAlgorithm|AeadAlgorithm)` for anything but AES with EAX, OCB or GCM;
    /// `InvalidArgument` if `key` does not have the cipher's key length.
    pub(crate) fn new(sym: SymmetricAlgorithm, aead: AeadAlgorithm, key: &[u8]) -> Result<Self> {
        let unsupported_aead = || Error::Unsupported(Unsupported::AeadAlgorithm(aead.into()));
        // `accel::gcm` takes AES-128 and AES-256 keys only; AES-192 goes to our own GCM below.
        if aead == AeadAlgorithm::Gcm
            && Some(key.len()) == sym.key_len()
            && let Some(fast) = accel::gcm(key)
        {
            return Ok(Self { inner: Inner::FastGcm(fast), aead });
        }
        let inner = match (sym, aead) {
            (SymmetricAlgorithm::Aes128, AeadAlgorithm::Eax) => Inner::Aes128Eax(Box::new(key_init(key)?)),
            (SymmetricAlgorithm::Aes192, AeadAlgorithm::Eax) => Inner::Aes192Eax(Box::new(key_init(key)?)),
            (SymmetricAlgorithm::Aes256, AeadAlgorithm::Eax) => Inner::Aes256Eax(Box::new(key_init(key)?)),
            (SymmetricAlgorithm::Aes128, AeadAlgorithm::Ocb) => Inner::Aes128Ocb(Box::new(Ocb::new(key)?)),
            (SymmetricAlgorithm::Aes192, AeadAlgorithm::Ocb) => Inner::Aes192Ocb(Box::new(Ocb::new(key)?)),
            (SymmetricAlgorithm::Aes256, AeadAlgorithm::Ocb) => Inner::Aes256Ocb(Box::new(Ocb::new(key)?)),
            (SymmetricAlgorithm::Aes128, AeadAlgorithm::Gcm) => Inner::Aes128Gcm(Box::new(Gcm::new(key)?)),
            (SymmetricAlgorithm::Aes192, AeadAlgorithm::Gcm) => Inner::Aes192Gcm(Box::new(Gcm::new(key)?)),
            (SymmetricAlgorithm::Aes256, AeadAlgorithm::Gcm) => Inner::Aes256Gcm(Box::new(Gcm::new(key)?)),
            (SymmetricAlgorithm::Unknown(s), _) => {
                return Err(Error::Unsupported(Unsupported::SymmetricAlgorithm(s)));
            }
            _ => return Err(unsupported_aead()),
        };
        Ok(Self { inner, aead })
    }

    /// Encrypts `buf` in place and returns the detached tag.
    ///
    /// # Errors
    /// `InvalidArgument` if `nonce` does not have the mode's nonce length or the input is longer
    /// than the mode allows.
    pub(crate) fn encrypt_in_place(&self, nonce: &[u8], ad: &[u8], buf: &mut [u8]) -> Result<[u8; TAG_LEN]> {
        dispatch!(self, a => ocb: ocb_nonce(nonce).and_then(|n| a.encrypt_in_place(n, ad, buf)), gcm: a.encrypt_in_place(nonce, ad, buf), rustcrypto: seal(&**a, nonce, ad, buf))
    }

    /// Decrypts `buf` in place after checking `tag`.
    ///
    /// # Errors
    /// `Decrypt` on any failure (bad tag, wrong nonce length); `buf` is then zeroed.
    pub(crate) fn decrypt_in_place(
        &self,
        nonce: &[u8],
        ad: &[u8],
        buf: &mut [u8],
        tag: &[u8; TAG_LEN],
    ) -> Result<()> {
        dispatch!(self, a => ocb: ocb_nonce(nonce).map_err(|_| Error::Decrypt).and_then(|n| a.decrypt_in_place(n, ad, buf, tag)), gcm: a.decrypt_in_place(nonce, ad, buf, tag), rustcrypto: open(&**a, nonce, ad, buf, tag))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(s: &str) -> Vec<u8> {
        hex::decode(s).unwrap()
    }

    /// RFC 7253 Appendix A, AES-128, 128-bit tags, the first five sample results. These use
    /// 12-octet nonces, so they run through the same `seal`/`open` helpers with a U12 OCB.
    #[test]
    fn rfc7253_ocb_samples() {
        let key = h("000102030405060708090a0b0c0d0e0f");
        let ocb: ocb3::Ocb3<Aes128, eax::aead::consts::U12, U16> = key_init(&key).unwrap();
        let cases = [
            ("bbaa99887766554433221100", "", "", "785407bfffc8ad9edcc5520ac9111ee6"),
            (
                "bbaa99887766554433221101",
                "0001020304050607",
                "0001020304050607",
                "6820b3657b6f615a5725bda0d3b4eb3a257c9af1f8f03009",
            ),
            ("bbaa99887766554433221102", "0001020304050607", "", "81017f8203f081277152fade694a0a00"),
            (
                "bbaa99887766554433221103",
                "",
                "0001020304050607",
                "45dd69f8f5aae72414054cd1f35d82760b2cd00d2f99bfa9",
            ),
            (
                "bbaa99887766554433221104",
                "000102030405060708090a0b0c0d0e0f",
                "000102030405060708090a0b0c0d0e0f",
                "571d535b60b277188be5147170a9a22c3ad7a4ff3835b8c5701c1ccec8fc3358",
            ),
        ];
        for (nonce, ad, pt, ct) in cases {
            let (nonce, ad, pt, ct) = (h(nonce), h(ad), h(pt), h(ct));
            let mut buf = pt.clone();
            let tag = seal(&ocb, &nonce, &ad, &mut buf).unwrap();
            buf.extend_from_slice(&tag);
            assert_eq!(buf, ct);
            let (body, tag) = ct.split_at(ct.len() - 16);
            let mut body = body.to_vec();
            open(&ocb, &nonce, &ad, &mut body, tag.try_into().unwrap()).unwrap();
            assert_eq!(body, pt);
        }
    }

    /// RFC 9580 A.10 (OCB) and A.11 (GCM): the SKESK's encrypted session key under the HKDF
    /// output, and A.9 (EAX) likewise.
    #[test]
    fn rfc9580_skesk_session_keys() {
        // (aead, kek, nonce, encrypted session key ‖ tag, session key)
        let cases = [
            (
                AeadAlgorithm::Ocb,
                "38a9b345b5680bb61bb65d73eec7ecd9",
                "cfcc5c11664edb9db42590d7dc46b0",
                "7241b612c3812cfffbea00f2347b25641123f887ae60d4fd614e0837d819d36c",
                "28e79ab82397d3c63de24ac217d7b791",
            ),
            (
                AeadAlgorithm::Gcm,
                "7a6f9ab7f99f7ef8dbef841c650800f5",
                "b42e7c483ef4884457cb3726",
                "b9b3db9ff776e5f4d9a40952e2447298851abfff7526df2dd554417579a7799f",
                "1936fc8568980274bb900d8319360c77",
            ),
            (
                AeadAlgorithm::Eax,
                "2fce331f39dd955cc41e95d870c72139",
                "69224f919993b3506fa3b59a6a73cff8",
                "c5efc5f41c57fb54e1c226815d7828f5f92c454eb65ebe00ab5986c68e6e7c55",
                "3881bafe985412459b86c36f98cb9a5e",
            ),
        ];
        for (aead, kek, nonce, ct, sk) in cases {
            let ad = [0xc3, 6, 7, u8::from(aead)];
            let cipher = AeadCipher::new(SymmetricAlgorithm::Aes128, aead, &h(kek)).unwrap();
            let ct = h(ct);
            let (body, tag) = ct.split_at(16);
            let tag: [u8; 16] = tag.try_into().unwrap();
            let mut buf = body.to_vec();
            cipher.decrypt_in_place(&h(nonce), &ad, &mut buf, &tag).unwrap();
            assert_eq!(buf, h(sk));
            let again = cipher.encrypt_in_place(&h(nonce), &ad, &mut buf).unwrap();
            assert_eq!(buf, body);
            assert_eq!(again, tag);
        }
    }

    #[test]
    fn failures_wipe_and_are_opaque() {
        for aead in [AeadAlgorithm::Eax, AeadAlgorithm::Ocb, AeadAlgorithm::Gcm] {
            for (sym, len) in [
                (SymmetricAlgorithm::Aes128, 16),
                (SymmetricAlgorithm::Aes192, 24),
                (SymmetricAlgorithm::Aes256, 32),
            ] {
                let c = AeadCipher::new(sym, aead, &vec![7u8; len]).unwrap();
                let nonce = vec![1u8; aead.nonce_len().unwrap()];
                let mut buf = *b"attack at dawn!!!";
                let mut tag = c.encrypt_in_place(&nonce, b"ad", &mut buf).unwrap();
                tag[3] ^= 1;
                assert!(matches!(c.decrypt_in_place(&nonce, b"ad", &mut buf, &tag), Err(Error::Decrypt)));
                assert_eq!(buf, [0u8; 17]);
                assert!(matches!(
                    c.decrypt_in_place(&nonce[1..], b"ad", &mut buf, &tag),
                    Err(Error::Decrypt)
                ));
                assert!(matches!(
                    c.encrypt_in_place(&nonce[1..], b"", &mut buf),
                    Err(Error::InvalidArgument(_))
                ));
                assert!(AeadCipher::new(sym, aead, &vec![7u8; len + 1]).is_err());
            }
        }
        assert!(matches!(
            AeadCipher::new(SymmetricAlgorithm::Unknown(2), AeadAlgorithm::Ocb, &[0; 16]),
            Err(Error::Unsupported(Unsupported::SymmetricAlgorithm(2)))
        ));
        assert!(matches!(
            AeadCipher::new(SymmetricAlgorithm::Aes128, AeadAlgorithm::Unknown(9), &[0; 16]),
            Err(Error::Unsupported(Unsupported::AeadAlgorithm(9)))
        ));
    }

    /// `check` accepts exactly what `new` accepts, with the mode's nonce length.
    #[test]
    fn check_agrees_with_new() {
        for sym in 0..=255u8 {
            for aead in 0..=255u8 {
                let (sym, aead) = (SymmetricAlgorithm::from(sym), AeadAlgorithm::from(aead));
                let key = vec![7u8; sym.key_len().unwrap_or(16)];
                let built = AeadCipher::new(sym, aead, &key).map(|_| ());
                match (AeadCipher::check(sym, aead), built) {
                    (Ok(nonce_len), Ok(())) => assert_eq!(Some(nonce_len), aead.nonce_len()),
                    (Err(a), Err(b)) => assert_eq!(format!("{a:?}"), format!("{b:?}")),
                    (a, b) => panic!("{sym:?} {aead:?}: check {a:?}, new {b:?}"),
                }
            }
        }
    }
}

//! AEAD ciphers as OpenPGP uses them (RFC 9580 §5.13.3–§5.13.5): AES-128/192/256 with EAX, OCB
//! or GCM, 16-octet tags, detached and in place.
//!
//! One [`KeyedAead`] is built per message (or per SKESK) and used for every chunk, so the key
//! schedule runs once. Behind it is one [`AeadBackend`] per construction:
//!
//! - OCB is our own [`Ocb`] (RFC 7253 on the `aes` crate's multi-block API, faster than `ocb3`
//!   0.2, which feeds AES one block at a time);
//! - AES-128-GCM and AES-256-GCM run on `graviola` where the CPU allows ([`accel`], faster);
//!   otherwise, and for AES-192, on `aes-gcm`;
//! - EAX is RustCrypto's `eax`.
//!
//! The mode is chosen once per message, so a virtual call per chunk costs nothing next to the
//! chunk's AES.
//!
//! Zeroization: the AES key schedules are wiped on drop (the `aes` crate's `zeroize` feature,
//! and `graviola`'s own), and so are the GHASH keys (`aes-gcm`'s `zeroize` feature) and our OCB
//! L table. `eax` 0.6 keeps a copy of the raw key that it does not wipe; it gives us no way to
//! clear it without `unsafe`.

use aes::cipher::{BlockCipherDecrypt, BlockCipherEncrypt, BlockSizeUser};
use aes::{Aes128, Aes192, Aes256};
use aes_gcm::AesGcm;
use eax::Eax;
use eax::aead::consts::{U12, U16};
use eax::aead::{AeadCore, AeadInOut, KeyInit};
use zeroize::Zeroize;

use crate::crypto::accel;
use crate::crypto::aead_backend::{AeadBackend, TAG_LEN};
use crate::crypto::ocb::Ocb;
use crate::error::{Error, Result, Unsupported};
use crate::types::{AeadAlgorithm, SymmetricAlgorithm};

/// OCB's nonce length in OpenPGP.
const OCB_NONCE_LEN: usize = 15;

/// Any RustCrypto AEAD with 16-octet tags (`eax`, `aes-gcm`).
pub(super) struct RustCrypto<A>(pub(crate) A);

impl<A: AeadInOut + AeadCore<TagSize = U16> + Send + Sync> AeadBackend for RustCrypto<A> {
    fn seal(&self, nonce: &[u8], ad: &[u8], buf: &mut [u8]) -> Result<[u8; TAG_LEN]> {
        let nonce = <&eax::aead::Nonce<A>>::try_from(nonce)
            .map_err(|_| Error::InvalidArgument("AEAD nonce length"))?;
        let tag = self
            .0
            .encrypt_inout_detached(nonce, ad, buf.into())
            .map_err(|_| Error::InvalidArgument("AEAD input too long"))?;
        Ok(tag.into())
    }

    fn open(&self, nonce: &[u8], ad: &[u8], buf: &mut [u8], tag: &[u8; TAG_LEN]) -> Result<()> {
        let result = match <&eax::aead::Nonce<A>>::try_from(nonce) {
            Ok(nonce) => self.0.decrypt_inout_detached(nonce, ad, buf.into(), tag.into()),
            Err(_) => Err(eax::aead::Error),
        };
        // `aes-gcm` 0.11 checks the tag before it decrypts and `eax` likewise, but neither
        // promises it: wiped either way.
        result.map_err(|_| {
            buf.zeroize();
            Error::Decrypt
        })
    }
}

/// Our OCB, with OpenPGP's nonce of exactly 15 octets (RFC 9580 §5.13.4; `Ocb` itself accepts
/// the 1..=15 octets of RFC 7253). `Ocb` wipes `buf` when its tag check fails. `Ocb::seal` and
/// the others name `Ocb`'s own methods, which path resolution prefers to the trait's.
impl<C> AeadBackend for Ocb<C>
where
    C: BlockCipherEncrypt + BlockCipherDecrypt + BlockSizeUser<BlockSize = U16> + KeyInit + Send + Sync,
{
    fn seal(&self, nonce: &[u8], ad: &[u8], buf: &mut [u8]) -> Result<[u8; TAG_LEN]> {
        if nonce.len() != OCB_NONCE_LEN {
            return Err(Error::InvalidArgument("AEAD nonce length"));
        }
        Ocb::seal(self, nonce, ad, buf)
    }

    fn open(&self, nonce: &[u8], ad: &[u8], buf: &mut [u8], tag: &[u8; TAG_LEN]) -> Result<()> {
        if nonce.len() != OCB_NONCE_LEN {
            buf.zeroize();
            return Err(Error::Decrypt);
        }
        Ocb::open(self, nonce, ad, buf, tag)
    }

    fn open_to(&self, nonce: &[u8], ad: &[u8], ct: &[u8], out: &mut [u8], tag: &[u8; TAG_LEN]) -> Result<()> {
        if nonce.len() != OCB_NONCE_LEN {
            out.zeroize();
            return Err(Error::Decrypt);
        }
        Ocb::open_to(self, nonce, ad, ct, out, tag)
    }
}

/// A RustCrypto AEAD keyed with `key`, boxed.
fn rustcrypto<A>(key: &[u8]) -> Result<Box<dyn AeadBackend>>
where
    A: KeyInit + AeadInOut + AeadCore<TagSize = U16> + Send + Sync + 'static,
{
    let a = A::new_from_slice(key).map_err(|_| Error::InvalidArgument("AEAD key length"))?;
    Ok(Box::new(RustCrypto(a)))
}

/// Our OCB keyed with `key`, boxed.
fn ocb<C>(key: &[u8]) -> Result<Box<dyn AeadBackend>>
where
    C: BlockCipherEncrypt
        + BlockCipherDecrypt
        + BlockSizeUser<BlockSize = U16>
        + KeyInit
        + Send
        + Sync
        + 'static,
{
    Ok(Box::new(Ocb::<C>::new(key)?))
}

/// An AES-based AEAD cipher keyed once, encrypting and decrypting in place with detached
/// 16-octet tags.
pub(crate) struct KeyedAead {
    /// Boxed: built once per message, and the OCB state is large.
    inner: Box<dyn AeadBackend>,
    aead: AeadAlgorithm,
}

impl std::fmt::Debug for KeyedAead {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KeyedAead").field("aead", &self.aead).finish_non_exhaustive()
    }
}

/// Makes the backend of one suite from a key of its cipher's length.
type Backend = fn(&[u8]) -> Result<Box<dyn AeadBackend>>;

/// The AEAD suites this crate implements, each with the backend it runs on (GCM may run on
/// [`accel`] instead, see [`KeyedAead::new`]). Every check of a suite, for a message, an SKESK
/// or a secret key's protection, consults this table through [`KeyedAead::check`].
const SUITES: [(SymmetricAlgorithm, AeadAlgorithm, Backend); 9] = {
    use AeadAlgorithm as A;
    use SymmetricAlgorithm as S;
    [
        (S::Aes128, A::Eax, rustcrypto::<Eax<Aes128>>),
        (S::Aes192, A::Eax, rustcrypto::<Eax<Aes192>>),
        (S::Aes256, A::Eax, rustcrypto::<Eax<Aes256>>),
        (S::Aes128, A::Ocb, ocb::<Aes128>),
        (S::Aes192, A::Ocb, ocb::<Aes192>),
        (S::Aes256, A::Ocb, ocb::<Aes256>),
        (S::Aes128, A::Gcm, rustcrypto::<AesGcm<Aes128, U12>>),
        (S::Aes192, A::Gcm, rustcrypto::<AesGcm<Aes192, U12>>),
        (S::Aes256, A::Gcm, rustcrypto::<AesGcm<Aes256, U12>>),
    ]
};

/// The backend of `sym` with `aead` from [`SUITES`].
///
/// # Errors
/// `Unsupported(SymmetricAlgorithm)` for a cipher no suite has, else
/// `Unsupported(AeadAlgorithm)` for a mode it has no suite with.
fn suite(sym: SymmetricAlgorithm, aead: AeadAlgorithm) -> Result<Backend> {
    let mut with_sym = SUITES.iter().filter(|(s, _, _)| *s == sym).peekable();
    if with_sym.peek().is_none() {
        return Err(Error::Unsupported(Unsupported::SymmetricAlgorithm(sym.into())));
    }
    with_sym
        .find(|(_, a, _)| *a == aead)
        .map(|&(_, _, backend)| backend)
        .ok_or(Error::Unsupported(Unsupported::AeadAlgorithm(aead.into())))
}

impl KeyedAead {
    /// Whether [`KeyedAead::new`] accepts `sym` and `aead` (with a key of `sym`'s length), and
    /// the nonce length of `aead`: callers check a suite before deriving its key.
    ///
    /// # Errors
    /// As [`KeyedAead::new`] for the algorithms.
    pub(crate) fn check(sym: SymmetricAlgorithm, aead: AeadAlgorithm) -> Result<usize> {
        let _ = suite(sym, aead)?;
        aead.nonce_len().ok_or(Error::Unsupported(Unsupported::AeadAlgorithm(aead.into())))
    }

    /// Keys `aead` over `sym` with `key`.
    ///
    /// # Errors
    /// `Unsupported(SymmetricAlgorithm|AeadAlgorithm)` for a suite not in the table (anything
    /// but AES with EAX, OCB or GCM); `InvalidArgument` if `key` does not have the cipher's key
    /// length.
    pub(crate) fn new(sym: SymmetricAlgorithm, aead: AeadAlgorithm, key: &[u8]) -> Result<Self> {
        let backend = suite(sym, aead)?;
        // `accel::gcm` takes AES-128 and AES-256 keys only; AES-192 goes to `aes-gcm`.
        if aead == AeadAlgorithm::Gcm
            && Some(key.len()) == sym.key_len()
            && let Some(fast) = accel::gcm(key)
        {
            return Ok(Self { inner: fast, aead });
        }
        Ok(Self { inner: backend(key)?, aead })
    }

    /// Encrypts `buf` in place and returns the detached tag.
    ///
    /// # Errors
    /// `InvalidArgument` if `nonce` does not have the mode's nonce length or the input is longer
    /// than the mode allows.
    pub(crate) fn seal(&self, nonce: &[u8], ad: &[u8], buf: &mut [u8]) -> Result<[u8; TAG_LEN]> {
        self.inner.seal(nonce, ad, buf)
    }

    /// Decrypts `buf` in place after checking `tag`.
    ///
    /// # Errors
    /// `Decrypt` on any failure (bad tag, wrong nonce length); `buf` is then zeroed.
    pub(crate) fn open(&self, nonce: &[u8], ad: &[u8], buf: &mut [u8], tag: &[u8; TAG_LEN]) -> Result<()> {
        self.inner.open(nonce, ad, buf, tag)
    }

    /// Decrypts `ct` into `out` (as long) after checking `tag`.
    ///
    /// # Errors
    /// `Decrypt` on any failure (bad tag, wrong nonce length, lengths that differ); `out` is
    /// then zeroed.
    pub(crate) fn open_to(
        &self,
        nonce: &[u8],
        ad: &[u8],
        ct: &[u8],
        out: &mut [u8],
        tag: &[u8; TAG_LEN],
    ) -> Result<()> {
        self.inner.open_to(nonce, ad, ct, out, tag)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(s: &str) -> Vec<u8> {
        hex::decode(s).unwrap()
    }

    /// RFC 7253 Appendix A, AES-128, 128-bit tags, the first five sample results. These use
    /// 12-octet nonces, so they run through the RustCrypto wrapper with a U12 `ocb3`.
    #[test]
    fn rfc7253_ocb_samples() {
        let key = h("000102030405060708090a0b0c0d0e0f");
        let ocb = RustCrypto(ocb3::Ocb3::<Aes128, U12, U16>::new_from_slice(&key).unwrap());
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
            let tag = ocb.seal(&nonce, &ad, &mut buf).unwrap();
            buf.extend_from_slice(&tag);
            assert_eq!(buf, ct);
            let (body, tag) = ct.split_at(ct.len() - 16);
            let mut body = body.to_vec();
            ocb.open(&nonce, &ad, &mut body, tag.try_into().unwrap()).unwrap();
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
            let cipher = KeyedAead::new(SymmetricAlgorithm::Aes128, aead, &h(kek)).unwrap();
            let ct = h(ct);
            let (body, tag) = ct.split_at(16);
            let tag: [u8; 16] = tag.try_into().unwrap();
            let mut buf = body.to_vec();
            cipher.open(&h(nonce), &ad, &mut buf, &tag).unwrap();
            assert_eq!(buf, h(sk));
            let again = cipher.seal(&h(nonce), &ad, &mut buf).unwrap();
            assert_eq!(buf, body);
            assert_eq!(again, tag);
        }
    }

    fn gcm_case(key: &str, iv: &str, pt: &str, ad: &str, ct: &str, tag: &str) {
        let sym = match key.len() {
            32 => SymmetricAlgorithm::Aes128,
            48 => SymmetricAlgorithm::Aes192,
            _ => SymmetricAlgorithm::Aes256,
        };
        let gcm = KeyedAead::new(sym, AeadAlgorithm::Gcm, &h(key)).unwrap();
        let (iv, pt, ad, ct, tag) = (h(iv), h(pt), h(ad), h(ct), h(tag));
        let mut buf = pt.clone();
        let t = gcm.seal(&iv, &ad, &mut buf).unwrap();
        assert_eq!(buf, ct);
        assert_eq!(t.as_slice(), tag);
        gcm.open(&iv, &ad, &mut buf, &t).unwrap();
        assert_eq!(buf, pt);
    }

    /// The GCM specification's test cases (McGrew and Viega, "The Galois/Counter Mode of
    /// Operation", Appendix B) with 96-bit IVs: 1-4 (AES-128), 7-10 (AES-192), 13-16 (AES-256),
    /// on whichever path `KeyedAead` takes (`graviola` or `aes-gcm`).
    #[test]
    fn gcm_spec_test_cases() {
        let p = "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b391aafd255";
        let p60 = &p[..120];
        let a = "feedfacedeadbeeffeedfacedeadbeefabaddad2";
        let iv = "cafebabefacedbaddecaf888";
        let k128 = "feffe9928665731c6d6a8f9467308308";
        let k192 = "feffe9928665731c6d6a8f9467308308feffe9928665731c";
        let k256 = "feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308";
        let z12 = "000000000000000000000000";
        let z16 = "00000000000000000000000000000000";
        gcm_case(z16, z12, "", "", "", "58e2fccefa7e3061367f1d57a4e7455a");
        gcm_case(z16, z12, z16, "", "0388dace60b6a392f328c2b971b2fe78", "ab6e47d42cec13bdf53a67b21257bddf");
        let c3 = "42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091473f5985";
        gcm_case(k128, iv, p, "", c3, "4d5c2af327cd64a62cf35abd2ba6fab4");
        gcm_case(k128, iv, p60, a, &c3[..120], "5bc94fbc3221a5db94fae95ae7121a47");
        let z24 = "000000000000000000000000000000000000000000000000";
        gcm_case(z24, z12, "", "", "", "cd33b28ac773f74ba00ed1f312572435");
        gcm_case(z24, z12, z16, "", "98e7247c07f0fe411c267e4384b0f600", "2ff58d80033927ab8ef4d4587514f0fb");
        let c9 = "3980ca0b3c00e841eb06fac4872a2757859e1ceaa6efd984628593b40ca1e19c7d773d00c144c525ac619d18c84a3f4718e2448b2fe324d9ccda2710acade256";
        gcm_case(k192, iv, p, "", c9, "9924a7c8587336bfb118024db8674a14");
        gcm_case(k192, iv, p60, a, &c9[..120], "2519498e80f1478f37ba55bd6d27618c");
        let z32 = "0000000000000000000000000000000000000000000000000000000000000000";
        gcm_case(z32, z12, "", "", "", "530f8afbc74536b9a963b4f1c4cb738b");
        gcm_case(z32, z12, z16, "", "cea7403d4d606b6e074ec5d3baf39d18", "d0d1c8a799996bf0265b98b5d48ab919");
        let c15 = "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662898015ad";
        gcm_case(k256, iv, p, "", c15, "b094dac5d93471bdec1a502270e3cc6c");
        gcm_case(k256, iv, p60, a, &c15[..120], "76fc6ece0f4e1768cddf8853bb2d551b");
    }

    /// A long GCM message (65 536 blocks and a partial one; the largest SEIPDv2 chunk is 4 MiB)
    /// against a second implementation: SHA-256 of the ciphertext and the tag from OpenSSL
    /// (Python `cryptography`'s AESGCM), for every key size.
    #[test]
    fn gcm_long_message_matches_openssl() {
        use sha2::Digest;
        let data: Vec<u8> = (0..(1u32 << 20) + 13).map(|i| (i % 251) as u8).collect();
        let ad = b"\xd2\x02\x09\x03\x10";
        let cases = [
            (
                SymmetricAlgorithm::Aes128,
                "02b1fab7b89bc9120d34e09b08a66183b314fe0b43bac2e9eeba107ff18d541d",
                "7a9450d3b35617d29143a57bb386e93b",
            ),
            (
                SymmetricAlgorithm::Aes192,
                "7d792837fb64c74c1e6877f40ff6d164d8487b0c8fa46832f54827347896bfb6",
                "0b4363bfbb63d9cec8a8178a1ccee53a",
            ),
            (
                SymmetricAlgorithm::Aes256,
                "a828ac91ccdd57630467efae613eb93f7843b190bd902550747df0d0618ab917",
                "c212164b9a4b64eadda2151c3dfc7664",
            ),
        ];
        for (sym, ct_sha256, tag) in cases {
            let gcm = KeyedAead::new(sym, AeadAlgorithm::Gcm, &vec![9u8; sym.key_len().unwrap()]).unwrap();
            let mut buf = data.clone();
            let t = gcm.seal(&[0xff; 12], ad, &mut buf).unwrap();
            assert_eq!(hex::encode(sha2::Sha256::digest(&buf)), ct_sha256, "{sym:?}");
            assert_eq!(hex::encode(t), tag, "{sym:?}");
            gcm.open(&[0xff; 12], ad, &mut buf, &t).unwrap();
            assert!(buf == data, "{sym:?}");
        }
    }

    /// Every mode and key size: a bad tag, other associated data or a wrong nonce length fails
    /// with `Decrypt` and leaves zeros; a wrong nonce length on encryption is `InvalidArgument`.
    #[test]
    fn failures_wipe_and_are_opaque() {
        for aead in [AeadAlgorithm::Eax, AeadAlgorithm::Ocb, AeadAlgorithm::Gcm] {
            for (sym, len) in [
                (SymmetricAlgorithm::Aes128, 16),
                (SymmetricAlgorithm::Aes192, 24),
                (SymmetricAlgorithm::Aes256, 32),
            ] {
                let c = KeyedAead::new(sym, aead, &vec![7u8; len]).unwrap();
                let nonce = vec![1u8; aead.nonce_len().unwrap()];
                let mut buf = *b"attack at dawn!!!";
                let good = c.seal(&nonce, b"ad", &mut buf).unwrap();
                let ct = buf;
                let mut bad = good;
                bad[3] ^= 1;
                assert!(matches!(c.open(&nonce, b"ad", &mut buf, &bad), Err(Error::Decrypt)));
                assert_eq!(buf, [0u8; 17]);
                buf = ct;
                assert!(matches!(c.open(&nonce, b"ae", &mut buf, &good), Err(Error::Decrypt)));
                assert_eq!(buf, [0u8; 17]);
                for wrong in [&nonce[1..], &[nonce.as_slice(), &[1]].concat()] {
                    buf = ct;
                    assert!(matches!(c.open(wrong, b"ad", &mut buf, &good), Err(Error::Decrypt)));
                    assert_eq!(buf, [0u8; 17]);
                    assert!(matches!(c.seal(wrong, b"", &mut buf), Err(Error::InvalidArgument(_))));
                }
                buf = ct;
                c.open(&nonce, b"ad", &mut buf, &good).unwrap();
                assert_eq!(&buf, b"attack at dawn!!!");
                assert!(KeyedAead::new(sym, aead, &vec![7u8; len + 1]).is_err());
            }
        }
        assert!(matches!(
            KeyedAead::new(SymmetricAlgorithm::Unknown(2), AeadAlgorithm::Ocb, &[0; 16]),
            Err(Error::Unsupported(Unsupported::SymmetricAlgorithm(2)))
        ));
        assert!(matches!(
            KeyedAead::new(SymmetricAlgorithm::Aes128, AeadAlgorithm::Unknown(9), &[0; 16]),
            Err(Error::Unsupported(Unsupported::AeadAlgorithm(9)))
        ));
    }

    /// Any change to the ciphertext, tag, associated data or nonce fails and wipes the buffer,
    /// in every mode.
    #[test]
    fn every_bit_flip_fails_and_wipes() {
        for aead in [AeadAlgorithm::Eax, AeadAlgorithm::Ocb, AeadAlgorithm::Gcm] {
            let c = KeyedAead::new(SymmetricAlgorithm::Aes256, aead, &[3; 32]).unwrap();
            let plain: Vec<u8> = (0..100u8).collect();
            let nonce = vec![5u8; aead.nonce_len().unwrap()];
            let mut ct = plain.clone();
            let tag = c.seal(&nonce, b"ad", &mut ct).unwrap();
            for bit in 0..(ct.len() + 16 + 2 + nonce.len()) * 8 {
                let (mut b, mut t, mut a, mut n) = (ct.clone(), tag, *b"ad", nonce.clone());
                let (byte, mask) = (bit / 8, 1u8 << (bit % 8));
                match byte {
                    i if i < ct.len() => b[i] ^= mask,
                    i if i < ct.len() + 16 => t[i - ct.len()] ^= mask,
                    i if i < ct.len() + 18 => a[i - ct.len() - 16] ^= mask,
                    i => n[i - ct.len() - 18] ^= mask,
                }
                let mut out = vec![0x5a; b.len()];
                let result = c.open_to(&n, &a, &b, &mut out, &t);
                assert!(matches!(result, Err(Error::Decrypt)), "{aead:?} bit {bit}, out of place");
                assert!(out.iter().all(|&x| x == 0), "{aead:?} bit {bit}, out of place");
                let result = c.open(&n, &a, &mut b, &t);
                assert!(matches!(result, Err(Error::Decrypt)), "{aead:?} bit {bit}");
                assert!(b.iter().all(|&x| x == 0), "{aead:?} bit {bit}");
            }
            let mut out = vec![0u8; ct.len()];
            c.open_to(&nonce, b"ad", &ct, &mut out, &tag).unwrap();
            assert_eq!(out, plain);
            c.open(&nonce, b"ad", &mut ct, &tag).unwrap();
            assert_eq!(ct, plain);
        }
    }

    /// `check` accepts exactly what `new` accepts, with the mode's nonce length.
    #[test]
    fn check_agrees_with_new() {
        for sym in 0..=255u8 {
            for aead in 0..=255u8 {
                let (sym, aead) = (SymmetricAlgorithm::from(sym), AeadAlgorithm::from(aead));
                let key = vec![7u8; sym.key_len().unwrap_or(16)];
                let built = KeyedAead::new(sym, aead, &key).map(|_| ());
                match (KeyedAead::check(sym, aead), built) {
                    (Ok(nonce_len), Ok(())) => assert_eq!(Some(nonce_len), aead.nonce_len()),
                    (Err(a), Err(b)) => assert_eq!(format!("{a:?}"), format!("{b:?}")),
                    (a, b) => panic!("{sym:?} {aead:?}: check {a:?}, new {b:?}"),
                }
            }
        }
    }
}

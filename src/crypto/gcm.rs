//! GCM (NIST SP 800-38D) with 96-bit nonces and 128-bit tags, as OpenPGP uses it (RFC 9580
//! §5.13.5), on any 16-octet block cipher: the CTR keystream and GHASH in one pass over the data.
//! This is the portable path: where the CPU allows, AES-128-GCM and AES-256-GCM run on
//! `graviola` instead (see [`crate::crypto::accel`]), which is checked against this one.
//!
//! <https://nvlpubs.nist.gov/nistpubs/Legacy/SP/nistspecialpublication800-38d.pdf>
//!
//! Why not `aes-gcm` 0.11: it runs CTR over the whole buffer, then GHASH over it again. Here
//! the counter blocks go to the AES backend a group at a time (8 blocks for AES-NI, 30 for
//! VAES-256, 64 for VAES-512), and each 1 KiB stripe of data is hashed while it is still in L1; GHASH is the `polyval` crate's (PCLMULQDQ, four blocks per
//! reduction) through the identity of RFC 8452 Appendix A:
//!
//! ```text
//! GHASH(H, X_1, ..., X_n) = ByteReverse(POLYVAL(mulX_POLYVAL(ByteReverse(H)),
//!                                               ByteReverse(X_1), ..., ByteReverse(X_n)))
//! ```
//!
//! which also spares the per-block byte swaps of the `ghash` crate's wrapper (they run here
//! inside the AES backend's vectorized code). The result is bit-for-bit GCM, checked against
//! the GCM specification's test cases and differentially against `aes-gcm`.
//!
//! Zeroization: the key schedule is the cipher's (the `aes` crate wipes it on drop); the GHASH
//! key is `polyval`'s (wiped on drop, its `zeroize` feature); keystream blocks are wiped before
//! returning. A failed decryption wipes the buffer: the data is decrypted in the same pass that
//! hashes it, before the tag is known to be good.
#![deny(clippy::indexing_slicing, clippy::arithmetic_side_effects)]

use aes::cipher::array::Array;
use aes::cipher::consts::U16;
use aes::cipher::{BlockCipherEncBackend, BlockCipherEncClosure, BlockCipherEncrypt, BlockSizeUser, KeyInit};
use polyval::Polyval;
use polyval::universal_hash::UniversalHash;
use subtle::ConstantTimeEq;
use zeroize::Zeroize;

use crate::crypto::xor_block as xor;
use crate::error::{Error, Result};

/// The tag length: OpenPGP always uses 128-bit GCM tags.
pub(crate) const TAG_LEN: usize = 16;
/// The nonce (IV) length OpenPGP uses: 96 bits, the only length with `J0 = IV ‖ 0^31 ‖ 1`.
pub(crate) const NONCE_LEN: usize = 12;
/// The longest plaintext GCM allows: 2^39 − 256 bits (SP 800-38D §5.2.1.1).
pub(crate) const MAX_TEXT_LEN: u64 = (1 << 36) - 32;

type Block = Array<u8, U16>;

/// `mulX_POLYVAL` of RFC 8452 Appendix A on a block read as a little-endian value: multiply by
/// x in POLYVAL's field, x^128 = x^127 + x^126 + x^121 + 1.
fn mulx_polyval(block: [u8; 16]) -> [u8; 16] {
    let v = u128::from_le_bytes(block);
    let carry = if v >> 127 == 1 { 0xc200_0000_0000_0000_0000_0000_0000_0001 } else { 0 };
    ((v << 1) ^ carry).to_le_bytes()
}

/// ByteReverse of RFC 8452, written as two 64-bit byte swaps: LLVM turns that into one byte
/// shuffle where the AES backend's target features have one (VAES) and into two `bswap`s where
/// they do not (AES-NI alone implies only SSE2); `[u8; 16]::reverse` compiles worse on the
/// latter and `u128::swap_bytes` on the former.
#[inline(always)]
fn reversed(b: &[u8; 16]) -> [u8; 16] {
    let (lo, hi) = b.split_at(8);
    let mut out = [0u8; 16];
    let (first, second) = out.split_at_mut(8);
    for (dst, src) in [(first, hi), (second, lo)] {
        let word = u64::from_ne_bytes(<[u8; 8]>::try_from(src).unwrap_or_default());
        dst.copy_from_slice(&word.swap_bytes().to_ne_bytes());
    }
    out
}

/// The counter block `prefix ‖ counter` (a 96-bit nonce and a 32-bit big-endian counter).
#[inline(always)]
fn counter_block(prefix: &[u8; NONCE_LEN], counter: u32) -> [u8; 16] {
    let mut b = [0u8; 16];
    let (p, c) = b.split_at_mut(NONCE_LEN);
    p.copy_from_slice(prefix);
    c.copy_from_slice(&counter.to_be_bytes());
    b
}

/// GCM with a 128-bit tag and 96-bit nonces over block cipher `C`, keyed once.
pub(crate) struct Gcm<C> {
    cipher: C,
    /// POLYVAL keyed with mulX_POLYVAL(ByteReverse(H)), H = CIPH_K(0^128), nothing absorbed:
    /// each message starts from a copy.
    ghash: Polyval,
}

impl<C> std::fmt::Debug for Gcm<C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Gcm([redacted])")
    }
}

impl<C> Gcm<C>
where
    C: BlockCipherEncrypt + BlockSizeUser<BlockSize = U16> + KeyInit,
{
    /// Keys the cipher and derives the hash subkey H = CIPH_K(0^128) (SP 800-38D §7.1, step 1).
    ///
    /// # Errors
    /// `InvalidArgument` if `key` does not have the cipher's key length.
    pub(crate) fn new(key: &[u8]) -> Result<Self> {
        let cipher = C::new_from_slice(key).map_err(|_| Error::InvalidArgument("AEAD key length"))?;
        let mut h = Block::default();
        cipher.encrypt_block(&mut h);
        let mut polyval_key = Block::from(mulx_polyval(reversed(&h.0)));
        let ghash = Polyval::new(&polyval_key);
        h.0.zeroize();
        polyval_key.0.zeroize();
        Ok(Self { cipher, ghash })
    }

    /// The pre-counter block J0 = IV ‖ 0^31 ‖ 1 (§7.1, step 2).
    fn j0(nonce: &[u8]) -> Result<[u8; NONCE_LEN]> {
        <[u8; NONCE_LEN]>::try_from(nonce).map_err(|_| Error::InvalidArgument("AEAD nonce length"))
    }

    /// GHASH of `ad`, then the CTR pass over `buf` with `buf`'s blocks hashed as ciphertext,
    /// then the length block: returns S (§7.1, steps 3-5 and the GHASH of step 5).
    fn crypt(&self, prefix: &[u8; NONCE_LEN], ad: &[u8], buf: &mut [u8], decrypt: bool) -> Result<[u8; 16]> {
        let text_bits = u64::try_from(buf.len())
            .ok()
            .filter(|&n| n <= MAX_TEXT_LEN)
            .and_then(|n| n.checked_mul(8))
            .ok_or(Error::InvalidArgument("AEAD input too long"))?;
        let ad_bits = u64::try_from(ad.len())
            .ok()
            .and_then(|n| n.checked_mul(8))
            .ok_or(Error::InvalidArgument("AEAD associated data too long"))?;
        let mut ghash = self.ghash.clone();
        absorb_padded(&mut ghash, ad);

        let (blocks, tail) = Block::slice_as_chunks_mut(buf);
        // inc32(J0) is the first data block's counter.
        let mut complete = false;
        self.cipher.encrypt_with_backend(CtrGhash {
            prefix,
            first: 2,
            blocks,
            ghash: &mut ghash,
            decrypt,
            complete: &mut complete,
        });
        if !complete {
            // Not reachable (see `CtrGhash::call`); fail closed rather than pass on blocks that
            // were not enciphered.
            return Err(Error::InvalidArgument("AEAD backend group size"));
        }
        if !tail.is_empty() {
            // The last, partial block: MSB_u(CIPH_K(CB_n)) xor the tail; GHASH sees the
            // ciphertext padded with zeros.
            let n_full =
                u32::try_from(blocks.len()).map_err(|_| Error::InvalidArgument("AEAD input too long"))?;
            let mut ks = Block::from(counter_block(prefix, n_full.wrapping_add(2)));
            self.cipher.encrypt_block(&mut ks);
            if decrypt {
                absorb_padded(&mut ghash, tail);
            }
            for (b, k) in tail.iter_mut().zip(ks.0.iter()) {
                *b ^= k;
            }
            if !decrypt {
                absorb_padded(&mut ghash, tail);
            }
            ks.0.zeroize();
        }
        // [len(A)]_64 ‖ [len(C)]_64.
        let mut lengths = [0u8; 16];
        let (a, c) = lengths.split_at_mut(8);
        a.copy_from_slice(&ad_bits.to_be_bytes());
        c.copy_from_slice(&text_bits.to_be_bytes());
        ghash.update(&[Block::from(reversed(&lengths))]);
        Ok(reversed(&ghash.finalize().0))
    }

    /// T = MSB_128(GCTR_K(J0, S)) = CIPH_K(J0) xor S (§7.1, step 6).
    fn tag(&self, prefix: &[u8; NONCE_LEN], s: &[u8; 16]) -> [u8; TAG_LEN] {
        let mut e = Block::from(counter_block(prefix, 1));
        self.cipher.encrypt_block(&mut e);
        let t = xor(&e.0, s);
        e.0.zeroize();
        t
    }

    /// Encrypts `buf` in place and returns the tag (SP 800-38D §7.1).
    ///
    /// # Errors
    /// `InvalidArgument` for a nonce that is not 12 octets or a text longer than GCM allows.
    pub(crate) fn encrypt_in_place(&self, nonce: &[u8], ad: &[u8], buf: &mut [u8]) -> Result<[u8; TAG_LEN]> {
        let prefix = Self::j0(nonce)?;
        let s = self.crypt(&prefix, ad, buf, false)?;
        Ok(self.tag(&prefix, &s))
    }

    /// Decrypts `buf` in place and checks `tag` (SP 800-38D §7.2), in constant time.
    ///
    /// # Errors
    /// `Decrypt` on any failure (bad tag, bad nonce length, too long); `buf` is then zeroed.
    pub(crate) fn decrypt_in_place(
        &self,
        nonce: &[u8],
        ad: &[u8],
        buf: &mut [u8],
        tag: &[u8; TAG_LEN],
    ) -> Result<()> {
        let checked = Self::j0(nonce).and_then(|prefix| {
            let mut s = self.crypt(&prefix, ad, buf, true)?;
            let t = self.tag(&prefix, &s);
            s.zeroize();
            Ok(t)
        });
        // The expected tag of a forged message would be a valid forgery: wiped either way.
        let good = checked.as_ref().is_ok_and(|t| bool::from(t.ct_eq(tag)));
        if let Ok(mut t) = checked {
            t.zeroize();
        }
        if good {
            Ok(())
        } else {
            buf.zeroize();
            Err(Error::Decrypt)
        }
    }
}

/// GHASH of `data` zero-padded to whole blocks (each block byte-reversed for POLYVAL).
fn absorb_padded(ghash: &mut Polyval, data: &[u8]) {
    let (blocks, tail) = data.as_chunks::<16>();
    for b in blocks {
        ghash.update(&[Block::from(reversed(b))]);
    }
    if !tail.is_empty() {
        let mut last = [0u8; 16];
        last.iter_mut().zip(tail).for_each(|(l, t)| *l = *t);
        ghash.update(&[Block::from(reversed(&last))]);
        last.zeroize();
    }
}

/// Blocks hashed per POLYVAL call: enough to amortize the call (POLYVAL takes four blocks per
/// reduction), few enough (1 KiB) to stay in L1 between the CTR pass and the hash.
const STRIPE: usize = 64;

/// The full blocks, run inside the cipher's backend: `call` is inlined into the backend's
/// `#[target_feature]` function, so the counter blocks go to AES `ParBlocksSize` at a time (8
/// for AES-NI, up to 64 for VAES-512) and the XORs and POLYVAL's byte swaps use the backend's
/// vector registers. The data goes by stripes of [`STRIPE`] blocks: each is enciphered and
/// hashed while it is still in L1.
///
/// For block i: C_i = P_i xor CIPH_K(inc32^i(J0)); GHASH absorbs C_i (SP 800-38D §6.5, §7.1).
struct CtrGhash<'a, 'b> {
    prefix: &'a [u8; NONCE_LEN],
    /// The 32-bit counter of the first block.
    first: u32,
    blocks: &'b mut [Block],
    ghash: &'b mut Polyval,
    /// Hash the blocks before the XOR (they are ciphertext) rather than after.
    decrypt: bool,
    /// Set when every block has been enciphered and hashed.
    complete: &'b mut bool,
}

impl BlockSizeUser for CtrGhash<'_, '_> {
    type BlockSize = U16;
}

impl BlockCipherEncClosure for CtrGhash<'_, '_> {
    #[inline(always)]
    fn call<E: BlockCipherEncBackend<BlockSize = U16>>(self, backend: &E) {
        let mut counter = self.first;
        let mut keystream = Array::<Block, E::ParBlocksSize>::default();
        let mut scratch = [Block::default(); STRIPE];
        let mut complete = true;
        for stripe in self.blocks.chunks_mut(STRIPE) {
            if self.decrypt {
                hash_reversed(self.ghash, stripe, &mut scratch);
            }
            let (groups, rest) = Array::<Block, E::ParBlocksSize>::slice_as_chunks_mut(stripe);
            for group in groups {
                next_counters(self.prefix, &mut counter, &mut keystream);
                backend.encrypt_par_blocks_inplace(&mut keystream);
                xor_into(group, &keystream);
            }
            // Fewer than ParBlocksSize blocks are left, so the slice exists.
            match keystream.get_mut(..rest.len()) {
                Some(keystream) if !keystream.is_empty() => {
                    next_counters(self.prefix, &mut counter, keystream);
                    backend.encrypt_tail_blocks_inplace(keystream);
                    xor_into(rest, keystream);
                }
                Some(_) => {}
                None => complete = false,
            }
            if !self.decrypt {
                hash_reversed(self.ghash, stripe, &mut scratch);
            }
        }
        keystream.iter_mut().for_each(|k| k.0.zeroize());
        scratch.iter_mut().for_each(|k| k.0.zeroize());
        *self.complete = complete;
    }
}

/// Fills `blocks` with the counter blocks from `*counter` on (inc32) and advances it.
///
/// Each block is made as one 128-bit value (the nonce ORed with the byte-swapped counter)
/// rather than written as 12 + 4 octets: AES reads the block back with one 16-octet load,
/// which cannot be forwarded from two smaller stores (a store-forwarding stall per block).
#[inline(always)]
fn next_counters(prefix: &[u8; NONCE_LEN], counter: &mut u32, blocks: &mut [Block]) {
    let nonce = u128::from_ne_bytes(counter_block(prefix, 0));
    for b in blocks {
        // The counter as a big-endian 128-bit value has its octets at 12..16; `to_be` gives
        // that layout in native order (on little-endian targets, a byte swap).
        b.0 = (nonce | u128::from(*counter).to_be()).to_ne_bytes();
        *counter = counter.wrapping_add(1);
    }
}

#[inline(always)]
fn xor_into(blocks: &mut [Block], keystream: &[Block]) {
    for (b, k) in blocks.iter_mut().zip(keystream) {
        b.0 = xor(&b.0, &k.0);
    }
}

/// GHASH absorbs `blocks`, byte-reversed for POLYVAL through `scratch` (one call per stripe:
/// `blocks` is at most as long as `scratch`, but a longer one is hashed whole too).
#[inline(always)]
fn hash_reversed(ghash: &mut Polyval, blocks: &[Block], scratch: &mut [Block; STRIPE]) {
    for part in blocks.chunks(STRIPE) {
        let mut n = 0usize;
        for (s, b) in scratch.iter_mut().zip(part) {
            s.0 = reversed(&b.0);
            n = n.saturating_add(1);
        }
        ghash.update(scratch.get(..n).unwrap_or_default());
    }
}

#[cfg(test)]
mod tests {
    use aes::{Aes128, Aes192, Aes256};
    use aes_gcm::AesGcm;
    use aes_gcm::aead::consts::U12;
    use aes_gcm::aead::{AeadInOut, KeyInit as _};
    use proptest::prelude::*;

    use super::*;

    fn h(s: &str) -> Vec<u8> {
        hex::decode(s).unwrap()
    }

    fn check<C: BlockCipherEncrypt + BlockSizeUser<BlockSize = U16> + KeyInit>(
        key: &str,
        iv: &str,
        pt: &str,
        ad: &str,
        ct: &str,
        tag: &str,
    ) {
        let gcm = Gcm::<C>::new(&h(key)).unwrap();
        let (iv, pt, ad, ct, tag) = (h(iv), h(pt), h(ad), h(ct), h(tag));
        let mut buf = pt.clone();
        let t = gcm.encrypt_in_place(&iv, &ad, &mut buf).unwrap();
        assert_eq!(buf, ct);
        assert_eq!(t.as_slice(), tag);
        gcm.decrypt_in_place(&iv, &ad, &mut buf, &t).unwrap();
        assert_eq!(buf, pt);
    }

    /// The GCM specification's test cases (McGrew and Viega, "The Galois/Counter Mode of
    /// Operation", Appendix B) with 96-bit IVs: 1-4 (AES-128), 7-10 (AES-192), 13-16 (AES-256).
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
        check::<Aes128>(&z16[..32], z12, "", "", "", "58e2fccefa7e3061367f1d57a4e7455a");
        check::<Aes128>(
            &z16[..32],
            z12,
            z16,
            "",
            "0388dace60b6a392f328c2b971b2fe78",
            "ab6e47d42cec13bdf53a67b21257bddf",
        );
        let c3 = "42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091473f5985";
        check::<Aes128>(k128, iv, p, "", c3, "4d5c2af327cd64a62cf35abd2ba6fab4");
        check::<Aes128>(k128, iv, p60, a, &c3[..120], "5bc94fbc3221a5db94fae95ae7121a47");
        let z24 = "000000000000000000000000000000000000000000000000";
        check::<Aes192>(z24, z12, "", "", "", "cd33b28ac773f74ba00ed1f312572435");
        check::<Aes192>(
            z24,
            z12,
            z16,
            "",
            "98e7247c07f0fe411c267e4384b0f600",
            "2ff58d80033927ab8ef4d4587514f0fb",
        );
        let c9 = "3980ca0b3c00e841eb06fac4872a2757859e1ceaa6efd984628593b40ca1e19c7d773d00c144c525ac619d18c84a3f4718e2448b2fe324d9ccda2710acade256";
        check::<Aes192>(k192, iv, p, "", c9, "9924a7c8587336bfb118024db8674a14");
        check::<Aes192>(k192, iv, p60, a, &c9[..120], "2519498e80f1478f37ba55bd6d27618c");
        let z32 = "0000000000000000000000000000000000000000000000000000000000000000";
        check::<Aes256>(z32, z12, "", "", "", "530f8afbc74536b9a963b4f1c4cb738b");
        check::<Aes256>(
            z32,
            z12,
            z16,
            "",
            "cea7403d4d606b6e074ec5d3baf39d18",
            "d0d1c8a799996bf0265b98b5d48ab919",
        );
        let c15 = "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662898015ad";
        check::<Aes256>(k256, iv, p, "", c15, "b094dac5d93471bdec1a502270e3cc6c");
        check::<Aes256>(k256, iv, p60, a, &c15[..120], "76fc6ece0f4e1768cddf8853bb2d551b");
    }

    #[test]
    fn failures_wipe_and_are_opaque() {
        let gcm = Gcm::<Aes128>::new(&[7; 16]).unwrap();
        let mut buf = *b"attack at dawn!!!";
        let mut tag = gcm.encrypt_in_place(&[1; 12], b"ad", &mut buf).unwrap();
        let ct = buf;
        tag[15] ^= 1;
        assert!(matches!(gcm.decrypt_in_place(&[1; 12], b"ad", &mut buf, &tag), Err(Error::Decrypt)));
        assert_eq!(buf, [0; 17]);
        tag[15] ^= 1;
        buf = ct;
        assert!(matches!(gcm.decrypt_in_place(&[1; 12], b"ae", &mut buf, &tag), Err(Error::Decrypt)));
        buf = ct;
        assert!(matches!(gcm.decrypt_in_place(&[1; 11], b"ad", &mut buf, &tag), Err(Error::Decrypt)));
        assert!(matches!(gcm.encrypt_in_place(&[1; 16], b"ad", &mut buf), Err(Error::InvalidArgument(_))));
        assert!(Gcm::<Aes128>::new(&[7; 17]).is_err());
    }

    fn differential<C>(key: &[u8], nonce: &[u8; 12], ad: &[u8], data: &[u8])
    where
        C: BlockCipherEncrypt + BlockSizeUser<BlockSize = U16> + KeyInit,
        AesGcm<C, U12>: AeadInOut + KeyInit,
    {
        let ours = Gcm::<C>::new(key).unwrap();
        let theirs = AesGcm::<C, U12>::new_from_slice(key).unwrap();
        let mut a = data.to_vec();
        let mut b = data.to_vec();
        let tag_a = ours.encrypt_in_place(nonce, ad, &mut a).unwrap();
        let n = <&aes_gcm::aead::Nonce<AesGcm<C, U12>>>::try_from(&nonce[..]).unwrap();
        let tag_b = theirs.encrypt_inout_detached(n, ad, b.as_mut_slice().into()).unwrap();
        assert_eq!(a, b);
        assert_eq!(tag_a.as_slice(), tag_b.as_slice());
        ours.decrypt_in_place(nonce, ad, &mut a, &tag_a).unwrap();
        assert_eq!(a, data);
    }

    proptest! {
        /// Bit-for-bit `aes-gcm` for every key size, across lengths that cover whole AES-NI
        /// (8-block) and VAES-512 (64-block) groups, their remainders and partial blocks.
        #[test]
        fn matches_aes_gcm(
            key in prop::collection::vec(any::<u8>(), 32),
            nonce in any::<[u8; 12]>(),
            ad in prop::collection::vec(any::<u8>(), 0..40),
            data in prop::collection::vec(any::<u8>(), 0..3000),
        ) {
            differential::<Aes128>(&key[..16], &nonce, &ad, &data);
            differential::<Aes192>(&key[..24], &nonce, &ad, &data);
            differential::<Aes256>(&key, &nonce, &ad, &data);
        }
    }

    /// A long message (65 536 blocks and a partial one; the largest SEIPDv2 chunk is 4 MiB)
    /// against a second implementation: SHA-256 of the ciphertext and the tag from OpenSSL
    /// (Python `cryptography`'s AESGCM), for every key size; and against `aes-gcm`.
    #[test]
    fn long_message_matches_openssl() {
        use sha2::Digest;
        let data: Vec<u8> = (0..(1u32 << 20) + 13).map(|i| (i % 251) as u8).collect();
        let ad = b"\xd2\x02\x09\x03\x10";
        let cases = [
            (
                16,
                "02b1fab7b89bc9120d34e09b08a66183b314fe0b43bac2e9eeba107ff18d541d",
                "7a9450d3b35617d29143a57bb386e93b",
            ),
            (
                24,
                "7d792837fb64c74c1e6877f40ff6d164d8487b0c8fa46832f54827347896bfb6",
                "0b4363bfbb63d9cec8a8178a1ccee53a",
            ),
            (
                32,
                "a828ac91ccdd57630467efae613eb93f7843b190bd902550747df0d0618ab917",
                "c212164b9a4b64eadda2151c3dfc7664",
            ),
        ];
        for (len, ct_sha256, tag) in cases {
            let key = vec![9u8; len];
            let mut buf = data.clone();
            let t = match len {
                16 => Gcm::<Aes128>::new(&key).unwrap().encrypt_in_place(&[0xff; 12], ad, &mut buf),
                24 => Gcm::<Aes192>::new(&key).unwrap().encrypt_in_place(&[0xff; 12], ad, &mut buf),
                _ => Gcm::<Aes256>::new(&key).unwrap().encrypt_in_place(&[0xff; 12], ad, &mut buf),
            }
            .unwrap();
            assert_eq!(hex::encode(sha2::Sha256::digest(&buf)), ct_sha256, "AES-{}", len * 8);
            assert_eq!(hex::encode(t), tag, "AES-{}", len * 8);
        }
        differential::<Aes256>(&[9; 32], &[0xff; 12], ad, &data);
    }

    /// Any change to the ciphertext, tag, associated data or nonce fails and wipes the buffer.
    #[test]
    fn every_bit_flip_fails_and_wipes() {
        let gcm = Gcm::<Aes256>::new(&[3; 32]).unwrap();
        let plain: Vec<u8> = (0..100u8).collect();
        let nonce = [5u8; 12];
        let mut ct = plain.clone();
        let tag = gcm.encrypt_in_place(&nonce, b"ad", &mut ct).unwrap();
        for bit in 0..(ct.len() + 16 + 2 + 12) * 8 {
            let (mut c, mut t, mut a, mut n) = (ct.clone(), tag, *b"ad", nonce);
            let (byte, mask) = (bit / 8, 1u8 << (bit % 8));
            match byte {
                i if i < ct.len() => c[i] ^= mask,
                i if i < ct.len() + 16 => t[i - ct.len()] ^= mask,
                i if i < ct.len() + 18 => a[i - ct.len() - 16] ^= mask,
                i => n[i - ct.len() - 18] ^= mask,
            }
            assert!(matches!(gcm.decrypt_in_place(&n, &a, &mut c, &t), Err(Error::Decrypt)), "bit {bit}");
            assert!(c.iter().all(|&b| b == 0), "bit {bit}");
        }
        let mut c = ct.clone();
        gcm.decrypt_in_place(&nonce, b"ad", &mut c, &tag).unwrap();
        assert_eq!(c, plain);
    }
}

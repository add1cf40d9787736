//! OCB3 (RFC 7253) with 128-bit tags, on any 16-octet block cipher, feeding the cipher many
//! blocks per call.
//!
//! <https://www.rfc-editor.org/rfc/rfc7253#section-4>
//!
//! Why not `ocb3` 0.2: it calls `encrypt_block` once per 16-octet block, so the AES backend
//! never gets to pipeline (AES-NI interleaves 8 blocks, VAES up to 64) and pays its per-call
//! dispatch on every block. Here the offsets of a whole batch are computed first, the batch goes
//! through `encrypt_blocks`/`decrypt_blocks` in one call, and the offsets are XORed back. The
//! result is bit-for-bit RFC 7253 (checked against Appendix A and differentially against `ocb3`).
//!
//! The bulk loop works on windows of 64 blocks (1 KiB): the offsets of a window are one XOR of
//! a precomputed table each, applied 64 octets at a time, and the window goes to the backend
//! in whole groups. AES-NI (8 blocks) and the portable backend (4) tile the window in several
//! calls; VAES-256 (30 blocks) does not, and keeps the per-group loop.
//!
//! The `aes` crate's VAES-512 backend takes the whole window in one call (sixteen 64-octet
//! registers), but only a build with AVX-512 and VAES enabled at compile time inlines its loads
//! and stores. Detected at run time (as users get it), they go through helper calls and its
//! groups are no faster than AES-NI; there a window goes through the backend's single-block
//! path (AES-NI, inlined here) instead, each block XORed, enciphered, XORed and absorbed in one
//! pass in registers, which takes less CPU time (see [`one_at_a_time`]).
//!
//! Blocks are handled as `u128` in *native* byte order for XOR (endianness does not matter for
//! XOR); only doubling and the nonce-dependent shift use the big-endian value the RFC means.
//!
//! Zeroization: the key schedule is the cipher's (the `aes` crate wipes it on drop); the
//! key-derived values (L_*, L_$, the L table) are built in place in one heap allocation and
//! wiped on drop here, and the per-call offsets and checksum before returning.

use aes::cipher::array::Array;
use aes::cipher::consts::U16;
use aes::cipher::typenum::Unsigned;
use aes::cipher::{
    BlockCipherDecBackend, BlockCipherDecClosure, BlockCipherDecrypt, BlockCipherEncBackend,
    BlockCipherEncClosure, BlockCipherEncrypt, BlockSizeUser, KeyInit,
};
use subtle::ConstantTimeEq;
use zeroize::Zeroize;

use crate::crypto::xor_block as xor;
use crate::error::{Error, Result};

/// The tag length: OpenPGP always uses 128-bit OCB tags.
pub(super) const TAG_LEN: usize = 16;
/// L_i is needed for i = ntz(block index) ≤ 63.
const L_TABLE_LEN: usize = 64;
/// Blocks per window of the offset table (see [`Tables::prefix`]).
const WINDOW: usize = 64;
/// Octets per window.
const WINDOW_LEN: usize = WINDOW * 16;
/// Octets per lane: the bulk loops XOR four blocks at a time, one AVX-512 register's worth (or
/// two or four narrower ones), so that each store has the width of the cipher backend's load
/// of the same octets when that backend is VAES-512 (a wide load from several narrower
/// stores waits for them to reach the cache instead of being forwarded).
const LANE: usize = 64;

type Block = Array<u8, U16>;

/// `double(S)` of RFC 7253 §2 on a big-endian 128-bit value, without a branch on the
/// (key-derived) first bit at any optimization level: the bit becomes an all-zeros or all-ones
/// mask, as in RustCrypto's `dbl` crate.
fn double(s: u128) -> u128 {
    // S << 1 if the first bit is 0, else (S << 1) xor 0^120 ‖ 10000111.
    let mask = (s >> 127).wrapping_neg();
    (s << 1) ^ (mask & 0x87)
}

/// Native-order block value (for XOR) from a big-endian value.
fn ne_from_be(v: u128) -> u128 {
    u128::from_ne_bytes(v.to_be_bytes())
}

/// OCB3 with a 128-bit tag over block cipher `C`, keyed once.
pub(super) struct Ocb<C> {
    cipher: C,
    /// The key-derived values, computed in place on the heap so that moving an `Ocb` (into a
    /// `Box`, say) leaves no copy of them behind.
    tables: Box<Tables>,
}

impl<C> std::fmt::Debug for Ocb<C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Ocb([redacted])")
    }
}

impl<C> Ocb<C>
where
    C: BlockCipherEncrypt + BlockCipherDecrypt + BlockSizeUser<BlockSize = U16> + KeyInit,
{
    /// Keys the cipher and precomputes L_*, L_$ and L_0..L_63 (RFC 7253 §4.1).
    ///
    /// # Errors
    /// `InvalidArgument` if `key` does not have the cipher's key length.
    pub(super) fn new(key: &[u8]) -> Result<Self> {
        let cipher = C::new_from_slice(key).map_err(|_| Error::InvalidArgument("AEAD key length"))?;
        // L_* = ENCIPHER(K, zeros(128)); L_$ = double(L_*); L_0 = double(L_$);
        // L_i = double(L_{i-1}) for every integer i > 0.
        let mut tables =
            Box::new(Tables { l_star: 0, l_dollar: 0, l: [[0; 16]; L_TABLE_LEN], prefix: [[0; 16]; WINDOW] });
        let mut zero = Block::default();
        cipher.encrypt_block(&mut zero);
        let mut be = u128::from_be_bytes(zero.0);
        zero.0.zeroize();
        tables.l_star = ne_from_be(be);
        be = double(be);
        tables.l_dollar = ne_from_be(be);
        // L_i = double(L_{i-1}), L_0 = double(L_$), native order.
        for entry in &mut tables.l {
            be = double(be);
            *entry = ne_from_be(be).to_ne_bytes();
        }
        be.zeroize();
        let mut acc = [0u8; 16];
        for (t, entry) in (1u64..).zip(tables.prefix.iter_mut()) {
            acc = xor(&acc, &l_entry_bytes(&tables.l, t));
            *entry = acc;
        }
        acc.zeroize();
        Ok(Self { cipher, tables })
    }

    /// L_{ntz(i)} for a block index `i` ≥ 1.
    fn l_ntz(&self, i: u64) -> u128 {
        u128::from_ne_bytes(l_entry_bytes(&self.tables.l, i))
    }

    fn encipher(&self, v: u128) -> u128 {
        let mut b = Block::from(v.to_ne_bytes());
        self.cipher.encrypt_block(&mut b);
        let out = u128::from_ne_bytes(b.0);
        b.0.zeroize();
        out
    }

    /// Offset_0 from the nonce (RFC 7253 §4.2, "Nonce-dependent and per-encryption variables").
    fn initial_offset(&self, nonce: &[u8]) -> Result<u128> {
        // Nonce = num2str(TAGLEN mod 128,7) ‖ zeros(120-bitlen(N)) ‖ 1 ‖ N
        let n_len = nonce.len();
        if n_len == 0 || n_len > 15 {
            return Err(Error::InvalidArgument("AEAD nonce length"));
        }
        let mut block = [0u8; 16];
        let start = 16usize.checked_sub(n_len).ok_or(Error::InvalidArgument("AEAD nonce length"))?;
        block.get_mut(start..).ok_or(Error::InvalidArgument("AEAD nonce length"))?.copy_from_slice(nonce);
        let one_at = start.checked_sub(1).ok_or(Error::InvalidArgument("AEAD nonce length"))?;
        *block.get_mut(one_at).ok_or(Error::InvalidArgument("AEAD nonce length"))? |= 1;
        let nonce_be = u128::from_be_bytes(block);
        // bottom = str2num(Nonce[123..128])
        let bottom = u32::try_from(nonce_be & 0x3f).unwrap_or(0);
        // Ktop = ENCIPHER(K, Nonce[1..122] ‖ zeros(6))
        let mut top = Block::from((nonce_be & !0x3f).to_be_bytes());
        self.cipher.encrypt_block(&mut top);
        let ktop = u128::from_be_bytes(top.0);
        top.0.zeroize();
        // Stretch = Ktop ‖ (Ktop[1..64] xor Ktop[9..72])
        let high = u64::try_from(ktop >> 64).unwrap_or(0);
        let next = u64::try_from((ktop >> 56) & u128::from(u64::MAX)).unwrap_or(0);
        let stretch_low = u128::from(high ^ next);
        // Offset_0 = Stretch[1+bottom..128+bottom]
        let offset =
            if bottom == 0 { ktop } else { (ktop << bottom) | (stretch_low >> 64u32.saturating_sub(bottom)) };
        Ok(ne_from_be(offset))
    }

    /// HASH(K, A) (RFC 7253 §4.1). OpenPGP's associated data is at most 13 octets, so one block
    /// at a time is fine here.
    fn hash(&self, ad: &[u8]) -> u128 {
        let (blocks, tail) = ad.as_chunks::<16>();
        let mut sum = 0u128;
        let mut offset = 0u128;
        let mut i = 0u64;
        for a in blocks {
            // Offset_i = Offset_{i-1} xor L_{ntz(i)}; Sum_i = Sum_{i-1} xor ENCIPHER(K, A_i xor Offset_i)
            i = i.wrapping_add(1);
            offset ^= self.l_ntz(i);
            sum ^= self.encipher(u128::from_ne_bytes(*a) ^ offset);
        }
        if !tail.is_empty() {
            // Offset_* = Offset_m xor L_*; CipherInput = (A_* ‖ 1 ‖ zeros) xor Offset_*
            offset ^= self.tables.l_star;
            sum ^= self.encipher(pad_block(tail) ^ offset);
        }
        offset.zeroize();
        sum
    }

    /// Encrypts `buf` in place and returns the tag (RFC 7253 §4.2).
    ///
    /// # Errors
    /// `InvalidArgument` for a nonce that is empty or longer than 15 octets.
    pub(super) fn seal(&self, nonce: &[u8], ad: &[u8], buf: &mut [u8]) -> Result<[u8; TAG_LEN]> {
        let mut offset = self.initial_offset(nonce)?.to_ne_bytes();
        let mut checksum = [0u8; 16];
        let (blocks, tail) = buf.as_chunks_mut::<16>();
        // The full blocks, inside the cipher backend (see `EncryptBlocks`).
        self.cipher.encrypt_with_backend(EncryptBlocks {
            tables: &self.tables,
            blocks: blocks.as_flattened_mut(),
            offset: &mut offset,
            checksum: &mut checksum,
        });
        let mut offset = u128::from_ne_bytes(offset);
        let mut checksum = u128::from_ne_bytes(checksum);
        if !tail.is_empty() {
            // Offset_* = Offset_m xor L_*; Pad = ENCIPHER(K, Offset_*);
            // C_* = P_* xor Pad[1..bitlen(P_*)]; Checksum_* = Checksum_m xor (P_* ‖ 1 ‖ zeros)
            offset ^= self.tables.l_star;
            checksum ^= pad_block(tail);
            let mut pad = self.encipher(offset).to_ne_bytes();
            for (b, p) in tail.iter_mut().zip(pad.iter()) {
                *b ^= p;
            }
            pad.zeroize();
        }
        // Tag = ENCIPHER(K, Checksum_* xor Offset_* xor L_$) xor HASH(K,A)
        let tag = self.encipher(checksum ^ offset ^ self.tables.l_dollar) ^ self.hash(ad);
        offset.zeroize();
        checksum.zeroize();
        Ok(tag.to_ne_bytes())
    }

    /// Checks `tag` and decrypts `buf` in place (RFC 7253 §4.3). On failure `buf` is wiped, so
    /// no unauthenticated plaintext escapes.
    ///
    /// # Errors
    /// `Decrypt` if the tag does not verify or the nonce length is invalid.
    pub(super) fn open(&self, nonce: &[u8], ad: &[u8], buf: &mut [u8], tag: &[u8; TAG_LEN]) -> Result<()> {
        self.decrypt(nonce, ad, None, buf, tag)
    }

    /// Checks `tag` and decrypts `ct` into `out`, which must be as long: the first pass over
    /// each window reads `ct` and writes `out`, so this costs what decrypting in place does.
    /// On failure `out` is wiped.
    ///
    /// # Errors
    /// `Decrypt` if the tag does not verify, the nonce length is invalid or the lengths differ.
    pub(super) fn open_to(
        &self,
        nonce: &[u8],
        ad: &[u8],
        ct: &[u8],
        out: &mut [u8],
        tag: &[u8; TAG_LEN],
    ) -> Result<()> {
        if ct.len() != out.len() {
            out.zeroize();
            return Err(Error::Decrypt);
        }
        self.decrypt(nonce, ad, Some(ct), out, tag)
    }

    /// Decrypts `buf` in place, or `src` into `buf`, and checks `tag`; wipes `buf` on failure.
    fn decrypt(
        &self,
        nonce: &[u8],
        ad: &[u8],
        src: Option<&[u8]>,
        buf: &mut [u8],
        tag: &[u8; TAG_LEN],
    ) -> Result<()> {
        let Ok(offset) = self.initial_offset(nonce) else {
            buf.zeroize();
            return Err(Error::Decrypt);
        };
        let mut offset = offset.to_ne_bytes();
        let mut checksum = [0u8; 16];
        let (blocks, tail) = buf.as_chunks_mut::<16>();
        let (src_blocks, src_tail) = match src {
            Some(src) => {
                let (b, t) = src.as_chunks::<16>();
                (Some(b.as_flattened()), Some(t))
            }
            None => (None, None),
        };
        if let Some(src_tail) = src_tail {
            tail.copy_from_slice(src_tail);
        }
        self.cipher.decrypt_with_backend(DecryptBlocks {
            tables: &self.tables,
            src: src_blocks,
            blocks: blocks.as_flattened_mut(),
            offset: &mut offset,
            checksum: &mut checksum,
        });
        let mut offset = u128::from_ne_bytes(offset);
        let mut checksum = u128::from_ne_bytes(checksum);
        if !tail.is_empty() {
            // Offset_* = Offset_m xor L_*; Pad = ENCIPHER(K, Offset_*);
            // P_* = C_* xor Pad[1..bitlen(C_*)]; Checksum_* = Checksum_m xor (P_* ‖ 1 ‖ zeros)
            offset ^= self.tables.l_star;
            let mut pad = self.encipher(offset).to_ne_bytes();
            for (b, p) in tail.iter_mut().zip(pad.iter()) {
                *b ^= p;
            }
            pad.zeroize();
            checksum ^= pad_block(tail);
        }
        // Tag = ENCIPHER(K, Checksum_* xor Offset_* xor L_$) xor HASH(K,A)
        let expected = self.encipher(checksum ^ offset ^ self.tables.l_dollar) ^ self.hash(ad);
        offset.zeroize();
        checksum.zeroize();
        // Constant-time comparison: no early exit on the first differing octet.
        let same: bool = expected.to_ne_bytes().ct_eq(tag).into();
        if !same {
            buf.zeroize();
            return Err(Error::Decrypt);
        }
        Ok(())
    }
}

/// The key-derived tables the bulk loops use, as octet arrays (so that XOR compiles to vector
/// instructions instead of pairs of 64-bit operations).
struct Tables {
    /// L_* = ENCIPHER(K, zeros(128)), native order.
    l_star: u128,
    /// L_$ = double(L_*), native order.
    l_dollar: u128,
    /// L_i (RFC 7253 §4.1) for i < 64.
    l: [B16; L_TABLE_LEN],
    /// `prefix[j]` = L_{ntz(1)} xor … xor L_{ntz(j+1)}: within a window of 64 blocks that starts
    /// after block 64·k, Offset_{64k+j+1} = Offset_{64k} xor `prefix[j]` for j < 63, because
    /// ntz(64k + t) = ntz(t) for 1 ≤ t < 64. This turns the serial offset chain into one
    /// independent XOR per block; only the window's last block needs L_{ntz(64(k+1))}.
    prefix: [B16; WINDOW],
}

impl Tables {
    /// Offset_i for the next block index `i` (≥ 1), given `pos` = i − 1 − 64·k (0..64) and
    /// `base` = Offset_{64k}; moves `pos` and `base` on.
    #[inline(always)]
    fn next_offset(&self, i: u64, pos: &mut usize, base: &mut B16) -> B16 {
        let pre = self.prefix.get(*pos).copied().unwrap_or_default();
        *pos = pos.wrapping_add(1);
        if *pos < WINDOW {
            return xor(base, &pre);
        }
        // Block 64(k+1): Offset = Offset_{64k+63} xor L_{ntz(64(k+1))}.
        *pos = 0;
        let before = xor(base, self.prefix.get(WINDOW.wrapping_sub(2)).unwrap_or(&[0; 16]));
        *base = xor(&before, &l_entry_bytes(&self.l, i));
        *base
    }
}

impl Drop for Tables {
    fn drop(&mut self) {
        self.l_star.zeroize();
        self.l_dollar.zeroize();
        self.l.zeroize();
        self.prefix.zeroize();
    }
}

/// The full blocks of an encryption, run inside the cipher's backend: `call` is inlined into
/// the backend's `#[target_feature]` function, so the offset and checksum XORs around each
/// group of `ParBlocksSize` blocks use the same vector registers as the AES rounds, and the
/// backend gets whole groups (8 blocks for AES-NI, 64 for VAES-512).
///
/// For block i: Offset_i = Offset_{i-1} xor L_{ntz(i)}; Checksum_i = Checksum_{i-1} xor P_i;
/// C_i = Offset_i xor ENCIPHER(K, P_i xor Offset_i) (RFC 7253 §4.2).
struct EncryptBlocks<'a, 'b> {
    tables: &'a Tables,
    /// Whole blocks.
    blocks: &'b mut [u8],
    /// In: Offset_0. Out: Offset_m.
    offset: &'b mut B16,
    /// Out: Checksum_m.
    checksum: &'b mut B16,
}

impl BlockSizeUser for EncryptBlocks<'_, '_> {
    type BlockSize = U16;
}

impl BlockCipherEncClosure for EncryptBlocks<'_, '_> {
    #[inline(always)]
    fn call<E: BlockCipherEncBackend<BlockSize = U16>>(self, backend: &E) {
        let mut run = Run::new(self.tables, *self.offset);
        let mut blocks = self.blocks;
        // Whole windows when the backend's groups tile one (all but VAES-256's 30 blocks).
        if WINDOW.is_multiple_of(E::ParBlocksSize::USIZE) {
            let (windows, rest) = blocks.as_chunks_mut::<WINDOW_LEN>();
            for window in windows {
                if one_at_a_time::<E::ParBlocksSize>() {
                    run.window_by_block::<true>(window, None, |block| backend.encrypt_block_inplace(block));
                    continue;
                }
                run.window::<true>(window, None, |window| {
                    let (blocks, _) = Block::slice_as_chunks_mut(window);
                    let (groups, _) = Array::<Block, E::ParBlocksSize>::slice_as_chunks_mut(blocks);
                    for group in groups {
                        backend.encrypt_par_blocks_inplace(group);
                    }
                });
            }
            blocks = rest;
        }
        let (blocks, _) = Block::slice_as_chunks_mut(blocks);
        let (groups, rest) = Array::<Block, E::ParBlocksSize>::slice_as_chunks_mut(blocks);
        let mut offsets = Array::<Block, E::ParBlocksSize>::default();
        for group in groups {
            for (block, off) in group.iter_mut().zip(offsets.iter_mut()) {
                off.0 = run.next();
                run.absorb(&block.0);
                block.0 = xor(&block.0, &off.0);
            }
            backend.encrypt_par_blocks_inplace(group);
            for (block, off) in group.iter_mut().zip(offsets.iter()) {
                block.0 = xor(&block.0, &off.0);
            }
        }
        for (block, off) in rest.iter_mut().zip(offsets.iter_mut()) {
            off.0 = run.next();
            run.absorb(&block.0);
            block.0 = xor(&block.0, &off.0);
        }
        backend.encrypt_tail_blocks_inplace(rest);
        for (block, off) in rest.iter_mut().zip(offsets.iter()) {
            block.0 = xor(&block.0, &off.0);
        }
        for off in offsets.iter_mut() {
            off.0.zeroize();
        }
        run.finish(self.offset, self.checksum);
    }
}

/// The full blocks of a decryption, like [`EncryptBlocks`]: for block i,
/// P_i = Offset_i xor DECIPHER(K, C_i xor Offset_i); Checksum_i = Checksum_{i-1} xor P_i
/// (RFC 7253 §4.3).
struct DecryptBlocks<'a, 'b> {
    tables: &'a Tables,
    /// The ciphertext when it is not `blocks` itself: as long as `blocks`, which it is
    /// decrypted into.
    src: Option<&'b [u8]>,
    /// Whole blocks.
    blocks: &'b mut [u8],
    offset: &'b mut B16,
    checksum: &'b mut B16,
}

impl BlockSizeUser for DecryptBlocks<'_, '_> {
    type BlockSize = U16;
}

impl BlockCipherDecClosure for DecryptBlocks<'_, '_> {
    #[inline(always)]
    fn call<D: BlockCipherDecBackend<BlockSize = U16>>(self, backend: &D) {
        let mut run = Run::new(self.tables, *self.offset);
        let mut blocks = self.blocks;
        let mut src = self.src;
        if WINDOW.is_multiple_of(D::ParBlocksSize::USIZE) {
            let (windows, rest) = blocks.as_chunks_mut::<WINDOW_LEN>();
            let src_windows = src.map(|s| s.as_chunks::<WINDOW_LEN>());
            for (k, window) in windows.iter_mut().enumerate() {
                let from = src_windows.and_then(|(w, _)| w.get(k));
                if one_at_a_time::<D::ParBlocksSize>() {
                    run.window_by_block::<false>(window, from, |block| backend.decrypt_block_inplace(block));
                    continue;
                }
                run.window::<false>(window, from, |window| {
                    let (blocks, _) = Block::slice_as_chunks_mut(window);
                    let (groups, _) = Array::<Block, D::ParBlocksSize>::slice_as_chunks_mut(blocks);
                    for group in groups {
                        backend.decrypt_par_blocks_inplace(group);
                    }
                });
            }
            blocks = rest;
            src = src_windows.map(|(_, rest)| rest);
        }
        // Fewer blocks than a window (or a backend that does not tile one): in place, after a
        // copy.
        if let Some(src) = src {
            blocks.copy_from_slice(src);
        }
        let (blocks, _) = Block::slice_as_chunks_mut(blocks);
        let (groups, rest) = Array::<Block, D::ParBlocksSize>::slice_as_chunks_mut(blocks);
        let mut offsets = Array::<Block, D::ParBlocksSize>::default();
        for group in groups {
            for (block, off) in group.iter_mut().zip(offsets.iter_mut()) {
                off.0 = run.next();
                block.0 = xor(&block.0, &off.0);
            }
            backend.decrypt_par_blocks_inplace(group);
            for (block, off) in group.iter_mut().zip(offsets.iter()) {
                block.0 = xor(&block.0, &off.0);
                run.absorb(&block.0);
            }
        }
        for (block, off) in rest.iter_mut().zip(offsets.iter_mut()) {
            off.0 = run.next();
            block.0 = xor(&block.0, &off.0);
        }
        backend.decrypt_tail_blocks_inplace(rest);
        for (block, off) in rest.iter_mut().zip(offsets.iter()) {
            block.0 = xor(&block.0, &off.0);
            run.absorb(&block.0);
        }
        for off in offsets.iter_mut() {
            off.0.zeroize();
        }
        run.finish(self.offset, self.checksum);
    }
}

/// Whether a window goes to the backend one block at a time ([`Run::window_by_block`]) rather
/// than in its groups: for the `aes` crate's VAES-512 backend (64-block groups) unless AVX-512
/// and VAES are enabled at compile time. Without them its group path loads and stores through
/// helper calls and is no faster than its single-block path (AES-NI, inlined into the caller,
/// the CPU keeping several blocks in flight); docs/performance.md has the measurements.
const fn one_at_a_time<P: Unsigned>() -> bool {
    P::USIZE == WINDOW && !cfg!(all(target_feature = "avx512f", target_feature = "vaes"))
}

/// The running offset and checksum over the full blocks.
struct Run<'a> {
    tables: &'a Tables,
    /// Index of the last block whose offset was computed.
    i: u64,
    pos: usize,
    base: B16,
    last: B16,
    checksum: B16,
    /// `base` four times (see [`Run::window`]).
    base4: [u8; LANE],
    /// Four partial checksums, one per block position in a lane.
    checksum4: [u8; LANE],
}

impl<'a> Run<'a> {
    #[inline(always)]
    fn new(tables: &'a Tables, offset: B16) -> Self {
        Self {
            tables,
            i: 0,
            pos: 0,
            base: offset,
            last: offset,
            checksum: [0; 16],
            base4: [0; LANE],
            checksum4: [0; LANE],
        }
    }

    /// One whole window of 64 blocks, while `pos` is 0: XORs each block with its offset, runs
    /// `cipher` over the window, XORs the offsets again and absorbs the plaintext (before
    /// `cipher` when `ENCRYPT`, after it otherwise).
    ///
    /// Offset_{64k+j+1} = Offset_{64k} xor `prefix[j]` for j < 63 (see [`Tables::prefix`]), and
    /// `prefix[63]` ends in L_{ntz(64)} = L_6 where block 64(k+1) needs L_{ntz(64(k+1))}: `fix`,
    /// their XOR, is added to the window's last block only.
    #[inline(always)]
    fn window<const ENCRYPT: bool>(
        &mut self,
        window: &mut [u8; WINDOW_LEN],
        from: Option<&[u8; WINDOW_LEN]>,
        cipher: impl FnOnce(&mut [u8; WINDOW_LEN]),
    ) {
        self.i = self.i.wrapping_add(WINDOW as u64);
        let fix = xor(&l_entry_bytes(&self.tables.l, WINDOW as u64), &l_entry_bytes(&self.tables.l, self.i));
        for part in self.base4.as_chunks_mut::<16>().0 {
            *part = self.base;
        }
        let (prefix, _) = self.tables.prefix.as_flattened().as_chunks::<LANE>();
        let (lanes, _) = window.as_chunks_mut::<LANE>();
        match from {
            // Decrypting `from` into `window`: the first pass reads one and writes the other.
            Some(from) => {
                let (sources, _) = from.as_chunks::<LANE>();
                for ((lane, src), pre) in lanes.iter_mut().zip(sources).zip(prefix) {
                    *lane = xor64(src, &xor64(&self.base4, pre));
                }
            }
            None => {
                for (lane, pre) in lanes.iter_mut().zip(prefix) {
                    if ENCRYPT {
                        self.checksum4 = xor64(&self.checksum4, lane);
                    }
                    *lane = xor64(lane, &xor64(&self.base4, pre));
                }
            }
        }
        if let Some(last) = window.last_chunk_mut::<16>() {
            *last = xor(last, &fix);
        }
        cipher(window);
        if let Some(last) = window.last_chunk_mut::<16>() {
            *last = xor(last, &fix);
        }
        let (lanes, _) = window.as_chunks_mut::<LANE>();
        for (lane, pre) in lanes.iter_mut().zip(prefix) {
            *lane = xor64(lane, &xor64(&self.base4, pre));
            if !ENCRYPT {
                self.checksum4 = xor64(&self.checksum4, lane);
            }
        }
        // Offset_{64(k+1)}.
        let end = self.tables.prefix.last().copied().unwrap_or_default();
        self.base = xor(&xor(&self.base, &end), &fix);
        self.last = self.base;
    }

    /// [`Run::window`] for a cipher that takes one block at a time: each block is XORed,
    /// enciphered, XORed again and absorbed in one pass, in registers.
    #[inline(always)]
    fn window_by_block<const ENCRYPT: bool>(
        &mut self,
        window: &mut [u8; WINDOW_LEN],
        from: Option<&[u8; WINDOW_LEN]>,
        mut cipher: impl FnMut(&mut Block),
    ) {
        self.i = self.i.wrapping_add(WINDOW as u64);
        let fix = xor(&l_entry_bytes(&self.tables.l, WINDOW as u64), &l_entry_bytes(&self.tables.l, self.i));
        let (blocks, _) = window.as_chunks_mut::<16>();
        let sources = from.map(|f| f.as_chunks::<16>().0);
        for (j, (block, pre)) in blocks.iter_mut().zip(&self.tables.prefix).enumerate() {
            let mut offset = xor(&self.base, pre);
            if j == WINDOW - 1 {
                offset = xor(&offset, &fix);
            }
            let input = sources.and_then(|s| s.get(j)).unwrap_or(block);
            if ENCRYPT {
                self.checksum = xor(&self.checksum, input);
            }
            let mut x = Block::from(xor(input, &offset));
            cipher(&mut x);
            let output = xor(&x.0, &offset);
            if !ENCRYPT {
                self.checksum = xor(&self.checksum, &output);
            }
            *block = output;
        }
        // Offset_{64(k+1)}.
        let end = self.tables.prefix.last().copied().unwrap_or_default();
        self.base = xor(&xor(&self.base, &end), &fix);
        self.last = self.base;
    }

    #[inline(always)]
    fn next(&mut self) -> B16 {
        self.i = self.i.wrapping_add(1);
        self.last = self.tables.next_offset(self.i, &mut self.pos, &mut self.base);
        self.last
    }

    #[inline(always)]
    fn absorb(&mut self, plain: &B16) {
        self.checksum = xor(&self.checksum, plain);
    }

    /// Stores Offset_m and Checksum_m and wipes the copies.
    #[inline(always)]
    fn finish(mut self, offset: &mut B16, checksum: &mut B16) {
        *offset = self.last;
        let mut sum = self.checksum;
        for part in self.checksum4.as_chunks::<16>().0 {
            sum = xor(&sum, part);
        }
        *checksum = sum;
        sum.zeroize();
        self.base.zeroize();
        self.last.zeroize();
        self.checksum.zeroize();
        self.base4.zeroize();
        self.checksum4.zeroize();
    }
}

/// A 16-octet block as a plain array.
type B16 = [u8; 16];

/// `a` xor `b` for one lane.
#[inline(always)]
fn xor64(a: &[u8; LANE], b: &[u8; LANE]) -> [u8; LANE] {
    let mut out = [0u8; LANE];
    for ((o, x), y) in out.iter_mut().zip(a).zip(b) {
        *o = x ^ y;
    }
    out
}

/// L_{ntz(i)} as octets, for a block index `i` ≥ 1.
#[inline(always)]
fn l_entry_bytes(l: &[B16; L_TABLE_LEN], i: u64) -> B16 {
    let ntz = usize::try_from(i.trailing_zeros() & 63).unwrap_or(0);
    l.get(ntz).copied().unwrap_or_default()
}

/// `X ‖ 1 ‖ zeros` for a partial block `X` of fewer than 16 octets, native order.
fn pad_block(x: &[u8]) -> u128 {
    let mut block = [0u8; 16];
    for (d, s) in block.iter_mut().zip(x) {
        *d = *s;
    }
    if let Some(b) = block.get_mut(x.len()) {
        *b = 0x80;
    }
    let v = u128::from_ne_bytes(block);
    block.zeroize();
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use aes::{Aes128, Aes192, Aes256};
    use aes_gcm::aead::consts::{U12, U15};
    use aes_gcm::aead::{AeadCore, AeadInOut};
    use ocb3::Ocb3;
    use proptest::prelude::*;

    fn h(s: &str) -> Vec<u8> {
        hex::decode(s).unwrap()
    }

    /// RFC 7253 Appendix A: all sixteen AES-128 / TAGLEN 128 sample results.
    #[test]
    fn rfc7253_appendix_a_samples() {
        let key = h("000102030405060708090a0b0c0d0e0f");
        let ocb = Ocb::<Aes128>::new(&key).unwrap();
        let cases: [(&str, &str, &str, &str); 16] = [
            ("BBAA99887766554433221100", "", "", "785407BFFFC8AD9EDCC5520AC9111EE6"),
            (
                "BBAA99887766554433221101",
                "0001020304050607",
                "0001020304050607",
                "6820B3657B6F615A5725BDA0D3B4EB3A257C9AF1F8F03009",
            ),
            ("BBAA99887766554433221102", "0001020304050607", "", "81017F8203F081277152FADE694A0A00"),
            (
                "BBAA99887766554433221103",
                "",
                "0001020304050607",
                "45DD69F8F5AAE72414054CD1F35D82760B2CD00D2F99BFA9",
            ),
            (
                "BBAA99887766554433221104",
                "000102030405060708090A0B0C0D0E0F",
                "000102030405060708090A0B0C0D0E0F",
                "571D535B60B277188BE5147170A9A22C3AD7A4FF3835B8C5701C1CCEC8FC3358",
            ),
            (
                "BBAA99887766554433221105",
                "000102030405060708090A0B0C0D0E0F",
                "",
                "8CF761B6902EF764462AD86498CA6B97",
            ),
            (
                "BBAA99887766554433221106",
                "",
                "000102030405060708090A0B0C0D0E0F",
                "5CE88EC2E0692706A915C00AEB8B2396F40E1C743F52436BDF06D8FA1ECA343D",
            ),
            (
                "BBAA99887766554433221107",
                "000102030405060708090A0B0C0D0E0F1011121314151617",
                "000102030405060708090A0B0C0D0E0F1011121314151617",
                "1CA2207308C87C010756104D8840CE1952F09673A448A122C92C62241051F57356D7F3C90BB0E07F",
            ),
            (
                "BBAA99887766554433221108",
                "000102030405060708090A0B0C0D0E0F1011121314151617",
                "",
                "6DC225A071FC1B9F7C69F93B0F1E10DE",
            ),
            (
                "BBAA99887766554433221109",
                "",
                "000102030405060708090A0B0C0D0E0F1011121314151617",
                "221BD0DE7FA6FE993ECCD769460A0AF2D6CDED0C395B1C3CE725F32494B9F914D85C0B1EB38357FF",
            ),
            (
                "BBAA9988776655443322110A",
                "000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F",
                "000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F",
                "BD6F6C496201C69296C11EFD138A467ABD3C707924B964DEAFFC40319AF5A48540FBBA186C5553C68AD9F592A79A4240",
            ),
            (
                "BBAA9988776655443322110B",
                "000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F",
                "",
                "FE80690BEE8A485D11F32965BC9D2A32",
            ),
            (
                "BBAA9988776655443322110C",
                "",
                "000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F",
                "2942BFC773BDA23CABC6ACFD9BFD5835BD300F0973792EF46040C53F1432BCDFB5E1DDE3BC18A5F840B52E653444D5DF",
            ),
            (
                "BBAA9988776655443322110D",
                "000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F2021222324252627",
                "000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F2021222324252627",
                "D5CA91748410C1751FF8A2F618255B68A0A12E093FF454606E59F9C1D0DDC54B65E8628E568BAD7AED07BA06A4A69483A7035490C5769E60",
            ),
            (
                "BBAA9988776655443322110E",
                "000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F2021222324252627",
                "",
                "C5CD9D1850C141E358649994EE701B68",
            ),
            (
                "BBAA9988776655443322110F",
                "",
                "000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F2021222324252627",
                "4412923493C57D5DE0D700F753CCE0D1D2D95060122E9F15A5DDBFC5787E50B5CC55EE507BCB084E479AD363AC366B95A98CA5F3000B1479",
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

    /// RFC 7253 Appendix A's iterated test: for each key length, the output of the last
    /// encryption of the 128-iteration loop with TAGLEN 128.
    #[test]
    fn rfc7253_appendix_a_iterated() {
        fn run<C>(keylen_bits: u16, expected: &str)
        where
            C: BlockCipherEncrypt + BlockCipherDecrypt + BlockSizeUser<BlockSize = U16> + KeyInit,
        {
            // K = zeros(KEYLEN-8) ‖ num2str(TAGLEN,8)
            let mut key = vec![0u8; usize::from(keylen_bits / 8)];
            *key.last_mut().unwrap() = 128;
            let ocb = Ocb::<C>::new(&key).unwrap();
            let mut c = Vec::new();
            for i in 0..128u32 {
                // S = zeros(8i)
                let s = vec![0u8; i as usize];
                let n = |k: u32| {
                    let mut n = vec![0u8; 12];
                    n[8..].copy_from_slice(&k.to_be_bytes());
                    n
                };
                // N = num2str(3i+1,96); C = C ‖ OCB-ENCRYPT(K,N,S,S)
                for (k, ad) in [(3 * i + 1, &s[..]), (3 * i + 2, &[][..]), (3 * i + 3, &s[..])] {
                    let mut buf = if k == 3 * i + 3 { Vec::new() } else { s.clone() };
                    let tag = ocb.seal(&n(k), ad, &mut buf).unwrap();
                    c.extend_from_slice(&buf);
                    c.extend_from_slice(&tag);
                }
            }
            // N = num2str(385,96); Output = OCB-ENCRYPT(K,N,C,<empty string>)
            let mut nonce = vec![0u8; 12];
            nonce[8..].copy_from_slice(&385u32.to_be_bytes());
            let tag = ocb.seal(&nonce, &c, &mut []).unwrap();
            assert_eq!(hex::encode_upper(tag), expected, "AES-{keylen_bits}");
        }
        run::<Aes128>(128, "67E944D23256C5E0B6C61FA22FDF1EA2");
        run::<Aes192>(192, "F673F2C3E7174AAE7BAE986CA9F29E17");
        run::<Aes256>(256, "D90EB8E9C977C88B79DD793D7FFA161C");
    }

    /// Encrypt with `Ocb`, compare with `ocb3`, decrypt with both, then tamper.
    fn differential<C, O>(key: &[u8], nonce: &[u8], ad: &[u8], pt: &[u8], flip: usize)
    where
        C: BlockCipherEncrypt + BlockCipherDecrypt + BlockSizeUser<BlockSize = U16> + KeyInit,
        O: AeadInOut + AeadCore<TagSize = U16> + KeyInit,
    {
        let ours = Ocb::<C>::new(key).unwrap();
        let theirs = O::new_from_slice(key).unwrap();
        let n = <&aes_gcm::aead::Nonce<O>>::try_from(nonce).unwrap();
        let mut a = pt.to_vec();
        let tag = ours.seal(nonce, ad, &mut a).unwrap();
        let mut b = pt.to_vec();
        let tag_b = theirs.encrypt_inout_detached(n, ad, b.as_mut_slice().into()).unwrap();
        assert_eq!(a, b);
        assert_eq!(tag[..], tag_b[..]);
        theirs.decrypt_inout_detached(n, ad, b.as_mut_slice().into(), &tag_b).unwrap();
        assert_eq!(b, pt);
        let mut c = a.clone();
        ours.open(nonce, ad, &mut c, &tag).unwrap();
        assert_eq!(c, pt);
        // Out of place: the same plaintext, and the ciphertext left as it was.
        let mut out = vec![0x5a; a.len()];
        ours.open_to(nonce, ad, &a, &mut out, &tag).unwrap();
        assert_eq!(out, pt);
        assert_eq!(a, b_ct(&theirs, n, ad, pt));
        // Any single bit flip in ciphertext, tag, nonce or AD is rejected and wipes the buffer.
        let total = a.len() + TAG_LEN + nonce.len() + ad.len();
        let bit = flip % (total * 8);
        let (octet, mask) = (bit / 8, 1u8 << (bit % 8));
        let (mut ct, mut tag2, mut nonce2, mut ad2) = (a.clone(), tag, nonce.to_vec(), ad.to_vec());
        if octet < ct.len() {
            ct[octet] ^= mask;
        } else if octet < ct.len() + TAG_LEN {
            tag2[octet - ct.len()] ^= mask;
        } else if octet < ct.len() + TAG_LEN + nonce.len() {
            nonce2[octet - ct.len() - TAG_LEN] ^= mask;
        } else {
            ad2[octet - ct.len() - TAG_LEN - nonce.len()] ^= mask;
        }
        let mut out = vec![0x5a; ct.len()];
        assert!(matches!(ours.open_to(&nonce2, &ad2, &ct, &mut out, &tag2), Err(Error::Decrypt)));
        assert!(out.iter().all(|&x| x == 0));
        assert!(matches!(ours.open(&nonce2, &ad2, &mut ct, &tag2), Err(Error::Decrypt)));
        assert!(ct.iter().all(|&x| x == 0));
        // Buffers of different lengths are refused, and the output wiped.
        if !a.is_empty() {
            let mut short = vec![0x5a; a.len() - 1];
            assert!(matches!(ours.open_to(nonce, ad, &a, &mut short, &tag), Err(Error::Decrypt)));
            assert!(short.iter().all(|&x| x == 0));
        }
    }

    /// The reference ciphertext of `pt`.
    fn b_ct<O: AeadInOut>(theirs: &O, n: &aes_gcm::aead::Nonce<O>, ad: &[u8], pt: &[u8]) -> Vec<u8> {
        let mut b = pt.to_vec();
        let _ = theirs.encrypt_inout_detached(n, ad, b.as_mut_slice().into()).unwrap();
        b
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]
        #[test]
        fn matches_ocb3_15_octet_nonces(
            key in prop::array::uniform32(any::<u8>()),
            nonce in prop::array::uniform15(any::<u8>()),
            ad in prop::collection::vec(any::<u8>(), 0..70),
            pt in prop::collection::vec(any::<u8>(), 0..2200),
            keylen in 0usize..3,
            flip in any::<usize>(),
        ) {
            match keylen {
                0 => differential::<Aes128, Ocb3<Aes128, U15, U16>>(&key[..16], &nonce, &ad, &pt, flip),
                1 => differential::<Aes192, Ocb3<Aes192, U15, U16>>(&key[..24], &nonce, &ad, &pt, flip),
                _ => differential::<Aes256, Ocb3<Aes256, U15, U16>>(&key, &nonce, &ad, &pt, flip),
            }
        }

        #[test]
        fn matches_ocb3_12_octet_nonces(
            key in prop::array::uniform16(any::<u8>()),
            nonce in prop::array::uniform12(any::<u8>()),
            ad in prop::collection::vec(any::<u8>(), 0..40),
            pt in prop::collection::vec(any::<u8>(), 0..1100),
            flip in any::<usize>(),
        ) {
            differential::<Aes128, Ocb3<Aes128, U12, U16>>(&key, &nonce, &ad, &pt, flip);
        }
    }

    #[test]
    fn large_buffers_and_batch_edges_match_ocb3() {
        let key = [0x11u8; 32];
        let nonce = [0x22u8; 15];
        for len in [16 * 63, 16 * 64, 16 * 64 + 1, 16 * 65, 16 * 128 - 1, 16 * 128, 262_144, 262_144 + 7] {
            let pt: Vec<u8> = (0..len).map(|i| u8::try_from(i % 251).unwrap()).collect();
            differential::<Aes256, Ocb3<Aes256, U15, U16>>(
                &key,
                &nonce,
                b"\xd2\x02\x09\x02\x10",
                &pt,
                len * 3 + 5,
            );
        }
    }

    /// The two ways a window goes through the cipher (in the backend's groups, or one block at
    /// a time in one pass) give the same blocks, checksum and next offset, encrypting and
    /// decrypting, in place and out of place, over windows in a row. Which one the AEAD takes
    /// depends on the machine and the build, so both are checked here on any machine.
    #[test]
    fn window_in_groups_and_by_block_agree() {
        let ocb = Ocb::<Aes128>::new(&[7; 16]).unwrap();
        let enc = |b: &mut Block| ocb.cipher.encrypt_block(b);
        let dec = |b: &mut Block| ocb.cipher.decrypt_block(b);
        let data: Vec<u8> = (0..3 * WINDOW_LEN).map(|i| u8::try_from(i * 31 % 251).unwrap()).collect();
        let (windows, _) = data.as_chunks::<WINDOW_LEN>();
        fn each(f: impl Fn(&mut Block)) -> impl FnOnce(&mut [u8; WINDOW_LEN]) {
            move |w| Block::slice_as_chunks_mut(w).0.iter_mut().for_each(f)
        }
        for out_of_place in [false, true] {
            let (mut grouped, mut single) = (Run::new(&ocb.tables, [9; 16]), Run::new(&ocb.tables, [9; 16]));
            let (mut enc_grouped, mut enc_single) =
                (Run::new(&ocb.tables, [9; 16]), Run::new(&ocb.tables, [9; 16]));
            for src in windows {
                let (mut a, mut b) = (*src, *src);
                enc_grouped.window::<true>(&mut a, None, each(enc));
                enc_single.window_by_block::<true>(&mut b, None, enc);
                assert_eq!(a, b);
                let (mut c, mut d) = if out_of_place { ([0; WINDOW_LEN], [0; WINDOW_LEN]) } else { (a, a) };
                let from = out_of_place.then_some(&a);
                grouped.window::<false>(&mut c, from, each(dec));
                single.window_by_block::<false>(&mut d, from, dec);
                assert_eq!(c, d);
                assert_eq!(&c, src, "decrypts back");
            }
            let ((mut o1, mut c1), (mut o2, mut c2)) = (([0; 16], [0; 16]), ([0; 16], [0; 16]));
            enc_grouped.finish(&mut o1, &mut c1);
            enc_single.finish(&mut o2, &mut c2);
            assert_eq!((o1, c1), (o2, c2));
            let ((mut o3, mut c3), (mut o4, mut c4)) = (([0; 16], [0; 16]), ([0; 16], [0; 16]));
            grouped.finish(&mut o3, &mut c3);
            single.finish(&mut o4, &mut c4);
            assert_eq!((o3, c3), (o4, c4));
            assert_eq!((o1, c1), (o3, c3), "the same offset and checksum both ways");
        }
    }

    #[test]
    fn bad_nonce_lengths_and_keys_are_rejected() {
        let ocb = Ocb::<Aes128>::new(&[0u8; 16]).unwrap();
        assert!(matches!(ocb.seal(&[], b"", &mut []), Err(Error::InvalidArgument(_))));
        assert!(matches!(ocb.seal(&[0u8; 16], b"", &mut []), Err(Error::InvalidArgument(_))));
        assert!(matches!(ocb.open(&[0u8; 16], b"", &mut [], &[0; 16]), Err(Error::Decrypt)));
        assert!(Ocb::<Aes128>::new(&[0u8; 17]).is_err());
        assert_eq!(format!("{ocb:?}"), "Ocb([redacted])");
    }
}

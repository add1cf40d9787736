//! No freed heap block holds a secret key or plaintext: a global allocator of this test binary
//! scans every block as it is freed (or moved by a reallocation) for known secret octets. A
//! binary of its own, so that its allocator sees this test's allocations only; one `#[test]`,
//! so that the scan of one operation is not mixed with another's.
#![allow(unsafe_code, reason = "a global allocator cannot be written without it")]
#![allow(clippy::unwrap_used, reason = "a test fails by panicking")]

use std::alloc::{GlobalAlloc, Layout, System};
use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicUsize, Ordering};

use sixpgp::{ArmorKind, ArmorWriter, Decryptor, Encryptor, KeyUpdate, Password, Signer, Tsk};

/// Octets looked for; a needle is `NEEDLE_LEN` octets long.
const NEEDLE_LEN: usize = 32;
const NEEDLES: usize = 2;
static NEEDLE: [[AtomicU8; NEEDLE_LEN]; NEEDLES] =
    [const { [const { AtomicU8::new(0) }; NEEDLE_LEN] }; NEEDLES];
static ARMED: AtomicBool = AtomicBool::new(false);
/// Freed blocks that held a needle while armed.
static HITS: AtomicUsize = AtomicUsize::new(0);

struct Scanning;

/// True if `block` contains one of the needles.
///
/// The needles are compared where they are, octet by octet, never copied: a copy on this
/// function's stack would outlive the call, and a frame of the library's that later reuses
/// that stack (padding, unused enum space) would carry it into a heap block, which this scan
/// would then report as the library's leak.
fn holds_needle(block: &[u8]) -> bool {
    NEEDLE.iter().any(|needle| {
        let [first, ..] = needle;
        let first = first.load(Ordering::Relaxed);
        // `contains` on octets is a fast `memchr`: most blocks lack even the first octet.
        block.contains(&first)
            && block.iter().enumerate().filter(|&(_, &b)| b == first).any(|(start, _)| {
                block
                    .get(start..start + NEEDLE_LEN)
                    .is_some_and(|w| w.iter().zip(needle).all(|(b, n)| *b == n.load(Ordering::Relaxed)))
            })
    })
}

/// Records a hit if the block at `ptr` holds a needle.
///
/// # Safety
/// `ptr` is a live allocation of at least `size` octets.
unsafe fn scan(ptr: *const u8, size: usize) {
    if ARMED.load(Ordering::SeqCst) && size >= NEEDLE_LEN {
        // SAFETY: the caller's contract; every octet of a live allocation may be read (what is
        // read is only compared).
        let block = unsafe { std::slice::from_raw_parts(ptr, size) };
        if holds_needle(block) {
            let _ = HITS.fetch_add(1, Ordering::SeqCst);
        }
    }
}

// SAFETY: every call goes to `System`, with the same layouts; `realloc` is done as allocate,
// copy, scan and free, so that the block it leaves behind is scanned too.
unsafe impl GlobalAlloc for Scanning {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded with the caller's layout.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded with the caller's layout.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` is live with `layout` until the call below frees it.
        unsafe {
            scan(ptr, layout.size());
            System.dealloc(ptr, layout);
        }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller guarantees a valid layout of `new_size` with the old alignment;
        // the copy is between two live blocks that do not overlap.
        unsafe {
            let new_layout = Layout::from_size_align_unchecked(new_size, layout.align());
            let new = System.alloc(new_layout);
            if !new.is_null() {
                std::ptr::copy_nonoverlapping(ptr, new, layout.size().min(new_size));
                scan(ptr, layout.size());
                System.dealloc(ptr, layout);
            }
            new
        }
    }
}

#[global_allocator]
static ALLOCATOR: Scanning = Scanning;

/// Looks for `needles` in every block freed while `operation` runs (and the values it returns
/// are dropped); returns how many held one.
fn freed_blocks_holding(needles: [[u8; NEEDLE_LEN]; NEEDLES], operation: impl FnOnce()) -> usize {
    for (slot, needle) in NEEDLE.iter().zip(needles) {
        for (a, octet) in slot.iter().zip(needle) {
            a.store(octet, Ordering::Relaxed);
        }
    }
    HITS.store(0, Ordering::SeqCst);
    ARMED.store(true, Ordering::SeqCst);
    operation();
    ARMED.store(false, Ordering::SeqCst);
    HITS.load(Ordering::SeqCst)
}

/// A named operation on the key.
type Operation<'a> = (&'static str, Box<dyn FnOnce() + 'a>);

fn hex32(s: &str) -> [u8; 32] {
    hex::decode(s).unwrap().try_into().unwrap()
}

/// Runs every operation on the key in `file` (read armored, so that the test's own copy does not
/// hold its secrets in the clear), and returns those after which a freed block held one of
/// `secrets`, with how many blocks did.
fn leaks(file: &str, secrets: [[u8; NEEDLE_LEN]; NEEDLES]) -> Vec<(&'static str, usize)> {
    let armored = std::fs::read(format!("tests/data/{file}")).unwrap();
    let key = Tsk::from_bytes(&armored).unwrap();
    // The needles are the key's.
    let binary = key.to_vec();
    assert!(secrets.iter().all(|s| binary.windows(NEEDLE_LEN).any(|w| w == s)));
    drop(binary);
    let cert = key.to_cert();
    let message = {
        let mut w = Encryptor::new([&cert]).writer(Vec::new()).unwrap();
        w.write_all(b"for the sample key").unwrap();
        w.finish().unwrap()
    };

    // Two copies of the key in one armor block.
    let ring = {
        let mut w = ArmorWriter::new(Vec::new(), ArmorKind::PrivateKey).unwrap();
        key.write_to(&mut w).unwrap();
        key.write_to(&mut w).unwrap();
        w.finish().unwrap()
    };

    let operations: Vec<Operation<'_>> = vec![
        ("parse armored", Box::new(|| drop(Tsk::from_bytes(&armored).unwrap()))),
        (
            "parse binary",
            Box::new(|| {
                let binary = key.to_vec();
                drop(Tsk::from_bytes(&binary).unwrap());
            }),
        ),
        ("parse a keyring", Box::new(|| assert_eq!(Tsk::read_all(&ring[..]).unwrap().len(), 2))),
        (
            "a growing Vec<Tsk>",
            Box::new(|| {
                let mut keys = Vec::new();
                for _ in 0..33 {
                    keys.push(key.clone());
                }
            }),
        ),
        (
            "Decryptor::new(vec) and decrypt",
            Box::new(|| {
                let decryptor = Decryptor::new(vec![key.clone(), key.clone(), key.clone()]);
                let (plaintext, _) = decryptor.decrypt_bytes(&message).unwrap();
                assert_eq!(plaintext, b"for the sample key");
            }),
        ),
        (
            "Tsk::merge_cert",
            Box::new(|| {
                let mut merged = key.clone();
                merged.merge_cert(cert.clone()).unwrap();
            }),
        ),
        (
            "Tsk::update",
            Box::new(|| {
                let mut updated = key.clone();
                updated.update(KeyUpdate::new().merge_cert(cert.clone())).unwrap();
            }),
        ),
        (
            "sign",
            Box::new(|| {
                let mut w = Signer::new().key(&key).inline_writer(Vec::new()).unwrap();
                w.write_all(b"signed").unwrap();
                drop(w.finish().unwrap());
                drop(Signer::new().key(&key).sign_bytes(b"signed").unwrap());
            }),
        ),
        (
            "lock and unlock",
            Box::new(|| {
                let password = Password::from("correct horse");
                let mut locked = key.clone();
                locked.lock(&password).unwrap();
                let _ = format!("{locked:?}");
                let _ = locked.unlock(&password).unwrap();
            }),
        ),
    ];
    let mut leaked = Vec::new();
    for (name, operation) in operations {
        let hits = freed_blocks_holding(secrets, operation);
        if hits > 0 {
            leaked.push((name, hits));
        }
    }
    leaked
}

#[test]
fn no_freed_block_holds_a_secret() {
    // RFC 9580 A.4: the Ed25519 primary key's secret and the X25519 subkey's secret.
    let a04 = [
        hex32("1972817b12be707e8d5f586ce61361201d344eb266a2c82fde6835762b65b0b7"),
        hex32("4d600a4f794d44775c57a26e0feefed558e9afffd6ad0d582d57fb2ba2dcedb8"),
    ];
    let leaked = leaks("a04-v6-secret-key.asc", a04);
    assert!(leaked.is_empty(), "freed blocks held a secret key after: {leaked:?}");
    // RFC 9980's ML-DSA-65+Ed25519 sample: the primary key's ML-DSA seed, and the second half
    // of the ML-KEM-768+X25519 subkey's seed d ‖ z, z, which the expanded key holds too (packed
    // and unpacked), where d is only in the seed.
    let pqc = [
        hex32("f0bec69e4fafce3ccbfdbe53ce8e63e1a8a399f7c85615fd368695487363317c"),
        hex32("bd4bc60ef0f3aac43e691c84df411ad6f08c85c9273abf0d5d7a74a7da6b3380"),
    ];
    let leaked = leaks("v6-mldsa-65-sample-sk.asc", pqc);
    assert!(leaked.is_empty(), "freed blocks held a secret key after: {leaked:?}");

    let armored = std::fs::read("tests/data/a04-v6-secret-key.asc").unwrap();
    let key = Tsk::from_bytes(&armored).unwrap();
    let cert = key.to_cert();

    // Plaintext: a message of 64-octet chunks whose final tag is broken fails only after its
    // chunks were authenticated and collected; what was collected is wiped, not just freed.
    let plaintext: Vec<u8> = (0..4096u32).map(|i| i.wrapping_mul(2_654_435_761).to_be_bytes()[1]).collect();
    let needles = [plaintext[..32].try_into().unwrap(), plaintext[2000..2032].try_into().unwrap()];
    let mut message = {
        let mut w = Encryptor::new([&cert]).chunk_size(64).writer(Vec::new()).unwrap();
        w.write_all(&plaintext).unwrap();
        w.finish().unwrap()
    };
    let good = message.clone();
    *message.last_mut().unwrap() ^= 1;
    let decryptor = Decryptor::new([&key]);
    let hits = freed_blocks_holding(needles, || {
        assert!(matches!(decryptor.decrypt_bytes(&message), Err(sixpgp::Error::Decrypt)));
    });
    assert_eq!(hits, 0, "decrypt_bytes left plaintext in freed memory");
    let hits = freed_blocks_holding(needles, || {
        let results = decryptor.decrypt_all(&[&message, &message]);
        assert!(results.iter().all(|r| matches!(r, Err(sixpgp::Error::Decrypt))));
    });
    assert_eq!(hits, 0, "decrypt_all left plaintext in freed memory");
    // On success the plaintext is handed over (and dropped here only after the scan).
    let mut kept = None;
    let hits = freed_blocks_holding(needles, || kept = Some(decryptor.decrypt_bytes(&good).unwrap()));
    assert_eq!(kept.unwrap().0, plaintext);
    assert_eq!(hits, 0, "decrypt_bytes left a copy of the plaintext in freed memory");
}

#![allow(dead_code, clippy::cast_possible_truncation)]
//! Types and fixtures shared by the differential targets and the rPGP oracle process
//! (`oracle-rpgp/`, which includes this file): std only.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// The time at which certificates and signatures are evaluated (2027-01-15), the same as
/// `sixpgp::fuzzing`'s.
pub const FIXED_UNIX: u64 = 1_800_000_000;

#[must_use]
pub fn fixed_time() -> SystemTime {
    UNIX_EPOCH + Duration::from_secs(FIXED_UNIX)
}

/// The password every decryption tries (that of RFC 9580 A.9 to A.11).
pub const PASSWORD: &str = "password";

/// The fixed secret keys, in this order: RFC 9580 A.4 (Ed25519, X25519 subkey), the RFC 9980
/// Ed25519 sample (ML-KEM-768+X25519 subkey), the RFC 9980 ML-DSA-65+Ed25519 sample
/// (ML-KEM-768+X25519 subkey). Each primary key signs.
pub const SECRET_KEYS: [&[u8]; 3] = [
    include_bytes!("../../tests/data/a04-v6-secret-key.asc"),
    include_bytes!("../../tests/data/v6-eddsa-sample-sk.asc"),
    include_bytes!("../../tests/data/v6-mldsa-65-sample-sk.asc"),
];

/// A decrypted (and possibly verified) message, as every implementation reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Opened {
    pub plaintext: Vec<u8>,
    /// Indexes into [`SECRET_KEYS`] of the certificates with a good signature (empty if the
    /// caller did not ask for verification).
    pub good_signers: Vec<usize>,
    /// Literal data format octet, file name and date, where the implementation exposes them.
    pub literal: Option<(u8, Vec<u8>, u32)>,
}

/// What one implementation made of a certificate at [`fixed_time`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CertView {
    pub fingerprint: Vec<u8>,
    /// The subkeys' fingerprints, sorted.
    pub subkeys: Vec<Vec<u8>>,
    /// Primary key valid (bound, not revoked, not expired) at the fixed time.
    pub valid: bool,
    /// Fingerprints of the keys valid for encryption (either flag) at the fixed time, among
    /// the algorithms both support (X25519, ML-KEM-768+X25519), sorted.
    pub encryption_keys: Vec<Vec<u8>>,
    /// Some key is valid for signing at the fixed time.
    pub can_sign: bool,
    /// Every key is a v6 key of an algorithm in [`in_scope_algorithm`] (always true for
    /// sixpgp, which reads nothing else).
    pub in_scope: bool,
}

/// A packet type ID that RFC 9580 §5 does not assign, in the critical range (0 to 39; §4.3):
/// a reader must refuse the packet sequence that holds one.
#[must_use]
pub fn critical_unknown_packet_type(id: u8) -> bool {
    matches!(id, 0 | 15 | 16 | 22..=39)
}

/// The algorithms in the scope of the comparison (RFC 9580 X25519/Ed25519, RFC 9980 30 and 35).
#[must_use]
pub fn in_scope_algorithm(id: u8) -> bool {
    matches!(id, 25 | 27 | 30 | 35)
}

/// A cursor over the fuzz input: takes octets from the front, zeros once it is exhausted.
pub struct Input<'a>(pub &'a [u8]);

impl<'a> Input<'a> {
    pub fn byte(&mut self) -> u8 {
        match self.0.split_first() {
            Some((b, rest)) => {
                self.0 = rest;
                *b
            }
            None => 0,
        }
    }
    pub fn u32(&mut self) -> u32 {
        u32::from_le_bytes([self.byte(), self.byte(), self.byte(), self.byte()])
    }
    pub fn bytes(&mut self, n: usize) -> &'a [u8] {
        let n = n.min(self.0.len());
        let (a, b) = self.0.split_at(n);
        self.0 = b;
        a
    }
    pub fn rest(&mut self) -> &'a [u8] {
        std::mem::take(&mut self.0)
    }
    pub fn seed(&mut self) -> [u8; 32] {
        let mut s = [0u8; 32];
        for b in &mut s {
            *b = self.byte();
        }
        s
    }
}

/// The symmetric/AEAD pairs in the comparison: AES-128/256 × OCB/GCM (ids 7/9, 2/3).
pub const SUITES: [(u8, u8); 4] = [(7, 2), (9, 2), (7, 3), (9, 3)];

/// A message to produce, derived from the fuzz input.
#[derive(Debug, Clone)]
pub struct MessageSpec {
    /// Symmetric algorithm id and AEAD algorithm id.
    pub suite: (u8, u8),
    /// Chunk size octet (chunk = 2^(c+6)), 0..=10 here (64 octets to 64 KiB).
    pub chunk_octet: u8,
    /// Indexes into [`SECRET_KEYS`] to encrypt to.
    pub recipients: Vec<usize>,
    /// Passwords (each also a SKESK).
    pub passwords: Vec<String>,
    /// Index into [`SECRET_KEYS`] of the signer.
    pub signer: Option<usize>,
    /// Literal data: format ('b', 'u' or 't'), file name, date.
    pub format: u8,
    pub filename: Vec<u8>,
    pub date: u32,
    pub plaintext: Vec<u8>,
    /// Anonymous recipients (PKESKs name no key); sixpgp only.
    pub hidden: bool,
    /// Padding packet length (0: none); sixpgp only.
    pub padding: usize,
    /// Seed of the producer's RNG.
    pub seed: [u8; 32],
}

impl MessageSpec {
    /// Derives a spec from the input. Passwords are rare: every SKESK that sixpgp writes costs
    /// an Argon2 run of 64 MiB, on each side.
    #[must_use]
    pub fn from_input(input: &mut Input<'_>) -> Self {
        let flags = input.byte();
        let suite = SUITES[usize::from(flags & 3)];
        let chunk_octet = input.byte() % 11;
        let who = input.byte();
        let mut recipients: Vec<usize> = (0..3).filter(|i| who & (1 << i) != 0).collect();
        let mut passwords = Vec::new();
        if who & 0xf8 == 0xf8 {
            let len = usize::from(input.byte() % 16);
            let pw: String = input.bytes(len).iter().map(|&b| char::from(b' ' + b % 95)).collect();
            passwords.push(pw);
        }
        if recipients.is_empty() && passwords.is_empty() {
            recipients.push(usize::from(who >> 3) % 3);
        }
        let s = input.byte();
        let signer = (s % 4 != 3).then_some(usize::from(s % 4));
        let format = [b'b', b'u', b't'][usize::from((flags >> 2) % 3)];
        let name_len = usize::from(input.byte() % 32);
        let filename = input.bytes(name_len).to_vec();
        let date = input.u32();
        let hidden = flags & 0x10 != 0;
        let padding = if flags & 0x20 != 0 { usize::from(input.byte()) * 4 + 1 } else { 0 };
        let seed = input.seed();
        let plaintext = input.rest().to_vec();
        MessageSpec { suite, chunk_octet, recipients, passwords, signer, format, filename, date, plaintext, hidden, padding, seed }
    }
}


/// Little-endian, length-prefixed encoding of the messages between the targets and the rPGP
/// oracle process.
#[derive(Default)]
pub struct Wire(pub Vec<u8>);

impl Wire {
    pub fn u8(&mut self, v: u8) -> &mut Self {
        self.0.push(v);
        self
    }
    pub fn u32(&mut self, v: u32) -> &mut Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    pub fn bytes(&mut self, v: &[u8]) -> &mut Self {
        self.u32(u32::try_from(v.len()).expect("short"));
        self.0.extend_from_slice(v);
        self
    }
}

/// Reads what [`Wire`] wrote (panics on malformed input: both ends are ours).
pub struct Unwire<'a>(pub &'a [u8]);

impl<'a> Unwire<'a> {
    pub fn u8(&mut self) -> u8 {
        let (b, rest) = self.0.split_first().expect("wire: u8");
        self.0 = rest;
        *b
    }
    pub fn u32(&mut self) -> u32 {
        let (b, rest) = self.0.split_at(4);
        self.0 = rest;
        u32::from_le_bytes(b.try_into().expect("4"))
    }
    pub fn bytes(&mut self) -> &'a [u8] {
        let n = self.u32() as usize;
        let (b, rest) = self.0.split_at(n);
        self.0 = rest;
        b
    }
}

impl MessageSpec {
    pub fn encode(&self, w: &mut Wire) {
        w.u8(self.suite.0).u8(self.suite.1).u8(self.chunk_octet);
        w.u8(self.recipients.len() as u8);
        for &r in &self.recipients {
            w.u8(r as u8);
        }
        w.u8(self.passwords.len() as u8);
        for p in &self.passwords {
            w.bytes(p.as_bytes());
        }
        w.u8(self.signer.map_or(0xff, |s| s as u8)).u8(self.format).bytes(&self.filename).u32(self.date);
        w.bytes(&self.plaintext).u8(u8::from(self.hidden)).u32(self.padding as u32).bytes(&self.seed);
    }
    pub fn decode(r: &mut Unwire<'_>) -> Self {
        let suite = (r.u8(), r.u8());
        let chunk_octet = r.u8();
        let recipients = (0..r.u8()).map(|_| usize::from(r.u8())).collect();
        let passwords = (0..r.u8()).map(|_| String::from_utf8(r.bytes().to_vec()).expect("utf8")).collect();
        let s = r.u8();
        let signer = (s != 0xff).then_some(usize::from(s));
        let format = r.u8();
        let filename = r.bytes().to_vec();
        let date = r.u32();
        let plaintext = r.bytes().to_vec();
        let hidden = r.u8() != 0;
        let padding = r.u32() as usize;
        let seed = r.bytes().try_into().expect("32");
        MessageSpec { suite, chunk_octet, recipients, passwords, signer, format, filename, date, plaintext, hidden, padding, seed }
    }
}

impl Opened {
    pub fn encode(&self, w: &mut Wire) {
        w.bytes(&self.plaintext).u8(self.good_signers.len() as u8);
        for &g in &self.good_signers {
            w.u8(g as u8);
        }
        match &self.literal {
            None => {
                w.u8(0);
            }
            Some((f, name, date)) => {
                w.u8(1).u8(*f).bytes(name).u32(*date);
            }
        }
    }
    pub fn decode(r: &mut Unwire<'_>) -> Self {
        let plaintext = r.bytes().to_vec();
        let good_signers = (0..r.u8()).map(|_| usize::from(r.u8())).collect();
        let literal = (r.u8() == 1).then(|| (r.u8(), r.bytes().to_vec(), r.u32()));
        Opened { plaintext, good_signers, literal }
    }
}

/// Requests to the rPGP oracle process.
pub const OP_CERT: u8 = 1;
pub const OP_DECRYPT: u8 = 2;
pub const OP_ENCRYPT: u8 = 3;

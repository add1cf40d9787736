//! Making document signatures: detached ([`SignWriter`]) and inline ([`InlineSignWriter`],
//! One-Pass Signatures + Literal Data + Signatures), streaming (RFC 9580 §5.2, §5.4, §10.3).
//!
//! <https://www.rfc-editor.org/rfc/rfc9580#section-10.3>

use std::fmt;
use std::io::{self, Write};
use std::sync::Arc;
use std::time::SystemTime;

use crate::armor::{ArmorKind, ArmorWriter};
use crate::crypto::rng::Rng;
use crate::error::{Error, Result};
use crate::key::{Tsk, flags, to_timestamp};
use crate::message::hash_pipe::{HashPipe, Hashing};
use crate::message::io::Sink;
use crate::message::literal::LiteralWriter;
use crate::packet::PacketBody;
use crate::packet::literal::LiteralHeader;
use crate::packet::one_pass::OnePassSignature;
use crate::packet::signature::SignaturePacket;
use crate::signature::{DataHasher, SignatureMode, base_subpackets, default_hash, sign_hashed, unsigned};
use crate::types::Fingerprint;
use crate::types::HashAlgorithm;

/// Builds signing streams: which keys sign, in which mode, at what time.
///
/// Each [`Tsk`] given with [`key`](Self::key) contributes one signature, made by its first key
/// that is valid for signing at the creation time and whose secret is unlocked. Signatures are v6,
/// salted, over the hash the key's algorithm calls for (SHA2-256 for Ed25519, SHA2-512 for
/// ML-DSA-65+Ed25519), with a creation time and the issuer fingerprint in the hashed area.
///
/// ```
/// # fn main() -> sixpgp::Result<()> {
/// use std::io::Write;
/// use sixpgp::{Cert, KeyBuilder, Profile, Signer, Verifier};
///
/// let alice = KeyBuilder::new(Profile::Rfc9580).user_id("Alice <alice@example.org>").generate()?;
/// let mut w = Signer::new().key(&alice).detached()?;
/// w.write_all(b"Hello")?;
/// let signatures: Vec<u8> = w.finish()?;
///
/// let certs: Vec<Cert> = vec![alice.to_cert()];
/// let results = Verifier::new(&certs).verify_detached(&signatures, &b"Hello"[..])?;
/// assert!(results.iter().any(|v| v.is_good()));
/// # Ok(()) }
/// ```
#[must_use]
pub struct Signer {
    keys: Vec<Arc<Tsk>>,
    armor: bool,
    mode: SignatureMode,
    creation_time: Option<SystemTime>,
    rng: Option<Rng>,
}

impl fmt::Debug for Signer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Signer")
            .field("keys", &self.keys.iter().map(|k| k.fingerprint()).collect::<Vec<_>>())
            .field("mode", &self.mode)
            .field("creation_time", &self.creation_time)
            .finish_non_exhaustive()
    }
}

impl Default for Signer {
    fn default() -> Self {
        Self::new()
    }
}

/// One signature being made.
struct Pending {
    /// The key that signs, and which of its (sub)keys.
    tsk: Arc<Tsk>,
    fingerprint: Fingerprint,
    /// Type, algorithms, salt and hashed subpackets; the rest is filled in at the end.
    sig: SignaturePacket,
    /// Until [`PreparedSignatures::writer`] moves it into the writer's [`HashPipe`].
    hasher: Option<DataHasher>,
}

impl Signer {
    /// A signer with no keys, binary mode, the current time and the operating system's RNG.
    pub fn new() -> Self {
        Self { keys: Vec::new(), armor: false, mode: SignatureMode::Binary, creation_time: None, rng: None }
    }

    /// Adds a signing key: owned, an `Arc`, or a reference (which is copied).
    pub fn key(mut self, tsk: impl Into<Arc<Tsk>>) -> Self {
        self.keys.push(tsk.into());
        self
    }

    /// ASCII-armors the output (default: binary): the detached signatures as a `PGP SIGNATURE`
    /// block, an inline-signed message as a `PGP MESSAGE` block. (The cleartext signature
    /// framework is always text.)
    pub fn armor(mut self, yes: bool) -> Self {
        self.armor = yes;
        self
    }

    /// Binary (default) or text signatures.
    pub fn mode(mut self, mode: SignatureMode) -> Self {
        self.mode = mode;
        self
    }

    /// The signature creation time (default: now). Keys must be valid for signing at that time.
    pub fn creation_time(mut self, t: SystemTime) -> Self {
        self.creation_time = Some(t);
        self
    }

    /// Draws salts and ML-DSA randomness from `rng` instead of the operating system's RNG.
    pub fn rng(mut self, rng: impl rand_core::CryptoRng + Send + 'static) -> Self {
        self.rng = Some(Rng::from_boxed(Box::new(rng)));
        self
    }

    /// Prepares one pending signature per key, drawing the salts from `rng` (the signer's own
    /// RNG, if one was set, is not used: the caller owns the randomness).
    ///
    /// # Errors
    /// As [`Signer::detached`].
    pub(super) fn prepare(self, rng: &mut Rng) -> Result<PreparedSignatures> {
        if self.keys.is_empty() {
            return Err(Error::InvalidArgument("no signing key given"));
        }
        let t = to_timestamp(self.creation_time.unwrap_or_else(SystemTime::now));
        let mut pending = Vec::with_capacity(self.keys.len());
        for tsk in self.keys {
            let mut locked = None;
            let mut chosen = None;
            for k in tsk.cert.keys_with_flags(t, flags::SIGN) {
                match tsk.secret_for(&k.fingerprint) {
                    Ok(_) => {
                        chosen = Some((k.key, k.fingerprint));
                        break;
                    }
                    // Why the key's secret cannot be used, rather than "no signing key".
                    Err(e @ (Error::KeyLocked { .. } | Error::Unsupported(_))) => locked = locked.or(Some(e)),
                    Err(_) => {}
                }
            }
            let Some((key, fingerprint)) = chosen else {
                return Err(locked.unwrap_or_else(|| tsk.cert.no_key_error(t, flags::SIGN)));
            };
            let hash = default_hash(key.algorithm);
            let hashed = base_subpackets(fingerprint.as_bytes(), t);
            let sig = unsigned(key.algorithm, self.mode.signature_type(), hash, hashed, rng)?;
            let hasher = DataHasher::new(hash, &sig.salt, self.mode)?;
            pending.push(Pending { tsk: Arc::clone(&tsk), fingerprint, sig, hasher: Some(hasher) });
        }
        Ok(PreparedSignatures { pending, mode: self.mode })
    }

    /// Prepares the signatures with the signer's RNG (or the operating system's).
    fn start(mut self) -> Result<SignWriter> {
        let mut rng = self.rng.take().unwrap_or_else(Rng::os);
        let armor = self.armor;
        let mut writer = self.prepare(&mut rng)?.writer(rng);
        writer.armor = armor;
        Ok(writer)
    }

    /// Signs `data` and returns the detached signatures (armored with
    /// [`armor`](Signer::armor)): [`detached`](Signer::detached) for data held in memory.
    ///
    /// # Errors
    /// As [`Signer::detached`] and [`SignWriter::finish`].
    pub fn sign_bytes(self, data: &[u8]) -> Result<Vec<u8>> {
        let mut w = self.detached()?;
        w.write_all(data)?;
        w.finish()
    }

    /// A hashing sink for detached signatures: write the document, then
    /// [`finish`](SignWriter::finish) returns the signature packets.
    ///
    /// # Errors
    /// `InvalidArgument` without keys; `KeyLocked` if a key's signing secret is locked;
    /// `KeyUnusable` if a key has no key valid for signing at the creation time; RNG errors.
    pub fn detached(self) -> Result<SignWriter> {
        self.start()
    }

    /// An inline-signing stream into `sink`: One-Pass Signature packets, then a Literal Data
    /// packet holding what is written (format `b`, or `u` in text mode), then, at
    /// [`finish`](InlineSignWriter::finish), the signatures; armored with
    /// [`armor`](Signer::armor).
    ///
    /// # Errors
    /// As [`Signer::detached`], and I/O errors of `sink`.
    pub fn inline_writer<W: Write>(self, sink: W) -> Result<InlineSignWriter<W>> {
        let header = LiteralHeader { format: self.mode.literal_format(), filename: Vec::new(), date: 0 };
        let sink = if self.armor {
            Sink::Armored(ArmorWriter::new(sink, ArmorKind::Message)?)
        } else {
            Sink::Binary(sink)
        };
        self.start()?.inline(sink, &header)
    }
}

/// Signatures whose keys, salts and hashed subpackets are chosen, waiting for the data (see
/// [`Signer::prepare`]).
pub(super) struct PreparedSignatures {
    pending: Vec<Pending>,
    mode: SignatureMode,
}

impl fmt::Debug for PreparedSignatures {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PreparedSignatures")
            .field("signers", &self.pending.iter().map(|p| p.fingerprint).collect::<Vec<_>>())
            .field("mode", &self.mode)
            .finish()
    }
}

impl PreparedSignatures {
    /// The hashing sink; `rng` supplies the signing randomness (ML-DSA) at the end.
    pub(super) fn writer(mut self, rng: Rng) -> SignWriter {
        let hashers = self.pending.iter_mut().filter_map(|p| p.hasher.take()).collect();
        SignWriter {
            pending: self.pending,
            hashes: HashPipe::new(hashers, Hashing::Inline),
            rng,
            mode: self.mode,
            armor: false,
        }
    }
}

/// A hashing sink that makes detached signatures over what is written to it.
///
/// Call [`finish`](Self::finish) to get the signatures; dropping it makes none.
#[must_use = "call finish() to get the signatures"]
pub struct SignWriter {
    pending: Vec<Pending>,
    /// The hash of each pending signature, in order.
    hashes: HashPipe,
    rng: Rng,
    mode: SignatureMode,
    /// Whether `finish` armors the signatures.
    armor: bool,
}

impl fmt::Debug for SignWriter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SignWriter")
            .field("signers", &self.pending.iter().map(|p| p.fingerprint).collect::<Vec<_>>())
            .field("mode", &self.mode)
            .finish_non_exhaustive()
    }
}

impl SignWriter {
    /// The hash algorithm of each signature, in order (for a MIME `micalg` parameter).
    #[must_use]
    pub fn hash_algorithms(&self) -> Vec<HashAlgorithm> {
        self.pending.iter().map(|p| p.sig.hash_algorithm).collect()
    }

    /// The fingerprints of the signing keys, in order.
    #[must_use]
    pub fn signing_keys(&self) -> Vec<Fingerprint> {
        self.pending.iter().map(|p| p.fingerprint).collect()
    }

    /// Starts an inline-signed message in `sink`: One-Pass Signature packets, then a Literal
    /// Data packet with `header`'s fields whose body is what is written to the result.
    ///
    /// # Errors
    /// `InvalidArgument` for a bad literal header; I/O errors of `sink`.
    pub(super) fn inline<W: Write>(
        mut self,
        mut sink: Sink<W>,
        header: &LiteralHeader,
    ) -> Result<InlineSignWriter<W>> {
        // The calling thread now also frames (and maybe encrypts): the hash may move beside it.
        self.hashes.set_hashing(Hashing::Beside);
        // RFC 9580 §10.3: One-Pass Signed Message :- One-Pass Signature Packet,
        // OpenPGP Message, Corresponding Signature Packet. The last One-Pass Signature packet
        // before the data has the flag 1; the others 0 (§5.4).
        let count = self.pending.len();
        for (i, p) in self.pending.iter().enumerate() {
            let ops = OnePassSignature {
                sig_type: p.sig.sig_type,
                hash_algorithm: p.sig.hash_algorithm,
                pk_algorithm: p.sig.pk_algorithm,
                salt: p.sig.salt.clone(),
                fingerprint: *p.fingerprint.as_bytes(),
                last: u8::from(i.saturating_add(1) == count),
            };
            ops.write_packet(&mut sink)?;
        }
        let literal = LiteralWriter::new(sink, header)?;
        Ok(InlineSignWriter { signer: self, literal })
    }

    /// Makes the signatures, in the order the keys were given.
    fn make(mut self) -> Result<Vec<SignaturePacket>> {
        let mut out = Vec::with_capacity(self.pending.len());
        let hashers = self.hashes.finish()?;
        if hashers.len() != self.pending.len() {
            return Err(Error::InvalidArgument("signer: a hash is missing"));
        }
        for (p, hasher) in self.pending.into_iter().zip(hashers) {
            let Pending { tsk, fingerprint, mut sig, .. } = p;
            let secret = tsk.secret_for(&fingerprint)?;
            sign_hashed(&mut sig, secret, hasher.into_hasher(), &mut self.rng)?;
            out.push(sig);
        }
        Ok(out)
    }

    /// Makes the signatures and returns them as Signature packets, one per key: binary, or a
    /// `PGP SIGNATURE` block with [`Signer::armor`].
    ///
    /// # Errors
    /// `KeyUnusable` if a secret cannot sign; RNG errors.
    pub fn finish(self) -> Result<Vec<u8>> {
        let armor = self.armor;
        let mut out = Vec::new();
        for sig in self.make()? {
            sig.write_packet(&mut out)?;
        }
        if armor {
            let mut w =
                ArmorWriter::new(Vec::with_capacity(out.len().saturating_mul(2)), ArmorKind::Signature)?;
            w.write_all(&out)?;
            out = w.finish()?;
        }
        Ok(out)
    }
}

impl Write for SignWriter {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        self.hashes.update(data)?;
        Ok(data.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Writes an inline-signed message (see [`Signer::inline_writer`]).
///
/// [`finish`](Self::finish) ends the literal data, writes the signatures and returns the sink.
/// Dropping the writer without it does no I/O and leaves an incomplete message.
#[must_use = "call finish() to write the signatures"]
pub struct InlineSignWriter<W: Write> {
    signer: SignWriter,
    literal: LiteralWriter<Sink<W>>,
}

impl<W: Write> fmt::Debug for InlineSignWriter<W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("InlineSignWriter").field("signer", &self.signer).finish_non_exhaustive()
    }
}

impl<W: Write> InlineSignWriter<W> {
    /// Ends the literal data, writes the signatures (in the reverse order of the One-Pass
    /// Signature packets, RFC 9580 §10.3) and returns the sink.
    ///
    /// # Errors
    /// I/O errors of the sink; as [`SignWriter::finish`].
    pub fn finish(self) -> Result<W> {
        let mut sink = self.literal.finish()?;
        let sigs = self.signer.make()?;
        for sig in sigs.into_iter().rev() {
            sig.write_packet(&mut sink)?;
        }
        sink.finish()
    }
}

impl<W: Write> Write for InlineSignWriter<W> {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        let n = self.literal.write(data)?;
        self.signer.write_all(data.get(..n).unwrap_or_default())?;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.literal.flush()
    }
}

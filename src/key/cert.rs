//! Certificates (transferable public keys, RFC 9580 §10.1).

use std::fmt;
use std::io::{self, Write};
use std::sync::Arc;
use std::time::SystemTime;

use crate::armor::{ArmorKind, ArmorWriter};
use crate::error::Result;
use crate::key::sig::VerifyCache;
use crate::packet::header::{Header, Tag};
use crate::packet::key::PublicKeyPacket;
use crate::packet::signature::SignaturePacket;
use crate::packet::user_id::UserId;
use crate::packet::{PacketBody, Serialize};
use crate::types::PublicKeyAlgorithm;
use crate::types::{Fingerprint, KeyId};

/// An OpenPGP certificate: a v6 primary key with its self-signatures, user IDs and subkeys.
///
/// Parsing keeps every signature as found; which ones count is decided when the certificate is
/// used, at a given time (see [`Cert::check_valid_at`]).
///
/// ```
/// # fn main() -> sixpgp::Result<()> {
/// let armored = include_str!("../../tests/data/a03-v6-certificate.asc");
/// let cert = sixpgp::Cert::from_bytes(armored.as_bytes())?;
/// assert_eq!(
///     cert.fingerprint().to_string(),
///     "CB186C4F0609A697E4D52DFA6C722B0C1F1E27C18A56708F6525EC27BAD9ACC9"
/// );
/// # Ok(()) }
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct Cert {
    pub(crate) primary: PublicKeyPacket,
    pub(crate) fingerprint: Fingerprint,
    /// Direct-key signatures and key revocations, as found.
    pub(crate) primary_sigs: Vec<SignaturePacket>,
    pub(super) user_ids: Vec<UserIdBinding>,
    pub(super) subkeys: Vec<SubkeyBinding>,
    /// Outcomes of the signature checks done so far (content-addressed, so it survives any
    /// edit of the fields above; not part of the value: see [`VerifyCache`]).
    pub(super) verified: VerifyCache,
}

/// A user ID and the signatures on it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct UserIdBinding {
    pub(super) user_id: UserId,
    pub(super) sigs: Vec<SignaturePacket>,
}

/// A subkey and the signatures on it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct SubkeyBinding {
    pub(crate) key: PublicKeyPacket,
    pub(crate) fingerprint: Fingerprint,
    pub(super) sigs: Vec<SignaturePacket>,
}

impl fmt::Debug for Cert {
    /// The fingerprint, user IDs and keys: what identifies the certificate, not its octets.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Cert")
            .field("fingerprint", &self.fingerprint)
            .field("user_ids", &self.user_id_strings().collect::<Vec<_>>())
            .field("keys", &self.keys().map(|k| (k.fingerprint(), k.algorithm())).collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

impl From<&Cert> for Arc<Cert> {
    /// Copies the certificate: builders that keep certificates take `Cert`, `Arc<Cert>` or
    /// `&Cert` alike.
    fn from(cert: &Cert) -> Self {
        Arc::new(cert.clone())
    }
}

impl Cert {
    /// The primary key's fingerprint.
    #[must_use]
    pub fn fingerprint(&self) -> Fingerprint {
        self.fingerprint
    }

    /// The primary key's key ID.
    #[must_use]
    pub fn key_id(&self) -> KeyId {
        self.fingerprint.key_id()
    }

    /// The primary key's algorithm.
    #[must_use]
    pub fn algorithm(&self) -> PublicKeyAlgorithm {
        self.primary.algorithm
    }

    /// The primary key's creation time.
    #[must_use]
    pub fn creation_time(&self) -> SystemTime {
        crate::key::from_timestamp(self.primary.creation_time)
    }

    /// Every key packet with its fingerprint, the primary key first: the one way the rest of the
    /// crate walks a certificate's keys.
    pub(crate) fn key_packets(&self) -> impl Iterator<Item = (Fingerprint, &PublicKeyPacket)> + '_ {
        std::iter::once((self.fingerprint, &self.primary))
            .chain(self.subkeys.iter().map(|s| (s.fingerprint, &s.key)))
    }

    /// The user IDs, as octets (normally UTF-8), whether or not they are validly bound.
    pub fn user_ids(&self) -> impl Iterator<Item = &[u8]> + '_ {
        self.user_ids.iter().map(|u| u.user_id.as_bytes())
    }

    /// The fingerprints of all subkeys, including subkeys of algorithms this crate does not
    /// implement and subkeys that are not validly bound.
    pub fn subkey_fingerprints(&self) -> impl Iterator<Item = Fingerprint> + '_ {
        self.subkeys.iter().map(|s| s.fingerprint)
    }

    /// Writes the primary signatures, user IDs and subkeys in canonical order; each subkey
    /// packet is written by `subkey_packet` (public or secret), given its index.
    pub(super) fn write_components<W: Write + ?Sized>(
        &self,
        w: &mut W,
        mut subkey_packet: impl FnMut(usize, &SubkeyBinding, &mut W) -> io::Result<()>,
    ) -> io::Result<()> {
        write_sigs(&self.primary_sigs, w)?;
        for u in &self.user_ids {
            u.user_id.write_packet(w)?;
            write_sigs(&u.sigs, w)?;
        }
        for (i, s) in self.subkeys.iter().enumerate() {
            subkey_packet(i, s, w)?;
            write_sigs(&s.sigs, w)?;
        }
        Ok(())
    }

    /// Writes the certificate in binary form.
    ///
    /// # Errors
    /// Any I/O error of `w`.
    pub fn write_to(&self, w: &mut (impl Write + ?Sized)) -> Result<()> {
        self.primary.write_packet(w)?;
        self.write_components(w, |_, s, w| {
            write_packet(Tag::PublicSubkey, s.key.encoded_len(), w, |w| s.key.write_to(w))
        })?;
        Ok(())
    }

    /// The certificate in binary form.
    #[must_use]
    pub fn to_vec(&self) -> Vec<u8> {
        let mut out = Vec::new();
        // Writing to a Vec cannot fail.
        let _ = self.write_to(&mut out);
        out
    }

    /// The certificate as an ASCII-armored `PGP PUBLIC KEY BLOCK`.
    #[must_use]
    pub fn to_armored(&self) -> String {
        armored(ArmorKind::PublicKey, &self.to_vec())
    }
}

/// Writes one packet: a header for `len` octets, then the body `body` writes.
pub(super) fn write_packet<W: Write + ?Sized>(
    tag: Tag,
    len: usize,
    w: &mut W,
    body: impl FnOnce(&mut W) -> io::Result<()>,
) -> io::Result<()> {
    Header::fixed(tag, len).map_err(io::Error::from)?.write_to(w)?;
    body(w)
}

fn write_sigs(sigs: &[SignaturePacket], w: &mut (impl Write + ?Sized)) -> io::Result<()> {
    for sig in sigs {
        sig.write_packet(w)?;
    }
    Ok(())
}

/// Armors `bytes` as `kind`, into a buffer allocated once at its full length (a reallocation
/// would leave a copy of an armored secret key unwiped).
pub(super) fn armored(kind: ArmorKind, bytes: &[u8]) -> String {
    // Base64 with a line break per 64 characters, and the BEGIN, blank and END lines.
    let len = bytes.len().div_ceil(3).saturating_mul(4).saturating_add(bytes.len() / 48).saturating_add(128);
    let mut w = match ArmorWriter::new(Vec::with_capacity(len), kind) {
        Ok(w) => w,
        Err(_) => return String::new(),
    };
    if w.write_all(bytes).is_err() {
        return String::new();
    }
    match w.finish() {
        Ok(out) => String::from_utf8(out).unwrap_or_default(),
        Err(_) => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The armor is written into a buffer allocated once: its capacity is the first estimate
    /// (a reallocation would have changed it and left a copy behind), for every length and
    /// the longest label.
    #[test]
    fn armored_output_is_never_reallocated() {
        for n in (0..400).chain([4095, 4096, 100_000]) {
            let bytes = vec![0xa5_u8; n];
            for kind in [ArmorKind::PrivateKey, ArmorKind::Signature] {
                let text = armored(kind, &bytes);
                assert!(text.ends_with("-----\n"), "{n}");
                let estimate = n.div_ceil(3) * 4 + n / 48 + 128;
                assert_eq!(text.capacity(), estimate, "{n} octets, {kind:?}");
            }
        }
    }
}

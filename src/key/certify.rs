//! Third-party certifications of user IDs (RFC 9580 §5.2.1, type 0x10) and their validation
//! against a set of authorities.
//!
//! A certification counts at time `t` if it was made by an authority's primary key, which was
//! valid and certification-capable (key flag 0x01) at the certification's creation time; it is
//! alive at `t` (created no later, not expired); it verifies; and the authority has not revoked
//! it (0x30) by `t`. The certified certificate itself must be valid at `t` and must not have
//! revoked the user ID. A self-signature is not required: the authority vouches for the binding.
//! An authority's own validly self-signed user IDs are valid.
//!
//! <https://www.rfc-editor.org/rfc/rfc9580#section-5.2.1>

use std::borrow::Borrow;
use std::time::SystemTime;

use crate::crypto::rng::Rng;
use crate::error::{Error, KeyProblem, Result};
use crate::key::cert::{Cert, UserIdBinding};
use crate::key::select::{CERTIFICATIONS, alive_at};
use crate::key::sig::{self, Signed};
use crate::key::tsk::Tsk;
use crate::key::{flags, to_timestamp};
use crate::packet::signature::SignatureType;
use crate::packet::user_id::UserId;

/// The addr-spec of a user ID: the text between the last `<` and the following `>`, or the
/// whole user ID if it has no angle brackets and looks like an address.
fn addr_spec(user_id: &[u8]) -> Option<&[u8]> {
    match user_id.iter().rposition(|&b| b == b'<') {
        Some(open) => {
            let rest = user_id.get(open.checked_add(1)?..)?;
            let close = rest.iter().position(|&b| b == b'>')?;
            rest.get(..close)
        }
        None if user_id.contains(&b'@') && !user_id.iter().any(u8::is_ascii_whitespace) => Some(user_id),
        None => None,
    }
}

impl Cert {
    /// Can the primary key make certifications at `t` (valid, with key flag 0x01)?
    #[must_use]
    pub fn can_certify_at(&self, t: SystemTime) -> bool {
        self.primary_at(to_timestamp(t)).is_ok_and(|k| k.flags & flags::CERTIFY != 0)
    }

    /// Is the user ID `u` certified at `t` by `authority` (see the module rules)?
    fn certified_by(&self, u: &UserIdBinding, authority: &Cert, t: u32) -> bool {
        let signed = Signed::UserId(&self.primary, u.user_id.as_bytes());
        let auth_fp = authority.fingerprint.as_bytes().as_slice();
        let by_authority = |s: &&crate::packet::signature::SignaturePacket| {
            s.issuer_fingerprint() == Some(auth_fp) && sig::verify(&authority.primary, s, signed).is_ok()
        };
        let revocations: Vec<u32> = u
            .sigs
            .iter()
            .filter(|s| s.sig_type == SignatureType::CertificationRevocation)
            .filter(|s| s.creation_time().is_some_and(|c| c <= t))
            .filter(by_authority)
            .filter_map(|s| s.creation_time())
            .collect();
        u.sigs
            .iter()
            .filter(|s| CERTIFICATIONS.contains(&s.sig_type) && alive_at(s, self.primary.creation_time, t))
            .filter(by_authority)
            .any(|s| {
                let created = s.creation_time().unwrap_or(u32::MAX);
                let authority_ok = authority.primary_at(created).is_ok_and(|k| k.flags & flags::CERTIFY != 0);
                authority_ok && !revocations.iter().any(|r| *r >= created)
            })
    }

    fn validate_matching<C: Borrow<Cert>>(
        &self,
        authorities: &[C],
        at: SystemTime,
        matches: impl Fn(&[u8]) -> bool,
    ) -> bool {
        let t = to_timestamp(at);
        if self.primary_at(t).is_err() {
            return false;
        }
        let self_valid = self.valid_user_ids_at(at);
        self.user_ids.iter().filter(|u| matches(u.user_id.as_bytes())).any(|u| {
            let signed = Signed::UserId(&self.primary, u.user_id.as_bytes());
            if crate::key::select::revoked(self, &u.sigs, SignatureType::CertificationRevocation, signed, t) {
                return false;
            }
            authorities.iter().map(Borrow::borrow).any(|a: &Cert| {
                if a.fingerprint == self.fingerprint {
                    self_valid.contains(&u.user_id.as_bytes())
                } else {
                    self.certified_by(u, a, t)
                }
            })
        })
    }

    /// Is `user_id` (exact octets) validly bound to this certificate at `at`, certified by
    /// one of `authorities` (certificates, references or `Arc`s)? See the rules in this
    /// module's documentation.
    #[must_use]
    pub fn validate_user_id<C: Borrow<Cert>>(
        &self,
        user_id: &[u8],
        authorities: impl IntoIterator<Item = C>,
        at: SystemTime,
    ) -> bool {
        let authorities: Vec<C> = authorities.into_iter().collect();
        self.validate_matching(&authorities, at, |u| u == user_id)
    }

    /// Like [`Cert::validate_user_id`], but matches any user ID whose e-mail address part
    /// (`Name <addr-spec>`, or a bare `addr-spec`) equals `addr_spec`, ignoring ASCII case.
    #[must_use]
    pub fn validate_addr_spec<C: Borrow<Cert>>(
        &self,
        addr: &str,
        authorities: impl IntoIterator<Item = C>,
        at: SystemTime,
    ) -> bool {
        let authorities: Vec<C> = authorities.into_iter().collect();
        self.validate_matching(&authorities, at, |u| {
            addr_spec(u).is_some_and(|a| a.eq_ignore_ascii_case(addr.as_bytes()))
        })
    }
}

impl Tsk {
    /// Certifies `user_id` on `cert` with this key's primary key (a generic certification,
    /// type 0x10, made at `at`), and returns `cert` with the certification added.
    ///
    /// With `require_self_sig`, the user ID must be validly self-signed on `cert` at `at`;
    /// without it, a user ID `cert` does not have is added, carrying only the certification.
    ///
    /// # Errors
    /// `KeyUnusable` if this key cannot certify at `at` (invalid, or no certify flag);
    /// `InvalidArgument` if `require_self_sig` and `cert` has no such self-signed user ID;
    /// `KeyLocked` if the primary secret is locked.
    pub fn certify_user_id(
        &self,
        cert: &Cert,
        user_id: &[u8],
        require_self_sig: bool,
        at: SystemTime,
    ) -> Result<Cert> {
        if !self.cert.can_certify_at(at) {
            let _ = self.cert.primary_at(to_timestamp(at))?;
            return Err(Error::key_unusable(self.fingerprint(), KeyProblem::WrongKeyFlags));
        }
        if require_self_sig && !cert.valid_user_ids_at(at).contains(&user_id) {
            return Err(Error::InvalidArgument("certificate has no self-signed user ID matching"));
        }
        let certification = self.primary_signature(
            SignatureType::GenericCertification,
            to_timestamp(at),
            Vec::new(),
            Signed::UserId(&cert.primary, user_id),
            &mut Rng::os(),
        )?;
        let mut out = cert.clone();
        match out.user_ids.iter_mut().find(|u| u.user_id.as_bytes() == user_id) {
            Some(u) => u.sigs.push(certification),
            None => out
                .user_ids
                .push(UserIdBinding { user_id: UserId::from(user_id.to_vec()), sigs: vec![certification] }),
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::addr_spec;

    #[test]
    fn addr_spec_extraction() {
        assert_eq!(addr_spec(b"Alice <alice@example.org>"), Some(&b"alice@example.org"[..]));
        assert_eq!(addr_spec(b"alice@example.org"), Some(&b"alice@example.org"[..]));
        assert_eq!(addr_spec(b"A <x> <b@example.org>"), Some(&b"b@example.org"[..]));
        assert_eq!(addr_spec(b"Alice"), None);
        assert_eq!(addr_spec(b"Alice <unterminated"), None);
    }
}

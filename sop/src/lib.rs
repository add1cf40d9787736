//! sixpgp's implementation of the Stateless OpenPGP (SOP) interface, and the `sixsop` and
//! `sixsopv` command-line tools built on it.
//!
//! [`SixSop`] implements the `sop` crate's [`sop::SOP`] trait on sixpgp's public API only, so
//! a Rust program written against that trait can use sixpgp as its OpenPGP backend, or switch
//! between backends (other implementations of the trait include `sequoia-sop` and
//! `rpgpie-sop`). The two binaries are thin mains over it: `sixsop` (every subcommand) and
//! `sixsopv` (the verification-only subset: `version`, `verify`, `inline-verify`). Argument
//! parsing, special designators (`@ENV:`, `@FD:`) and exit codes come from the `sop` crate's
//! CLI frontend, behind the default `cli` feature; the library alone does not need it.
//!
//! ```
//! use sop::ops::Ready;
//! use sop::{Load, SOP, Save};
//! use sixpgp_sop::SixSop;
//!
//! # fn main() -> sop::Result<()> {
//! let sop = SixSop::default();
//! let key = sop.generate_key()?.userid("Alice <alice@example.org>").generate()?;
//! let cert = sop.extract_cert()?.keys(&key)?;
//!
//! let (_session_key, ciphertext) =
//!     sop.encrypt()?.with_certs(&cert)?.plaintext(&mut &b"Hello, Alice!"[..])?.to_vec()?;
//! let (_, plaintext) = sop.decrypt()?.with_keys(&key)?.ciphertext(&mut &ciphertext[..])?.to_vec()?;
//! assert_eq!(plaintext, b"Hello, Alice!");
//!
//! // Keys and certificates are exchanged as OpenPGP bytes, armored or not.
//! let armored = cert.to_vec(true)?;
//! let again = sixpgp_sop::Certs::from_bytes(&sop, &armored)?;
//! assert_eq!(again.to_vec(false)?, cert.to_vec(false)?);
//! # Ok(()) }
//! ```
//!
//! Errors are the `sop` crate's [`sop::errors::Error`]; a one-line explanation of the sixpgp
//! error behind one is printed to stderr, as the command-line tools report it.
#![forbid(unsafe_code)]

mod cmd;
mod errors;
mod io;
mod objects;

use sop::ops::{
    Armor, CertifyUserID, ChangeKeyPassword, Dearmor, Decrypt, Encrypt, ExtractCert, GenerateKey,
    InlineDetach, InlineSign, InlineVerify, MergeCerts, RevokeKey, Sign, UpdateKey, ValidateUserID, Verify,
    Version,
};

pub use objects::{Certs, Keys, Sigs};
/// What [`SixSop::encrypt_for`] takes (sixpgp's own type).
pub use sixpgp::Purpose;

/// sixpgp's implementation of [`sop::SOP`].
///
/// SOP is stateless, so the value holds only the name that `version` reports (`sixsop` by
/// default, see [`SixSop::with_name`]) and the two options of SOP -15 that the `sop` 0.8
/// traits cannot carry: `encrypt --for` ([`SixSop::encrypt_for`]) and `update-key
/// --revoke-deprecated-keys` ([`SixSop::revoke_deprecated_keys`]), which apply to every
/// operation of those kinds made from the value. Every operation starts from a method of the
/// trait.
#[derive(Debug, Clone, Copy)]
pub struct SixSop {
    name: &'static str,
    encrypt_for: Purpose,
    revoke_deprecated_keys: bool,
    plaintext_len: Option<u64>,
}

impl Default for SixSop {
    fn default() -> Self {
        Self { name: "sixsop", encrypt_for: Purpose::Any, revoke_deprecated_keys: false, plaintext_len: None }
    }
}

impl SixSop {
    /// The implementation that reports itself as `sixsop`.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// The same implementation reporting itself as `name` in `version` (the `sixsopv` binary is
    /// `SixSop::with_name("sixsopv")`).
    #[must_use]
    pub fn with_name(name: &'static str) -> Self {
        Self { name, ..Self::default() }
    }

    /// Which encryption keys of each certificate `encrypt` encrypts to (SOP -15 `encrypt
    /// --for`): keys flagged for storage, for communications, or either (the default).
    #[must_use]
    pub fn encrypt_for(mut self, purpose: Purpose) -> Self {
        self.encrypt_for = purpose;
        self
    }

    /// Whether `update-key` revokes, as superseded, every encryption subkey of an older
    /// algorithm once the key has one of the current profile's (SOP -15 `update-key
    /// --revoke-deprecated-keys`). Default: no.
    #[must_use]
    pub fn revoke_deprecated_keys(mut self, yes: bool) -> Self {
        self.revoke_deprecated_keys = yes;
        self
    }

    /// The length of the plaintext `encrypt` will be given, when it is known in advance
    /// (`sixsop` passes the size of standard input when that is a regular file): binary
    /// messages are then written with fixed lengths, which
    /// [`Decryptor::seekable_reader`](sixpgp::Decryptor::seekable_reader) reads any range
    /// of in O(1) chunks (see [`Encryptor::plaintext_len`](sixpgp::Encryptor::plaintext_len)).
    /// A plaintext of another length fails the encryption.
    #[must_use]
    pub fn plaintext_len(mut self, octets: Option<u64>) -> Self {
        self.plaintext_len = octets;
        self
    }

    /// The name `version` reports.
    #[must_use]
    pub fn name(&self) -> &'static str {
        self.name
    }
}

impl<'s> sop::SOP<'s> for SixSop {
    type Keys = Keys<'s>;
    type Certs = Certs<'s>;
    type Sigs = Sigs<'s>;

    fn spec_version(&'s self) -> &'static str {
        // `~`: every subcommand of -11 is implemented, and of -15's additions the two options
        // `encrypt --for` and `update-key --revoke-deprecated-keys`, which `sixsop` reads itself
        // (the `sop` 0.8 frontend does not know them).
        "~draft-dkg-openpgp-stateless-cli-11\n\
         All subcommands of -11 are implemented, and the -15 options encrypt --for and\n\
         update-key --revoke-deprecated-keys."
    }

    fn version(&self) -> sop::Result<Box<dyn Version<'_>>> {
        Ok(Box::new(cmd::version::VersionCmd::new(self.name)))
    }

    fn generate_key(&'s self) -> sop::Result<Box<dyn GenerateKey<'s, Self, Self::Keys> + 's>> {
        Ok(Box::new(cmd::generate_key::GenerateKeyCmd::new(self)))
    }

    fn change_key_password(&'s self) -> sop::Result<Box<dyn ChangeKeyPassword<'s, Self, Self::Keys> + 's>> {
        Ok(Box::new(cmd::change_key_password::ChangeKeyPasswordCmd::new(self)))
    }

    fn revoke_key(&'s self) -> sop::Result<Box<dyn RevokeKey<'s, Self, Self::Certs, Self::Keys> + 's>> {
        Ok(Box::new(cmd::revoke_key::RevokeKeyCmd::new(self)))
    }

    fn extract_cert(&'s self) -> sop::Result<Box<dyn ExtractCert<'s, Self, Self::Certs, Self::Keys> + 's>> {
        Ok(Box::new(cmd::extract_cert::ExtractCertCmd::new(self)))
    }

    fn update_key(&'s self) -> sop::Result<Box<dyn UpdateKey<'s, Self, Self::Certs, Self::Keys> + 's>> {
        Ok(Box::new(cmd::update_key::UpdateKeyCmd::new(self)))
    }

    fn merge_certs(&'s self) -> sop::Result<Box<dyn MergeCerts<'s, Self, Self::Certs> + 's>> {
        Ok(Box::new(cmd::merge_certs::MergeCertsCmd::new(self)))
    }

    fn certify_userid(
        &'s self,
    ) -> sop::Result<Box<dyn CertifyUserID<'s, Self, Self::Certs, Self::Keys> + 's>> {
        Ok(Box::new(cmd::certify_userid::CertifyUserIdCmd::new(self)))
    }

    fn validate_userid(&'s self) -> sop::Result<Box<dyn ValidateUserID<'s, Self, Self::Certs> + 's>> {
        Ok(Box::new(cmd::validate_userid::ValidateUserIdCmd::new()))
    }

    fn sign(&'s self) -> sop::Result<Box<dyn Sign<'s, Self, Self::Keys, Self::Sigs> + 's>> {
        Ok(Box::new(cmd::sign::SignCmd::new(self)))
    }

    fn verify(&'s self) -> sop::Result<Box<dyn Verify<'s, Self, Self::Certs, Self::Sigs> + 's>> {
        Ok(Box::new(cmd::verify::VerifyCmd::new(self)))
    }

    fn encrypt(&'s self) -> sop::Result<Box<dyn Encrypt<'s, Self, Self::Certs, Self::Keys> + 's>> {
        Ok(Box::new(cmd::encrypt::EncryptCmd::new(self.encrypt_for, self.plaintext_len)))
    }

    fn decrypt(&'s self) -> sop::Result<Box<dyn Decrypt<'s, Self, Self::Certs, Self::Keys> + 's>> {
        Ok(Box::new(cmd::decrypt::DecryptCmd::default()))
    }

    fn armor(&'s self) -> sop::Result<Box<dyn Armor<'s> + 's>> {
        Ok(Box::new(cmd::armor::ArmorCmd))
    }

    fn dearmor(&'s self) -> sop::Result<Box<dyn Dearmor<'s> + 's>> {
        Ok(Box::new(cmd::armor::DearmorCmd))
    }

    fn inline_detach(&'s self) -> sop::Result<Box<dyn InlineDetach<'s, Self::Sigs> + 's>> {
        Ok(Box::new(cmd::inline_verify::InlineDetachCmd::new(self)))
    }

    fn inline_verify(&'s self) -> sop::Result<Box<dyn InlineVerify<'s, Self, Self::Certs> + 's>> {
        Ok(Box::new(cmd::inline_verify::InlineVerifyCmd::default()))
    }

    fn inline_sign(&'s self) -> sop::Result<Box<dyn InlineSign<'s, Self, Self::Keys> + 's>> {
        Ok(Box::new(cmd::inline_sign::InlineSignCmd::new()))
    }
}

/// The README's example is compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

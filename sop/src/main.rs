//! `sixsop`: a Stateless OpenPGP (SOP) command-line tool built only on sixpgp's public API.
//!
//! Argument parsing, special designators (`@ENV:`, `@FD:`) and exit codes come from the `sop`
//! crate's CLI frontend, so the surface matches the SOP specification.
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

pub(crate) use objects::{Certs, Keys, Sigs};

/// The SOP implementation: stateless, so it has no fields.
#[derive(Debug, Default)]
pub(crate) struct SixSop;

impl<'s> sop::SOP<'s> for SixSop {
    type Keys = Keys<'s>;
    type Certs = Certs<'s>;
    type Sigs = Sigs<'s>;

    fn spec_version(&'s self) -> &'static str {
        // `~`: every subcommand of -11 is implemented, but the -15 options `encrypt --for` and
        // `update-key --revoke-deprecated-keys` are not exposed by the `sop` 0.8 frontend.
        "~draft-dkg-openpgp-stateless-cli-11\n\
         All subcommands of -11 are implemented. The -15 options encrypt --for and\n\
         update-key --revoke-deprecated-keys are not available through the sop 0.8 frontend."
    }

    fn version(&self) -> sop::Result<Box<dyn Version<'_>>> {
        Ok(Box::new(cmd::version::VersionCmd))
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
        Ok(Box::new(cmd::encrypt::EncryptCmd::new()))
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

fn main() {
    // A closed pipe must give an error exit, not a panic: Rust ignores SIGPIPE, so writes fail
    // with `BrokenPipe`, which the frontend turns into an exit code.
    let mut sop = SixSop;
    sop::cli::main(&mut sop, sop::cli::Variant::Full);
}

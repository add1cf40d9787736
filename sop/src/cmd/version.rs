//! `sixsop version`.

use sop::ops::{Version, VersionInfo};

/// Reports this tool's and the library's versions.
#[derive(Debug)]
pub(crate) struct VersionCmd;

impl Version<'_> for VersionCmd {
    fn frontend(&self) -> sop::Result<VersionInfo> {
        Ok(VersionInfo { name: "sixsop".into(), version: env!("CARGO_PKG_VERSION").into() })
    }

    fn backend(&self) -> sop::Result<VersionInfo> {
        Ok(VersionInfo { name: "sixpgp".into(), version: sixpgp::VERSION.into() })
    }

    fn extended(&self) -> sop::Result<String> {
        Ok(format!(
            "sixsop {}\nsixpgp {}: OpenPGP v6 (RFC 9580) and post-quantum hybrids (RFC 9980)\n\
             primitives: RustCrypto and dalek (ed25519-dalek, x25519-dalek, ml-kem, ml-dsa, aes with our own OCB3 and GCM, eax, argon2); \
             graviola for AES-GCM, X25519 and Ed25519 verification where the CPU allows",
            env!("CARGO_PKG_VERSION"),
            sixpgp::VERSION
        ))
    }
}

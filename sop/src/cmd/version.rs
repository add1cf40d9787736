//! `sixsop version`.

use sop::ops::{Version, VersionInfo};

/// Reports this tool's and the library's versions, and the primitives' implementations.
#[derive(Debug)]
pub(crate) struct VersionCmd {
    /// The frontend's name: `sixsop` or `sixsopv`.
    name: &'static str,
}

impl VersionCmd {
    pub(crate) fn new(name: &'static str) -> Self {
        Self { name }
    }
}

impl Version<'_> for VersionCmd {
    fn frontend(&self) -> sop::Result<VersionInfo> {
        Ok(VersionInfo { name: self.name.into(), version: env!("CARGO_PKG_VERSION").into() })
    }

    fn backend(&self) -> sop::Result<VersionInfo> {
        Ok(VersionInfo { name: "sixpgp".into(), version: sixpgp::VERSION.into() })
    }

    fn extended(&self) -> sop::Result<String> {
        Ok(format!(
            "{} {}\nsixpgp {}: OpenPGP v6 (RFC 9580) and post-quantum hybrids (RFC 9980)\nprimitives: {}",
            self.name,
            env!("CARGO_PKG_VERSION"),
            sixpgp::VERSION,
            sixpgp::backend(),
        ))
    }
}

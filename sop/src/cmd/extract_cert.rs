//! `sixsop extract-cert`.

use sop::ops::ExtractCert;

use crate::{Certs, Keys, SixSop};

/// Strips the secret parts of each key.
#[derive(Debug)]
pub(crate) struct ExtractCertCmd<'s> {
    sop: &'s SixSop,
}

impl<'s> ExtractCertCmd<'s> {
    pub(crate) fn new(sop: &'s SixSop) -> Self {
        Self { sop }
    }
}

impl<'s> ExtractCert<'s, SixSop, Certs<'s>, Keys<'s>> for ExtractCertCmd<'s> {
    fn keys(self: Box<Self>, keys: &Keys<'s>) -> sop::Result<Certs<'s>> {
        Ok(Certs::new(self.sop, keys.keys.iter().map(sixpgp::Tsk::to_cert).collect()))
    }
}

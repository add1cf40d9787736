//! `sixsop merge-certs`.

use sixpgp::Cert;
use sop::ops::MergeCerts;

use crate::errors::to_sop;
use crate::{Certs, SixSop};

/// Merges the update certificates into the certificates from standard input; only those are
/// emitted (updates for other keys are ignored).
#[derive(Debug)]
pub(crate) struct MergeCertsCmd<'s> {
    sop: &'s SixSop,
    updates: Vec<Cert>,
}

impl<'s> MergeCertsCmd<'s> {
    pub(crate) fn new(sop: &'s SixSop) -> Self {
        Self { sop, updates: Vec::new() }
    }
}

impl<'s> MergeCerts<'s, SixSop, Certs<'s>> for MergeCertsCmd<'s> {
    fn merge_updates(
        mut self: Box<Self>,
        updates: &Certs<'s>,
    ) -> sop::Result<Box<dyn MergeCerts<'s, SixSop, Certs<'s>> + 's>> {
        self.updates.extend(updates.certs.iter().cloned());
        Ok(self)
    }

    fn merge(self: Box<Self>, certs: &Certs<'s>) -> sop::Result<Certs<'s>> {
        let mut out: Vec<Cert> = Vec::with_capacity(certs.certs.len());
        for cert in &certs.certs {
            // Several copies of one certificate on standard input become one.
            if let Some(existing) = out.iter_mut().find(|c| c.fingerprint() == cert.fingerprint()) {
                *existing = existing.clone().merge(cert.clone()).map_err(to_sop)?;
                continue;
            }
            let mut merged = cert.clone().merge(cert.clone()).map_err(to_sop)?;
            for u in self.updates.iter().filter(|u| u.fingerprint() == cert.fingerprint()) {
                merged = merged.merge(u.clone()).map_err(to_sop)?;
            }
            out.push(merged);
        }
        Ok(Certs::new(self.sop, out))
    }
}

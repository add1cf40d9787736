//! `sixsop verify`, and the conversion of verifications to SOP's VERIFICATIONS lines.

use std::io::Read;
use std::time::SystemTime;

use sixpgp::{Cert, Error, SignatureMode, Verification, Verifier};
use sop::ops::{Verify, VerifySignatures};

use crate::errors::to_sop;
use crate::{Certs, Sigs, SixSop};

/// Certificates with the name they were given as, and the time window.
#[derive(Debug, Default)]
pub(crate) struct VerifyOptions {
    pub(crate) certs: Vec<Cert>,
    /// For each certificate, the CERTS argument it came from.
    names: Vec<Option<String>>,
    not_before: Option<SystemTime>,
    not_after: Option<SystemTime>,
}

impl VerifyOptions {
    pub(crate) fn add(&mut self, certs: &Certs<'_>) {
        let name = sop::Load::source_name(certs).map(str::to_string);
        for c in &certs.certs {
            self.certs.push(c.clone());
            self.names.push(name.clone());
        }
    }

    pub(crate) fn not_before(&mut self, t: SystemTime) {
        self.not_before = Some(t);
    }

    pub(crate) fn not_after(&mut self, t: SystemTime) {
        self.not_after = Some(t);
    }

    pub(crate) fn verifier(&self) -> Verifier {
        let mut v = Verifier::new(&self.certs);
        if let Some(t) = self.not_before {
            v = v.not_before(t);
        }
        if let Some(t) = self.not_after {
            v = v.not_after(t);
        }
        v
    }

    /// The good verifications as SOP objects; NO_SIGNATURE (exit 3) if there is none.
    pub(crate) fn to_sop(&self, results: &[Verification]) -> sop::Result<Vec<sop::ops::Verification>> {
        let mut out = Vec::new();
        for r in results {
            let (Some(key), Some(cert), Some(t)) = (r.signing_key(), r.cert(), r.creation_time()) else {
                continue;
            };
            if !r.is_good() {
                continue;
            }
            let mode = match r.mode() {
                Some(SignatureMode::Text) => sop::ops::SignatureMode::Text,
                _ => sop::ops::SignatureMode::Binary,
            };
            let mut v = sop::ops::Verification::new(t, key, cert, mode, None)?;
            for (c, name) in self.certs.iter().zip(&self.names) {
                if let (true, Some(name)) = (c.fingerprint() == cert, name) {
                    v.add_signer(name);
                }
            }
            out.push(v);
        }
        for r in results.iter().filter(|r| !r.is_good()) {
            eprintln!("sixsop: signature {}", r.status());
        }
        if out.is_empty() {
            return Err(sop::errors::Error::NoSignature);
        }
        Ok(out)
    }
}

/// Collects certificates and the time window, then verifies detached signatures.
#[derive(Debug)]
pub(crate) struct VerifyCmd<'s> {
    #[allow(dead_code, reason = "kept for symmetry with the other subcommands")]
    sop: &'s SixSop,
    options: VerifyOptions,
}

impl<'s> VerifyCmd<'s> {
    pub(crate) fn new(sop: &'s SixSop) -> Self {
        Self { sop, options: VerifyOptions::default() }
    }
}

struct VerifySigs<'sigs> {
    options: VerifyOptions,
    signatures: &'sigs [u8],
}

impl<'s> Verify<'s, SixSop, Certs<'s>, Sigs<'s>> for VerifyCmd<'s> {
    fn not_before(
        mut self: Box<Self>,
        t: SystemTime,
    ) -> Box<dyn Verify<'s, SixSop, Certs<'s>, Sigs<'s>> + 's> {
        self.options.not_before(t);
        self
    }

    fn not_after(
        mut self: Box<Self>,
        t: SystemTime,
    ) -> Box<dyn Verify<'s, SixSop, Certs<'s>, Sigs<'s>> + 's> {
        self.options.not_after(t);
        self
    }

    fn certs(
        mut self: Box<Self>,
        certs: &Certs<'s>,
    ) -> sop::Result<Box<dyn Verify<'s, SixSop, Certs<'s>, Sigs<'s>> + 's>> {
        self.options.add(certs);
        Ok(self)
    }

    fn signatures<'sigs>(
        self: Box<Self>,
        signatures: &'sigs Sigs<'s>,
    ) -> sop::Result<Box<dyn VerifySignatures<'sigs> + 'sigs>>
    where
        's: 'sigs,
    {
        Ok(Box::new(VerifySigs { options: self.options, signatures: &signatures.bytes }))
    }
}

impl VerifySignatures<'_> for VerifySigs<'_> {
    fn data(
        self: Box<Self>,
        data: &mut (dyn Read + Send + Sync),
    ) -> sop::Result<Vec<sop::ops::Verification>> {
        let mut sink = self.options.verifier().detached(self.signatures).map_err(to_sop)?;
        let _ = std::io::copy(data, &mut sink).map_err(|e| to_sop(Error::from_io(e)))?;
        self.options.to_sop(&sink.finish())
    }
}

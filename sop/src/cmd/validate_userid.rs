//! `sixsop validate-userid`.

use std::time::SystemTime;

use sixpgp::Cert;
use sop::ops::ValidateUserID;

use crate::{Certs, SixSop};

/// Succeeds if every certificate from standard input has the user ID (or e-mail address)
/// certified by one of the authorities; CERT_USERID_NO_MATCH otherwise.
#[derive(Debug)]
pub(crate) struct ValidateUserIdCmd {
    authorities: Vec<Cert>,
    targets: Vec<Cert>,
    at: Option<SystemTime>,
}

impl ValidateUserIdCmd {
    pub(crate) fn new() -> Self {
        Self { authorities: Vec::new(), targets: Vec::new(), at: None }
    }

    fn check(&self, valid: impl Fn(&Cert, SystemTime) -> bool) -> sop::Result<()> {
        let at = self.at.unwrap_or_else(SystemTime::now);
        if self.targets.is_empty() {
            return Err(sop::errors::Error::BadData);
        }
        for cert in &self.targets {
            if !valid(cert, at) {
                eprintln!(
                    "sixsop: certificate {} has no matching user ID certified by an authority",
                    cert.fingerprint()
                );
                return Err(sop::errors::Error::CertUseridNoMatch);
            }
        }
        Ok(())
    }
}

impl<'s> ValidateUserID<'s, SixSop, Certs<'s>> for ValidateUserIdCmd {
    fn trust_roots(
        mut self: Box<Self>,
        certs: &Certs<'s>,
    ) -> sop::Result<Box<dyn ValidateUserID<'s, SixSop, Certs<'s>> + 's>> {
        self.authorities.extend(certs.certs.iter().cloned());
        Ok(self)
    }

    fn target_certs(
        mut self: Box<Self>,
        certs: &Certs<'s>,
    ) -> sop::Result<Box<dyn ValidateUserID<'s, SixSop, Certs<'s>> + 's>> {
        self.targets.extend(certs.certs.iter().cloned());
        Ok(self)
    }

    fn validate_at(
        mut self: Box<Self>,
        at: SystemTime,
    ) -> sop::Result<Box<dyn ValidateUserID<'s, SixSop, Certs<'s>> + 's>> {
        self.at = Some(at);
        Ok(self)
    }

    fn userid(self: Box<Self>, userid: &str) -> sop::Result<()> {
        self.check(|c, at| c.validate_user_id(userid.as_bytes(), &self.authorities, at))
    }

    fn email(self: Box<Self>, email: &str) -> sop::Result<()> {
        self.check(|c, at| c.validate_addr_spec(email, &self.authorities, at))
    }
}

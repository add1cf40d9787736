//! `sixsop certify-userid`.

use std::time::SystemTime;

use sixpgp::{Password, Tsk};
use sop::ops::CertifyUserID;

use crate::cmd::change_key_password::{unlock_all, variants};
use crate::errors::to_sop;
use crate::{Certs, Keys, SixSop};

/// SOP's KEY_CANNOT_CERTIFY, which the `sop` 0.8 frontend has no variant for.
const KEY_CANNOT_CERTIFY: i32 = 109;

/// Each certifier key certifies each given user ID on each certificate from standard input.
#[derive(Debug)]
pub(crate) struct CertifyUserIdCmd<'s> {
    sop: &'s SixSop,
    user_ids: Vec<String>,
    passwords: Vec<Password>,
    require_self_sig: bool,
    certifiers: Vec<Tsk>,
}

impl<'s> CertifyUserIdCmd<'s> {
    pub(crate) fn new(sop: &'s SixSop) -> Self {
        Self {
            sop,
            user_ids: Vec::new(),
            passwords: Vec::new(),
            require_self_sig: true,
            certifiers: Vec::new(),
        }
    }
}

impl<'s> CertifyUserID<'s, SixSop, Certs<'s>, Keys<'s>> for CertifyUserIdCmd<'s> {
    fn userid(
        mut self: Box<Self>,
        userid: String,
    ) -> Box<dyn CertifyUserID<'s, SixSop, Certs<'s>, Keys<'s>> + 's> {
        self.user_ids.push(userid);
        self
    }

    fn with_key_password(
        mut self: Box<Self>,
        password: sop::Password,
    ) -> sop::Result<Box<dyn CertifyUserID<'s, SixSop, Certs<'s>, Keys<'s>> + 's>> {
        self.passwords.extend(variants(&password));
        Ok(self)
    }

    fn no_require_self_sig(
        mut self: Box<Self>,
    ) -> Box<dyn CertifyUserID<'s, SixSop, Certs<'s>, Keys<'s>> + 's> {
        self.require_self_sig = false;
        self
    }

    fn keys(
        mut self: Box<Self>,
        keys: &Keys<'s>,
    ) -> sop::Result<Box<dyn CertifyUserID<'s, SixSop, Certs<'s>, Keys<'s>> + 's>> {
        for k in &keys.keys {
            self.certifiers.push(k.clone());
        }
        Ok(self)
    }

    fn certify(mut self: Box<Self>, certs: &Certs<'s>) -> sop::Result<Certs<'s>> {
        let now = SystemTime::now();
        if self.certifiers.is_empty() {
            return Err(sop::errors::Error::MissingArg);
        }
        for key in &mut self.certifiers {
            unlock_all(key, &self.passwords)?;
        }
        if let Some(key) = self.certifiers.iter().find(|k| !k.cert().can_certify_at(now)) {
            eprintln!("sixsop: key {} cannot make certifications", key.fingerprint());
            // The sop 0.8 frontend has no KEY_CANNOT_CERTIFY error, so exit directly. Nothing
            // has been written yet; drop the unlocked keys first so that their secrets are
            // wiped (process::exit runs no destructors).
            self.certifiers.clear();
            std::process::exit(KEY_CANNOT_CERTIFY);
        }
        let mut out = Vec::with_capacity(certs.certs.len());
        for cert in &certs.certs {
            let mut cert = cert.clone();
            for user_id in &self.user_ids {
                if self.require_self_sig && !cert.valid_user_ids_at(now).contains(&user_id.as_bytes()) {
                    eprintln!(
                        "sixsop: certificate {} has no self-signed user ID {user_id:?}",
                        cert.fingerprint()
                    );
                    return Err(sop::errors::Error::CertUseridNoMatch);
                }
                for key in &self.certifiers {
                    cert = key
                        .certify_user_id(&cert, user_id.as_bytes(), self.require_self_sig, now)
                        .map_err(to_sop)?;
                }
            }
            out.push(cert);
        }
        Ok(Certs::new(self.sop, out))
    }
}

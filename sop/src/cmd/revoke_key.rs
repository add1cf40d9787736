//! `sixsop revoke-key`.

use std::time::SystemTime;

use sixpgp::{Password, ReasonForRevocation};
use sop::ops::RevokeKey;

use crate::cmd::change_key_password::{unlock_all, variants};
use crate::errors::to_sop;
use crate::{Certs, Keys, SixSop};

/// Revokes each key ("key superseded", a soft revocation: earlier signatures stay valid) and
/// emits its certificate with the revocation added, as sqop does.
#[derive(Debug)]
pub(crate) struct RevokeKeyCmd<'s> {
    sop: &'s SixSop,
    passwords: Vec<Password>,
}

impl<'s> RevokeKeyCmd<'s> {
    pub(crate) fn new(sop: &'s SixSop) -> Self {
        Self { sop, passwords: Vec::new() }
    }
}

impl<'s> RevokeKey<'s, SixSop, Certs<'s>, Keys<'s>> for RevokeKeyCmd<'s> {
    fn with_key_password(
        mut self: Box<Self>,
        password: sop::Password,
    ) -> sop::Result<Box<dyn RevokeKey<'s, SixSop, Certs<'s>, Keys<'s>> + 's>> {
        self.passwords.extend(variants(&password));
        Ok(self)
    }

    fn keys(self: Box<Self>, keys: &Keys<'s>) -> sop::Result<Certs<'s>> {
        let now = SystemTime::now();
        let mut out = Vec::with_capacity(keys.keys.len());
        for k in &keys.keys {
            let mut key = k.clone();
            unlock_all(&mut key, &self.passwords)?;
            key.revoke(ReasonForRevocation::Superseded, "key superseded", now).map_err(to_sop)?;
            out.push(key.to_cert());
        }
        Ok(Certs::new(self.sop, out))
    }
}

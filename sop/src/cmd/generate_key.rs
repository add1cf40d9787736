//! `sixsop generate-key` and `sixsop list-profiles generate-key`.

use sixpgp::{KeyBuilder, Profile};
use sop::ops::GenerateKey;
use sop::plumbing::PasswordsAreHumanReadable;

use crate::errors::to_sop;
use crate::{Keys, SixSop};

/// Collects the options, then generates one key.
#[derive(Debug)]
pub(crate) struct GenerateKeyCmd<'s> {
    sop: &'s SixSop,
    profile: Profile,
    signing_only: bool,
    password: Option<sixpgp::Password>,
    user_ids: Vec<String>,
}

impl<'s> GenerateKeyCmd<'s> {
    pub(crate) fn new(sop: &'s SixSop) -> Self {
        Self { sop, profile: Profile::default(), signing_only: false, password: None, user_ids: Vec::new() }
    }
}

/// The PROFILELIST lines for `list-profiles`, the default first, aliases named.
pub(crate) fn profile_list() -> Vec<(String, String)> {
    Profile::ALL
        .into_iter()
        .map(|p| {
            let aliases = p.aliases();
            let desc = if aliases.is_empty() {
                p.description().to_string()
            } else {
                format!("{} (aliases: {})", p.description(), aliases.join(", "))
            };
            (p.name().to_string(), desc)
        })
        .collect()
}

impl<'s> GenerateKey<'s, SixSop, Keys<'s>> for GenerateKeyCmd<'s> {
    fn list_profiles(&self) -> Vec<(String, String)> {
        profile_list()
    }

    fn profile(
        mut self: Box<Self>,
        profile: &str,
    ) -> sop::Result<Box<dyn GenerateKey<'s, SixSop, Keys<'s>> + 's>> {
        self.profile = Profile::from_name(profile).ok_or_else(|| {
            eprintln!("sixsop: unknown profile {profile:?}; see `sixsop list-profiles generate-key`");
            sop::errors::Error::UnsupportedProfile
        })?;
        Ok(self)
    }

    fn signing_only(mut self: Box<Self>) -> Box<dyn GenerateKey<'s, SixSop, Keys<'s>> + 's> {
        self.signing_only = true;
        self
    }

    fn with_key_password(
        mut self: Box<Self>,
        password: sop::Password,
    ) -> sop::Result<Box<dyn GenerateKey<'s, SixSop, Keys<'s>> + 's>> {
        self.password = Some(sixpgp::Password::from(password.normalized()));
        Ok(self)
    }

    fn userid(mut self: Box<Self>, userid: &str) -> Box<dyn GenerateKey<'s, SixSop, Keys<'s>> + 's> {
        self.user_ids.push(userid.to_string());
        self
    }

    fn generate(self: Box<Self>) -> sop::Result<Keys<'s>> {
        let mut b = KeyBuilder::new(self.profile).signing_only(self.signing_only);
        for u in self.user_ids {
            b = b.user_id(u);
        }
        if let Some(pw) = self.password {
            b = b.password(pw);
        }
        let tsk = b.generate().map_err(to_sop)?;
        Ok(Keys::new(self.sop, vec![tsk]))
    }
}

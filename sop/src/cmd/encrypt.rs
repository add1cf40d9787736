//! `sixsop encrypt` and `sixsop list-profiles encrypt`.

use std::io::{BufWriter, Read, Write};

use sixpgp::{Cert, DataFormat, Encryptor, Password, Profile, Purpose, Signer};
use sop::ops::{Encrypt, EncryptAs, Ready};
use sop::plumbing::PasswordsAreHumanReadable;

use crate::cmd::sign::Signers;
use crate::errors::{Context, to_sop, to_sop_in};
use crate::{Certs, Keys, SixSop};

/// Collects the options; `plaintext` then streams the data through an [`Encryptor`].
#[derive(Debug)]
pub(crate) struct EncryptCmd {
    armor: bool,
    format: DataFormat,
    profile: Option<Profile>,
    /// `--for`: which encryption keys of each certificate.
    purpose: Purpose,
    passwords: Vec<Password>,
    certs: Vec<Cert>,
    /// `--sign-with` keys and `--with-key-password` passwords.
    signers: Signers,
    signing: bool,
    /// The plaintext's length, if known in advance (see `SixSop::plaintext_len`).
    plaintext_len: Option<u64>,
}

impl EncryptCmd {
    pub(crate) fn new(purpose: Purpose, plaintext_len: Option<u64>) -> Self {
        Self {
            armor: true,
            format: DataFormat::Binary,
            profile: None,
            purpose,
            passwords: Vec::new(),
            certs: Vec::new(),
            signers: Signers::default(),
            signing: false,
            plaintext_len,
        }
    }
}

/// The PROFILELIST lines for `list-profiles encrypt`, the default first.
fn profile_list() -> Vec<(String, String)> {
    vec![
        (
            Profile::Rfc9580.name().to_string(),
            "AES-128 or AES-256 with OCB or GCM as the recipients prefer; AES-256 for post-quantum recipients \
             (aliases: rfc9580)"
                .to_string(),
        ),
        (Profile::Pqc.name().to_string(), "always AES-256 (aliases: rfc9980, pqc-encryption)".to_string()),
    ]
}

impl<'s> Encrypt<'s, SixSop, Certs<'s>, Keys<'s>> for EncryptCmd {
    fn no_armor(mut self: Box<Self>) -> Box<dyn Encrypt<'s, SixSop, Certs<'s>, Keys<'s>> + 's> {
        self.armor = false;
        self
    }

    fn list_profiles(&self) -> Vec<(String, String)> {
        profile_list()
    }

    fn profile(
        mut self: Box<Self>,
        profile: &str,
    ) -> sop::Result<Box<dyn Encrypt<'s, SixSop, Certs<'s>, Keys<'s>> + 's>> {
        self.profile = Some(Profile::from_name(profile).ok_or_else(|| {
            eprintln!("sixsop: unknown profile {profile:?}; see `sixsop list-profiles encrypt`");
            sop::errors::Error::UnsupportedProfile
        })?);
        Ok(self)
    }

    fn mode(mut self: Box<Self>, mode: EncryptAs) -> Box<dyn Encrypt<'s, SixSop, Certs<'s>, Keys<'s>> + 's> {
        self.format = match mode {
            EncryptAs::Text => DataFormat::Utf8,
            EncryptAs::Binary => DataFormat::Binary,
        };
        self
    }

    fn sign_with_keys(
        mut self: Box<Self>,
        keys: &Keys<'s>,
    ) -> sop::Result<Box<dyn Encrypt<'s, SixSop, Certs<'s>, Keys<'s>> + 's>> {
        self.signers.add(keys)?;
        self.signing = true;
        Ok(self)
    }

    fn with_key_password(
        mut self: Box<Self>,
        password: sop::Password,
    ) -> sop::Result<Box<dyn Encrypt<'s, SixSop, Certs<'s>, Keys<'s>> + 's>> {
        self.signers.password(password);
        Ok(self)
    }

    fn with_password(
        mut self: Box<Self>,
        password: sop::Password,
    ) -> sop::Result<Box<dyn Encrypt<'s, SixSop, Certs<'s>, Keys<'s>> + 's>> {
        self.passwords.push(Password::from(password.normalized()));
        Ok(self)
    }

    fn with_certs(
        mut self: Box<Self>,
        certs: &Certs<'s>,
    ) -> sop::Result<Box<dyn Encrypt<'s, SixSop, Certs<'s>, Keys<'s>> + 's>> {
        self.certs.extend(certs.certs.iter().cloned());
        Ok(self)
    }

    fn plaintext<'d>(
        self: Box<Self>,
        plaintext: &'d mut (dyn Read + Send + Sync),
    ) -> sop::Result<Box<dyn Ready<Option<sop::SessionKey>> + 'd>>
    where
        's: 'd,
    {
        if self.certs.is_empty() && self.passwords.is_empty() {
            eprintln!("sixsop: encrypt needs CERTS or --with-password");
            return Err(sop::errors::Error::MissingArg);
        }
        Ok(Box::new(EncryptReady { cmd: *self, plaintext }))
    }
}

struct EncryptReady<'d> {
    cmd: EncryptCmd,
    plaintext: &'d mut (dyn Read + Send + Sync),
}

impl Ready<Option<sop::SessionKey>> for EncryptReady<'_> {
    fn to_writer(
        self: Box<Self>,
        sink: &mut (dyn Write + Send + Sync),
    ) -> sop::Result<Option<sop::SessionKey>> {
        let EncryptReady { cmd, plaintext } = *self;
        let keys = if cmd.signing { cmd.signers.unlocked()? } else { Vec::new() };
        // Each signing key on its own first, so that one that cannot sign is reported as such
        // (KEY_CANNOT_SIGN, or KEY_IS_PROTECTED if locked), not as a recipient problem.
        for k in &keys {
            let _ = Signer::new().key(k).detached().map_err(to_sop)?;
        }
        // The certificates and keys move into the encryptor (no copies).
        let mut e = Encryptor::new(cmd.certs).armor(cmd.armor).format(cmd.format).purpose(cmd.purpose);
        for k in keys {
            e = e.signer(k);
        }
        if let Some(p) = cmd.profile {
            e = e.profile(p);
        }
        for pw in cmd.passwords {
            e = e.password(pw);
        }
        // Binary data goes in unchanged, so its length is the literal data's.
        if let Some(n) = cmd.plaintext_len.filter(|_| cmd.format != DataFormat::Utf8) {
            e = e.plaintext_len(n);
        }
        let mut w = e
            .writer(BufWriter::with_capacity(crate::io::SMALL_BUF_LEN, sink))
            .map_err(|e| to_sop_in(Context::Encrypt, e))?;
        let (sym, key) = w.session_key();
        let session_key = sop::SessionKey::new(u8::from(sym), key.as_bytes())?;
        if cmd.format == DataFormat::Utf8 {
            crate::cmd::sign::copy(plaintext, &mut w, true)?;
        } else {
            // Through one wiped buffer: `io::copy` would leave plaintext in its stack buffer.
            let _ = w.copy_from(plaintext).map_err(|e| to_sop_in(Context::Encrypt, e))?;
        }
        let _ = w.finish().map_err(|e| to_sop_in(Context::Encrypt, e))?;
        Ok(Some(session_key))
    }
}

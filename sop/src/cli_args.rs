//! The binaries' own pass over the command line, before the `sop` 0.8 frontend parses it: the
//! subcommand, and the SOP -15 options that frontend does not know.
//!
//! The frontend reads the process's own arguments, which cannot be changed in place. So
//! `sixsop` given a -15 option runs itself again without it, and hands the option to that
//! process in its environment (`SIXSOP_ENCRYPT_FOR`, `SIXSOP_REVOKE_DEPRECATED_KEYS`), where
//! [`Extensions::from_env`] reads it back.
#![allow(dead_code, reason = "each binary uses the part it needs")]

use std::ffi::{OsStr, OsString};

use sixpgp_sop::{Purpose, SixSop};

/// UNSUPPORTED_OPTION: an option value this implementation does not have.
pub(crate) const UNSUPPORTED_OPTION: i32 = 37;
/// MISSING_ARG: an option without its value.
pub(crate) const MISSING_ARG: i32 = 19;

/// The environment variable that carries `encrypt --for` to the second process.
const FOR_VAR: &str = "SIXSOP_ENCRYPT_FOR";
/// The environment variable that carries `update-key --revoke-deprecated-keys`.
const REVOKE_VAR: &str = "SIXSOP_REVOKE_DEPRECATED_KEYS";

/// The subcommand: the first argument after the program name that is not an option (the only
/// option before it is the value-less `--debug`).
pub(crate) fn subcommand(args: &[OsString]) -> Option<(usize, &OsStr)> {
    args.iter()
        .enumerate()
        .skip(1)
        .find(|(_, a)| !a.to_string_lossy().starts_with('-'))
        .map(|(i, a)| (i, a.as_os_str()))
}

/// The -15 options found on the command line.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Extensions {
    /// `encrypt --for=`.
    pub(crate) encrypt_for: Option<Purpose>,
    /// `update-key --revoke-deprecated-keys`.
    pub(crate) revoke_deprecated_keys: bool,
}

impl Extensions {
    /// True if the command line had none of the options.
    pub(crate) fn is_empty(&self) -> bool {
        *self == Self::default()
    }

    /// The options as the first process handed them over.
    pub(crate) fn from_env() -> Self {
        Self {
            encrypt_for: std::env::var_os(FOR_VAR).as_deref().and_then(purpose),
            revoke_deprecated_keys: std::env::var_os(REVOKE_VAR).is_some_and(|v| v == "1"),
        }
    }

    /// Hands the options to `child`.
    pub(crate) fn to_env(&self, child: &mut std::process::Command) {
        if let Some(p) = self.encrypt_for {
            let _ = child.env(
                FOR_VAR,
                match p {
                    Purpose::Storage => "storage",
                    Purpose::Communications => "communications",
                    _ => "any",
                },
            );
        }
        if self.revoke_deprecated_keys {
            let _ = child.env(REVOKE_VAR, "1");
        }
    }

    /// `sop` with these options set.
    pub(crate) fn apply(&self, sop: SixSop) -> SixSop {
        let sop = sop.revoke_deprecated_keys(self.revoke_deprecated_keys);
        match self.encrypt_for {
            Some(purpose) => sop.encrypt_for(purpose),
            None => sop,
        }
    }
}

/// The `--for` value's meaning (SOP -15: key flag 0x08, 0x04, or either).
fn purpose(value: &OsStr) -> Option<Purpose> {
    match value.to_str()? {
        "storage" => Some(Purpose::Storage),
        "communications" => Some(Purpose::Communications),
        "any" => Some(Purpose::Any),
        _ => None,
    }
}

/// Takes the -15 options out of `args`: `--for=VALUE` (or `--for VALUE`) of `encrypt` and
/// `--revoke-deprecated-keys` of `update-key`, up to a `--` that ends the options. Returns the
/// other arguments, in order, and the options; or the exit code and message of a bad value.
pub(crate) fn take_extensions(args: &[OsString]) -> Result<(Vec<OsString>, Extensions), (i32, String)> {
    let mut ext = Extensions::default();
    let Some((at, sub)) = subcommand(args) else { return Ok((args.to_vec(), ext)) };
    let sub = sub.to_string_lossy().into_owned();
    let (head, tail) = args.split_at(at.saturating_add(1));
    let mut rest = head.to_vec();
    let mut tail = tail.iter();
    while let Some(arg) = tail.next() {
        let text = arg.to_string_lossy();
        if text == "--" {
            rest.push(arg.clone());
            rest.extend(tail.cloned());
            break;
        }
        if sub == "encrypt" && (text == "--for" || text.starts_with("--for=")) {
            let value = match text.strip_prefix("--for=") {
                Some(value) => OsString::from(value),
                None => tail.next().cloned().ok_or((MISSING_ARG, "--for needs a value".to_string()))?,
            };
            let p = purpose(&value).ok_or_else(|| {
                (
                    UNSUPPORTED_OPTION,
                    format!("--for={}: not one of storage, communications, any", value.to_string_lossy()),
                )
            })?;
            ext.encrypt_for = Some(p);
        } else if sub == "update-key" && text == "--revoke-deprecated-keys" {
            ext.revoke_deprecated_keys = true;
        } else {
            rest.push(arg.clone());
        }
    }
    Ok((rest, ext))
}

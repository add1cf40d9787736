//! The one place where library errors become SOP exit codes.

use sixpgp::{Error, Unsupported};

/// The subcommand an error comes from, where that changes its meaning.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Context {
    /// `encrypt`: an unusable key is a certificate that cannot encrypt.
    Encrypt,
    /// `decrypt`.
    Decrypt,
    /// Every other subcommand.
    Other,
}

/// Maps a library error to the SOP error (and so exit code) that describes it, printing a
/// one-line explanation to stderr first: the SOP frontend only prints the code's generic text.
pub(crate) fn to_sop(err: Error) -> sop::errors::Error {
    to_sop_in(Context::Other, err)
}

/// [`to_sop`] for an error of a given subcommand.
pub(crate) fn to_sop_in(context: Context, err: Error) -> sop::errors::Error {
    // The whole chain: an I/O error's own text is its source's, not the library error's.
    let mut line = err.to_string();
    let mut source = std::error::Error::source(&err);
    while let Some(s) = source {
        line = format!("{line}: {s}");
        source = s.source();
    }
    eprintln!("sixsop: {line}");
    match err {
        Error::Unsupported(Unsupported::PublicKeyAlgorithm(_) | Unsupported::HashAlgorithm(_))
            if context != Context::Decrypt =>
        {
            sop::errors::Error::UnsupportedAsymmetricAlgo
        }
        Error::KeyUnusable { .. } if context == Context::Encrypt => sop::errors::Error::CertCannotEncrypt,
        // The message is for a given key that this crate cannot use (its algorithm, or the
        // protection of its secret): no key can decrypt it.
        Error::Unsupported(Unsupported::PublicKeyAlgorithm(_) | Unsupported::SecretKeyProtection(_))
            if context == Context::Decrypt =>
        {
            sop::errors::Error::CannotDecrypt
        }
        Error::Malformed(_)
        | Error::Truncated(_)
        | Error::Unsupported(_)
        | Error::LimitExceeded(_)
        | Error::InvalidArgument(_) => sop::errors::Error::BadData,
        Error::Decrypt | Error::NoDecryptionKey { .. } => sop::errors::Error::CannotDecrypt,
        // In `decrypt`, a wrong password is one for the message, not for a key.
        Error::BadPassword if context == Context::Decrypt => sop::errors::Error::CannotDecrypt,
        Error::KeyLocked { .. } | Error::BadPassword => sop::errors::Error::KeyIsProtected,
        Error::BadSignature(_) => sop::errors::Error::NoSignature,
        Error::KeyUnusable { .. } => sop::errors::Error::KeyCannotSign,
        Error::Io(e) => sop::errors::Error::IoError(e),
        Error::Internal(_) => sop::errors::Error::UnspecifiedFailure,
        _ => sop::errors::Error::UnspecifiedFailure,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A broken invariant of the library is not the input's fault.
    #[test]
    fn internal_errors_are_not_bad_data() {
        assert!(matches!(to_sop(Error::Internal("invariant")), sop::errors::Error::UnspecifiedFailure));
        assert!(matches!(to_sop(Error::InvalidArgument("argument")), sop::errors::Error::BadData));
    }

    /// In `decrypt`, a key this crate cannot use means no key can decrypt the message.
    #[test]
    fn unusable_decryption_keys_cannot_decrypt() {
        for e in [
            Error::Unsupported(Unsupported::SecretKeyProtection(255)),
            Error::Unsupported(Unsupported::PublicKeyAlgorithm(99)),
        ] {
            assert!(matches!(to_sop_in(Context::Decrypt, e), sop::errors::Error::CannotDecrypt));
        }
    }
}

//! One module per SOP subcommand.

pub(crate) mod armor;
pub(crate) mod change_key_password;
pub(crate) mod decrypt;
pub(crate) mod encrypt;
pub(crate) mod extract_cert;
pub(crate) mod generate_key;
pub(crate) mod inline_sign;
pub(crate) mod inline_verify;
pub(crate) mod sign;
pub(crate) mod verify;
pub(crate) mod version;

//! One module per SOP subcommand.

pub(crate) mod armor;
pub(crate) mod change_key_password;
pub(crate) mod decrypt;
pub(crate) mod encrypt;
pub(crate) mod extract_cert;
pub(crate) mod generate_key;
pub(crate) mod version;

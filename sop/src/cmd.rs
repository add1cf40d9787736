//! One module per SOP subcommand.

pub(crate) mod armor;
pub(crate) mod certify_userid;
pub(crate) mod change_key_password;
pub(crate) mod decrypt;
pub(crate) mod encrypt;
pub(crate) mod extract_cert;
pub(crate) mod generate_key;
pub(crate) mod inline_sign;
pub(crate) mod inline_verify;
pub(crate) mod merge_certs;
pub(crate) mod revoke_key;
pub(crate) mod sign;
pub(crate) mod update_key;
pub(crate) mod validate_userid;
pub(crate) mod verify;
pub(crate) mod version;

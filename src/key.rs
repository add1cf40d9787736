//! Certificates, transferable secret keys, key generation profiles.

//! Messages: encryption, decryption, signing and verification streams.

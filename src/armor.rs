//! ASCII armor (RFC 9580 §6).

//! `sixsop`: the Stateless OpenPGP command-line interface for sixpgp.
#![forbid(unsafe_code)]

fn main() {}

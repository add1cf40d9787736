//! `sixsopv`: the verification-only subset of the Stateless OpenPGP command-line interface
//! (`version`, `verify`, `inline-verify`) on sixpgp.
#![forbid(unsafe_code)]

fn main() {
    sop::cli::main(&mut sixpgp_sop::SixSop::with_name("sixsopv"), sop::cli::Variant::Verification);
}

//! `sixsopv`: the verification-only subset of the Stateless OpenPGP command-line interface
//! (`version`, `verify`, `inline-verify`) on sixpgp.
#![forbid(unsafe_code)]

#[path = "../cli_args.rs"]
mod cli_args;

/// The subcommands of the verification-only subset, and `help`.
const SUBCOMMANDS: [&str; 4] = ["version", "verify", "inline-verify", "help"];

/// UNSUPPORTED_SUBCOMMAND.
const UNSUPPORTED_SUBCOMMAND: i32 = 69;

fn main() {
    // The frontend's verification variant reports a subcommand it does not have as a usage
    // error (exit 1); SOP says UNSUPPORTED_SUBCOMMAND, as `sixsop` answers.
    let args: Vec<_> = std::env::args_os().collect();
    if let Some((_, sub)) = cli_args::subcommand(&args)
        && !SUBCOMMANDS.iter().any(|s| sub == *s)
    {
        eprintln!("sixsopv: unsupported subcommand {}", sub.to_string_lossy());
        std::process::exit(UNSUPPORTED_SUBCOMMAND);
    }
    sop::cli::main(&mut sixpgp_sop::SixSop::with_name("sixsopv"), sop::cli::Variant::Verification);
}

//! Writes the man pages and shell completions (bash, fish, zsh, PowerShell, elvish) of `sixsop`
//! and `sixsopv`, with the `sop` crate's generators, so that they match the binaries' arguments.
//!
//! ```sh
//! cargo run -p sixpgp-sop --example assets -- target/assets
//! ```
//!
//! writes `DIR/man-pages/*.1` and `DIR/shell-completions/*` (default `DIR`: `target/assets`).

use std::error::Error;
use std::path::PathBuf;

use sixpgp_sop::SixSop;
use sop::SOP;
use sop::cli::Variant;
use sop::ops::{Version, VersionInfo};

/// The man pages' author line.
const AUTHOR: &str = "the sixpgp developers";

/// `version` as the tool named `name` reports it; the man page generator needs a value that
/// outlives any one `SixSop`.
struct Named {
    name: &'static str,
}

impl Version<'_> for Named {
    fn frontend(&self) -> sop::Result<VersionInfo> {
        SixSop::with_name(self.name).version()?.frontend()
    }

    fn backend(&self) -> sop::Result<VersionInfo> {
        SixSop::with_name(self.name).version()?.backend()
    }

    fn extended(&self) -> sop::Result<String> {
        SixSop::with_name(self.name).version()?.extended()
    }
}

fn main() -> Result<(), Box<dyn Error>> {
    let dir = PathBuf::from(std::env::args_os().nth(1).unwrap_or_else(|| "target/assets".into()));
    for (name, variant) in [("sixsop", Variant::Full), ("sixsopv", Variant::Verification)] {
        sop::cli::write_shell_completions2(variant, name, dir.join("shell-completions"))?;
        sop::cli::write_man_pages(variant, &Named { name }, AUTHOR, dir.join("man-pages"))?;
    }
    Ok(())
}

//! Generates a key and prints it, armored, together with its certificate.
//!
//! ```sh
//! cargo run --example generate_key -- "Alice <alice@example.org>" security
//! ```

use sixpgp::{KeyBuilder, Profile};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let user_id = args.next().unwrap_or_else(|| "Alice <alice@example.org>".to_string());
    let profile = match args.next() {
        Some(name) => Profile::from_name(&name).ok_or("unknown profile")?,
        None => Profile::default(),
    };

    let key = KeyBuilder::new(profile).user_id(user_id).generate()?;
    println!("# fingerprint {}", key.fingerprint());
    print!("{}", key.to_cert().to_armored());
    print!("{}", &*key.to_armored());
    Ok(())
}

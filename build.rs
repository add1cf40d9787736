//! Tells the code whether `libcrux-ml-kem` builds its AVX2 code, whose unpacked keys
//! `src/crypto/secret.rs` uses: its build script builds it on every x86_64 target unless
//! `LIBCRUX_DISABLE_SIMD256` is set (to 1, y or Y), and this one decides the same way.

fn main() {
    println!("cargo::rustc-check-cfg=cfg(sixpgp_mlkem_avx2)");
    println!("cargo::rerun-if-env-changed=LIBCRUX_DISABLE_SIMD256");
    let x86_64 = std::env::var("CARGO_CFG_TARGET_ARCH").is_ok_and(|arch| arch == "x86_64");
    let disabled =
        std::env::var("LIBCRUX_DISABLE_SIMD256").is_ok_and(|v| matches!(v.as_str(), "1" | "y" | "Y"));
    if x86_64 && !disabled {
        println!("cargo::rustc-cfg=sixpgp_mlkem_avx2");
    }
}

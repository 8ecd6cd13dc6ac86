//! Links the `spindle` binary as a position-dependent executable on Linux: the loader
//! then has no relocations to apply at start (about 9,600 in a PIE build) and no
//! relocated read-only data to copy, which is a measurable part of a short run such as
//! `spindle run --disksim synthsimpledisk.parv`. Only the binaries are affected: the
//! library, the Python extension and proc-macros build as before.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    if os == "linux" && env == "gnu" {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
}

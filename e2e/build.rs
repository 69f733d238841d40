//! Compiles the protocol subset with protox (pure Rust), so no system
//! protoc is needed.
fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("cargo:rerun-if-changed=proto");
    let fds = protox::compile(["tfplugin6.proto", "health.proto"], ["proto"])?;
    tonic_prost_build::configure()
        .build_client(false)
        .compile_fds(fds)?;
    Ok(())
}

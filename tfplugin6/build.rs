//! Compiles the protocol with protox (pure Rust), so no system protoc is
//! needed. Clients are generated too: the tests talk to the server as
//! Terraform does.
fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("cargo:rerun-if-changed=proto");
    let fds = protox::compile(
        ["tfplugin6.proto", "go_plugin.proto", "health.proto"],
        ["proto"],
    )?;
    tonic_prost_build::configure().compile_fds(fds)?;
    Ok(())
}

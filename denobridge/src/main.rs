//! terraform-provider-denobridge: served the way Terraform launches
//! providers (go-plugin's handshake, AutoMTLS), by ctywire's framework.

#[tokio::main]
async fn main() {
    denobridge::provider::DenoBridge::new().serve().await;
}

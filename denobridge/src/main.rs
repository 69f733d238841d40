//! terraform-provider-denobridge: served the way Terraform launches
//! providers (go-plugin's handshake, AutoMTLS), by `ctywire-tfplugin6`.

#[tokio::main]
async fn main() {
    ctywire_tfplugin6::serve(denobridge::provider::DenoBridge::new()).await;
}

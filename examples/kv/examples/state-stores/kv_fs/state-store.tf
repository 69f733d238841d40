# Terraform's state kept as files by kv (protocol 6.11; state stores are
# experimental in Terraform and need a build with experiments enabled).
terraform {
  required_providers {
    kv = { source = "ctywire/kv" }
  }
  state_store "kv_fs" {
    provider "kv" {
      root = "/var/lib/kv"
    }
    root = "/var/lib/terraform-states"
  }
}

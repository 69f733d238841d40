terraform {
  required_providers {
    kv = {
      source = "ctywire/kv"
    }
  }
}

# Entries are kept as JSON files in this directory.
provider "kv" {
  root = "${path.module}/store"
}

//! What the Terraform tests share.

pub mod plugins;

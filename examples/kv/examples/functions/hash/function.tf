# Provider functions need Terraform 1.8 or later.
output "digest" {
  value = provider::kv::hash("abc")
}

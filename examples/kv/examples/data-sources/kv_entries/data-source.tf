data "kv_entries" "web" {
  prefix = "web"
}

output "web_keys" {
  value = data.kv_entries.web.keys
}

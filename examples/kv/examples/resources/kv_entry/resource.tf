resource "kv_entry" "web" {
  key   = "web"
  value = "listening"
  tags  = { env = "test" }
  ports = [80, 443]

  rule {
    port = 80
  }
  rule {
    port = 443
    note = "tls"
  }
}

import {
  to = kv_entry.web
  identity = {
    key = "web"
  }
}

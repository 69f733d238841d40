import {
  to = kv_entry.web
  id = "web"
}

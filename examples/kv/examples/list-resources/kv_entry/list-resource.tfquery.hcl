# In a .tfquery.hcl file: `terraform query` lists the entries whose keys
# start with "web".
list "kv_entry" "web" {
  provider = kv

  config {
    prefix = "web"
  }
}

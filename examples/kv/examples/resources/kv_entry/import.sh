# An entry is imported by its key.
terraform import kv_entry.web web

//! The example exchanges of `docs/seasonings.md` (§4, §8), read out of
//! the doc at test time: the conformance tests of the protocol module and of the
//! Rust SDK's server take their bytes from here.

// Each test binary uses what it needs of this.
#![allow(dead_code)]

/// Each message of §4: its heading line and its bytes.
pub fn examples() -> Vec<(String, Vec<u8>)> {
    examples_in("## 4. Example exchange")
}

/// Each message of the first text block after `heading`.
pub fn examples_in(heading: &str) -> Vec<(String, Vec<u8>)> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/seasonings.md");
    let doc = std::fs::read_to_string(path).expect("docs/seasonings.md");
    let section = doc.split(heading).nth(1).expect("the section in the doc");
    let block = section
        .split("```text")
        .nth(1)
        .and_then(|b| b.split("```").next())
        .expect("a text block in the section");
    let mut out: Vec<(String, Vec<u8>)> = Vec::new();
    let mut heading = String::new();
    let mut in_hex = false;
    for line in block.lines() {
        let hex = !line.is_empty() && line.bytes().all(|b| b.is_ascii_hexdigit());
        if hex {
            if !in_hex {
                out.push((heading.clone(), Vec::new()));
            }
            let bytes = out.last_mut().map(|(_, b)| b).expect("a message");
            for pair in line.as_bytes().chunks(2) {
                let text = std::str::from_utf8(pair).unwrap();
                bytes.push(u8::from_str_radix(text, 16).expect("hex"));
            }
        } else if line.contains("→") {
            heading = line.trim().to_string();
        }
        in_hex = hex;
    }
    out
}

pub fn example(heading_part: &str) -> Vec<u8> {
    let all = examples();
    let found: Vec<_> = all
        .iter()
        .filter(|(h, _)| h.contains(heading_part))
        .collect();
    assert_eq!(
        found.len(),
        1,
        "one example whose heading has {heading_part:?}"
    );
    found[0].1.clone()
}

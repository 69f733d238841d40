//! Replays what the real terraform CLI sent to the ctywire test provider
//! (recorded by `e2e/tests/terraform.rs`), without needing Terraform:
//! every value decodes, and re-encodes to Terraform's exact bytes.

mod support;

use support::fixtures::check_file;

#[test]
fn every_value_terraform_sent_re_encodes_to_its_bytes() {
    let out = check_file("terraform/recorded.jsonl");
    eprintln!(
        "terraform/recorded.jsonl: {} passed, {} failed",
        out.passed,
        out.failures.len()
    );
    for f in &out.failures {
        eprintln!("{f}\n");
    }
    assert!(out.failures.is_empty());
    assert!(
        out.passed >= 20,
        "the recording is unexpectedly small: {}",
        out.passed
    );
}

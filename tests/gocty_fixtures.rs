//! Every line of the go-cty-labelled vectors in `testdata/` (copied from the
//! project's shared fixtures) is run through the library.
//!
//! A line decodes msgpack or JSON as a type and states what go-cty gets:
//! the re-encoded msgpack and JSON (`json` absent when the value holds
//! unknowns), or an error (from decoding or re-encoding), or "either".

mod support;

use support::fixtures::check_file;

fn assert_all_pass(name: &str) {
    let out = check_file(name);
    eprintln!(
        "{name}: {} passed, {} failed",
        out.passed,
        out.failures.len()
    );
    for f in out.failures.iter().take(40) {
        eprintln!("{f}\n");
    }
    assert!(
        out.failures.is_empty(),
        "{} of {} fixture lines failed",
        out.failures.len(),
        out.passed + out.failures.len()
    );
    assert!(
        out.passed > 200,
        "suspiciously few fixture lines ran: {}",
        out.passed
    );
}

#[test]
fn every_edge_case_vector_matches_go_cty() {
    assert_all_pass("gocty-edge.jsonl");
}

#[test]
fn every_random_vector_matches_go_cty() {
    assert_all_pass("gocty-random.jsonl");
}

//! trybuild cases of `topology!`: every compile-time error (with `.stderr` snapshots) and
//! compile-and-run cases covering every operator.
//!
//! Regenerate snapshots after an intended change with `TRYBUILD=overwrite cargo test -p
//! dekaf-streams-ui-tests`, then review the diff.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/fail/*.rs");
    t.pass("tests/pass/*.rs");
    // `#[derive(Avsc)]`: Rust types checked against `.avsc` files (`tests/avsc/schemas`).
    t.compile_fail("tests/avsc/fail/*.rs");
    t.pass("tests/avsc/pass/*.rs");
}

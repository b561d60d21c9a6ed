//! The top-level README's benchmark figures are the ones of `benches/results/latest.md`: the
//! block between its `bench-figures` markers is what `bench-index --readme` makes of it.

use dekaf_streams_benches::readme::{block, current, parse_latest};

#[test]
fn readme_figures_are_latest_md_s() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let readme = std::fs::read_to_string(format!("{root}/README.md")).expect("README.md");
    let latest = std::fs::read_to_string(format!("{root}/benches/results/latest.md"))
        .expect("benches/results/latest.md");
    let rows = parse_latest(&latest);
    assert!(!rows.is_empty(), "latest.md has no rows");
    let written = current(&readme).expect("README.md has the bench-figures markers");
    assert_eq!(
        written,
        block(&rows),
        "README.md's benchmark figures differ from benches/results/latest.md: run \
         `cargo run -p dekaf-streams-benches --bin bench-index -- --readme README.md benches/results/latest.md`"
    );
}

//! The topology pictures of the examples: `describe_dot()` is valid Graphviz (`dot -Tsvg` lays
//! it out and draws every node, topic and store), `describe_mermaid()` names the same nodes, and
//! the runtime's own SVG layout (`Description::to_svg`) draws them all.
//!
//! Needs `dot` (Debian's `graphviz`, installed by `scripts/test.sh`); without it the DOT layout
//! is skipped with a message, except under `CI=true`, where it fails. `DEKAF_PICTURE_DIR=<dir>`
//! also writes each example's `.dot` and `.svg` files there, to look at (`dot -Tpng`).

use std::io::Write;
use std::process::{Command, Stdio};

use dekaf_streams::picture::Description;
use dekaf_streams::task::Topology;
use dekaf_streams_examples::orders::OrderEnrichment;
use dekaf_streams_examples::page_views::PageViews;
use dekaf_streams_examples::sessions::Sessions;
use dekaf_streams_examples::stream_joins::OuterJoin;
use dekaf_streams_examples::word_count::WordCount;

fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true" || v == "1")
}

/// `dot -Tsvg` of `dot`, or `None` when there is no `dot`.
fn svg(dot: &str) -> Option<String> {
    let mut child = match Command::new("dot")
        .arg("-Tsvg")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
    {
        Ok(child) => child,
        Err(e) => {
            assert!(
                !in_ci(),
                "`dot` is needed under CI (apt-get install graphviz): {e}"
            );
            eprintln!("skipping the layout: no `dot` ({e}); apt-get install graphviz");
            return None;
        }
    };
    child
        .stdin
        .take()
        .expect("piped")
        .write_all(dot.as_bytes())
        .expect("write to dot");
    let out = child.wait_with_output().expect("dot runs");
    assert!(
        out.status.success(),
        "dot refused the picture: {}\n{dot}",
        String::from_utf8_lossy(&out.stderr)
    );
    let svg = String::from_utf8(out.stdout).expect("svg is UTF-8");
    // dot writes `-` as `&#45;`, besides XML's own entities.
    Some(
        svg.replace("&#45;", "-")
            .replace("&quot;", "\"")
            .replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&amp;", "&"),
    )
}

fn check<T: Topology>() {
    let description = Description::parse(T::describe()).expect("our description reads back");
    let dot = T::describe_dot().expect("a picture");
    let mermaid = T::describe_mermaid().expect("a picture");
    let drawn = svg(&dot);
    // Laid out by the runtime itself, for the status page.
    let own_svg = description.to_svg();
    if let Ok(dir) = std::env::var("DEKAF_PICTURE_DIR") {
        std::fs::write(format!("{dir}/{}.dot", T::APPLICATION_ID), &dot)
            .expect("write the picture");
        std::fs::write(format!("{dir}/{}.svg", T::APPLICATION_ID), &own_svg)
            .expect("write the picture");
    }
    let mut names = Vec::new();
    for sub in &description.subtopologies {
        for node in &sub.nodes {
            names.push(node.name.clone());
            names.extend(node.topics.iter().cloned());
            names.extend(node.stores.iter().cloned());
        }
    }
    assert!(!names.is_empty());
    for name in &names {
        assert!(
            mermaid.contains(&format!("\"{name}\"")),
            "{name} missing from\n{mermaid}"
        );
        let in_svg = name.replace('&', "&amp;").replace('"', "&quot;");
        assert!(
            own_svg.contains(&format!("data-name=\"{in_svg}\"")),
            "{name} missing from\n{own_svg}"
        );
        if let Some(svg) = &drawn {
            assert!(
                svg.contains(&format!(">{name}</text>")),
                "{name} not drawn by dot"
            );
        }
    }
}

#[test]
fn every_example_topology_is_drawn_with_all_its_nodes_topics_and_stores() {
    check::<WordCount>();
    check::<OrderEnrichment>();
    check::<PageViews>();
    check::<Sessions>();
    check::<OuterJoin>();
}

//! The picture as SVG, laid out here (no Graphviz needed where the application runs): what a
//! status page shows.
//!
//! Each subtopology is a band, one under the other. In a band, the topics it reads stand in the
//! first column, then its nodes in columns by their depth (a node one column right of the
//! deepest node that forwards to it), then the topics it writes; the stores stand in a row under
//! the processors that use them. A repartition topic appears in both bands it joins, at the end
//! of one and the start of the other. Every element carries its name in `data-name` (and its
//! kind in `class`), so a test or a script can find it in the page's DOM.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::{Description, NodeKind, Subtopology};

const COLUMN: i64 = 250;
const BOX_W: i64 = 220;
const BOX_H: i64 = 34;
const ROW: i64 = 50;
const HEADER: i64 = 28;
const MARGIN: i64 = 12;

/// Where an element stands: the left edge, the top, in pixels.
#[derive(Debug, Clone, Copy)]
struct At {
    x: i64,
    y: i64,
}

impl Description {
    /// The topology as a standalone SVG document, laid out without Graphviz: each subtopology a
    /// band, one under the other; in a band the topics it reads, then its nodes in columns by
    /// depth, then the topics it writes, and its stores in a row under the processors that use
    /// them. Every element carries its name in `data-name` and its kind in `class`.
    pub fn to_svg(&self) -> String {
        let mut body = String::new();
        let mut top = MARGIN;
        let mut width = 0;
        for sub in &self.subtopologies {
            let (band, band_width, height) = band(sub, top);
            body.push_str(&band);
            width = width.max(band_width);
            top += height + MARGIN;
        }
        let mut out = String::new();
        let _ = write!(
            out,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"topology\" width=\"{w}\" height=\"{top}\" \
             viewBox=\"0 0 {w} {top}\" font-family=\"Helvetica, Arial, sans-serif\" font-size=\"10\">\n\
             <defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"7\" \
             markerHeight=\"7\" orient=\"auto-start-reverse\"><path d=\"M 0 0 L 10 5 L 0 10 z\" \
             fill=\"#555\"/></marker></defs>\n",
            w = width + 2 * MARGIN
        );
        out.push_str(&body);
        out.push_str("</svg>\n");
        out
    }
}

/// One subtopology's band at `top`: its SVG, its width and its height.
fn band(sub: &Subtopology, top: i64) -> (String, i64, i64) {
    let depth = depths(sub);
    let last = depth.values().copied().max().unwrap_or(0);
    // Column 0: topics read; 1..=last: nodes; last + 1: topics written.
    let mut columns: BTreeMap<i64, Vec<(String, &'static str)>> = BTreeMap::new();
    let mut place = |column: i64, key: String, class: &'static str| {
        let entries = columns.entry(column).or_default();
        if !entries.iter().any(|(k, _)| *k == key) {
            entries.push((key, class));
        }
    };
    for node in &sub.nodes {
        let column = depth.get(node.name.as_str()).copied().unwrap_or(1);
        for topic in &node.topics {
            match node.kind {
                NodeKind::Source => place(0, format!("topic:{topic}"), "topic"),
                _ => place(last + 1, format!("topic:{topic}"), "topic"),
            }
        }
        place(column, format!("node:{}", node.name), kind_class(node.kind));
    }
    let rows = columns.values().map(Vec::len).max().unwrap_or(1) as i64;
    let stores: Vec<(&str, &str)> = sub
        .nodes
        .iter()
        .flat_map(|n| n.stores.iter().map(move |s| (s.as_str(), n.name.as_str())))
        .collect();
    let store_rows = i64::from(!stores.is_empty());
    let height = HEADER + (rows + store_rows) * ROW;
    let mut at: BTreeMap<String, At> = BTreeMap::new();
    for (column, entries) in &columns {
        for (row, (key, _)) in entries.iter().enumerate() {
            at.insert(
                key.clone(),
                At {
                    x: MARGIN * 2 + column * COLUMN,
                    y: top + HEADER + row as i64 * ROW,
                },
            );
        }
    }
    // Stores under the first processor that uses them.
    let mut next_free = 0;
    for (store, user) in &stores {
        let key = format!("store:{store}");
        if at.contains_key(&key) {
            continue;
        }
        let x = at
            .get(&format!("node:{user}"))
            .map_or(MARGIN * 2, |a| a.x)
            .max(next_free);
        next_free = x + COLUMN;
        at.insert(
            key,
            At {
                x,
                y: top + HEADER + rows * ROW,
            },
        );
    }
    let width = at.values().map(|a| a.x + BOX_W).max().unwrap_or(BOX_W);
    let mut out = String::new();
    let title = super::subtopology_title(sub);
    let _ = writeln!(
        out,
        "<g class=\"subtopology\" data-id=\"{id}\"><rect x=\"{MARGIN}\" y=\"{top}\" width=\"{w}\" \
         height=\"{height}\" rx=\"8\" fill=\"#fafafa\" stroke=\"#999\"/><text x=\"{tx}\" y=\"{ty}\" \
         font-weight=\"bold\">{title}</text></g>",
        id = escape(&sub.id),
        w = width,
        tx = MARGIN * 2,
        ty = top + 18,
        title = escape(&title),
    );
    // Edges first, so boxes draw over their ends.
    for node in &sub.nodes {
        let me = format!("node:{}", node.name);
        let Some(&from) = at.get(&me) else { continue };
        for topic in &node.topics {
            let topic_at = at[&format!("topic:{topic}")];
            match node.kind {
                NodeKind::Source => arrow(&mut out, topic_at, from),
                _ => arrow(&mut out, from, topic_at),
            }
        }
        for next in &node.successors {
            if let Some(&to) = at.get(&format!("node:{next}")) {
                arrow(&mut out, from, to);
            }
        }
        for store in &node.stores {
            let s = at[&format!("store:{store}")];
            let _ = writeln!(
                out,
                "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#b08a3c\" stroke-dasharray=\"4 3\"/>",
                from.x + BOX_W / 2,
                from.y + BOX_H,
                s.x + BOX_W / 2,
                s.y
            );
        }
    }
    for entries in columns.values() {
        for (key, class) in entries {
            element(&mut out, key, class, at[key]);
        }
    }
    let mut drawn = std::collections::BTreeSet::new();
    for (store, _) in &stores {
        if drawn.insert(*store) {
            let key = format!("store:{store}");
            element(&mut out, &key, "store", at[&key]);
        }
    }
    (out, width, height)
}

/// Each node's column: 1 for a source, one right of its deepest predecessor otherwise.
fn depths(sub: &Subtopology) -> BTreeMap<&str, i64> {
    let mut depth: BTreeMap<&str, i64> = sub.nodes.iter().map(|n| (n.name.as_str(), 1)).collect();
    // A longest-path relaxation; at most one pass per node, so a cycle cannot loop forever.
    for _ in 0..sub.nodes.len() {
        let mut changed = false;
        for node in &sub.nodes {
            let d = depth[node.name.as_str()];
            for next in &node.successors {
                if let Some(n) = depth.get_mut(next.as_str())
                    && *n < d + 1
                {
                    *n = d + 1;
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
    depth
}

fn kind_class(kind: NodeKind) -> &'static str {
    match kind {
        NodeKind::Source => "node source",
        NodeKind::Processor => "node processor",
        NodeKind::Sink => "node sink",
    }
}

/// A topic, node or store box with its label.
fn element(out: &mut String, key: &str, class: &str, at: At) {
    let name = key.split_once(':').map_or(key, |(_, n)| n);
    let (fill, rx) = match class {
        "topic" => ("#e8eefc", BOX_H / 2),
        "store" => ("#fdf3e1", 10),
        "node source" | "node sink" => ("#eef7ee", 4),
        _ => ("#ffffff", 4),
    };
    let _ = writeln!(
        out,
        "<g class=\"{class}\" data-name=\"{n}\"><title>{n}</title><rect x=\"{x}\" y=\"{y}\" width=\"{BOX_W}\" \
         height=\"{BOX_H}\" rx=\"{rx}\" fill=\"{fill}\" stroke=\"#555\"/><text x=\"{tx}\" y=\"{ty}\" \
         text-anchor=\"middle\">{n}</text></g>",
        n = escape(name),
        x = at.x,
        y = at.y,
        tx = at.x + BOX_W / 2,
        ty = at.y + BOX_H / 2 + 4,
    );
}

/// An arrow from the right edge of `from` to the left edge of `to`.
fn arrow(out: &mut String, from: At, to: At) {
    let _ = writeln!(
        out,
        "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#555\" marker-end=\"url(#arrow)\"/>",
        from.x + BOX_W,
        from.y + BOX_H / 2,
        to.x,
        to.y + BOX_H / 2
    );
}

/// Text for XML.
pub(crate) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::tests::JAVA;
    use super::*;

    #[test]
    fn every_node_topic_and_store_is_drawn_once_per_band_and_named() {
        let svg = Description::parse(JAVA).unwrap().to_svg();
        assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
        for name in [
            "orders-source",
            "enrich",
            "to-shipments",
            "orders",
            "shipments",
            "customers-updater",
            "customers-store",
            "audit-.*",
            "&quot;quoted&quot;",
        ] {
            assert_eq!(
                svg.matches(&format!("data-name=\"{name}\"")).count(),
                1,
                "{name} in\n{svg}"
            );
        }
        assert_eq!(svg.matches("class=\"subtopology\"").count(), 3);
        // Source -> enrich -> sink: two node arrows, plus topic arrows in and out.
        assert!(svg.matches("marker-end=\"url(#arrow)\"").count() >= 4);
    }

    #[test]
    fn a_node_stands_right_of_every_node_that_forwards_to_it() {
        let d = Description::parse(JAVA).unwrap();
        let depth = depths(&d.subtopologies[0]);
        assert_eq!(depth["orders-source"], 1);
        assert_eq!(depth["enrich"], 2);
        assert_eq!(depth["to-shipments"], 3);
    }

    #[test]
    fn names_are_escaped() {
        assert_eq!(escape("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&#39;");
    }
}

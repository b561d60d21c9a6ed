//! A picture of a topology: its `describe()` text drawn as Graphviz DOT or Mermaid.
//!
//! [`Topology::describe_dot`](crate::task::Topology::describe_dot) and
//! [`Topology::describe_mermaid`](crate::task::Topology::describe_mermaid) draw a compiled
//! topology. [`Description::parse`] reads the text format of Kafka Streams'
//! `Topology.describe()` itself, which `topology!` writes too, so a Java application's
//! description (from its logs, or `System.out.println(topology.describe())`) can be drawn and set
//! beside ours when one takes the other over.
//!
//! ```
//! use dekaf_streams::picture::Description;
//!
//! let text = "Topologies:
//!    Sub-topology: 0
//!     Source: KSTREAM-SOURCE-0000000000 (topics: [sentences])
//!       --> KSTREAM-AGGREGATE-0000000001
//!     Processor: KSTREAM-AGGREGATE-0000000001 (stores: [counts])
//!       --> KSTREAM-SINK-0000000002
//!       <-- KSTREAM-SOURCE-0000000000
//!     Sink: KSTREAM-SINK-0000000002 (topic: word-counts)
//!       <-- KSTREAM-AGGREGATE-0000000001
//! ";
//! let description = Description::parse(text)?;
//! assert!(description.to_dot().contains("\"topic:sentences\" -> \"node:KSTREAM-SOURCE-0000000000\""));
//! assert!(description.to_mermaid().starts_with("flowchart LR"));
//! # Ok::<(), dekaf_streams::picture::DescriptionError>(())
//! ```
//!
//! [`Description::to_svg`] lays the picture out itself, for a status page (see `svg`).
//!
//! What is drawn: each subtopology as a box around its processors (global stores' too); topics
//! as ellipses (DOT) or stadiums (Mermaid) outside the boxes, so a repartition topic joins the
//! subtopology that writes it to the one that reads it; stores as cylinders, tied to the
//! processors that use them by dashed lines. `render` (`dot -Tsvg topology.dot -o
//! topology.svg`, or any Mermaid viewer) does the layout.

mod svg;

#[cfg(feature = "http")]
pub(crate) use svg::escape;

use std::collections::BTreeMap;
use std::fmt::Write as _;

/// What kind of node a line of the description names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeKind {
    /// Reads topics (or a topic pattern).
    Source,
    /// Runs an operator, with its stores.
    Processor,
    /// Writes a topic (or a topic chosen per record).
    Sink,
}

/// One node of a subtopology.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Node {
    /// Source, processor or sink.
    pub kind: NodeKind,
    /// Its name (`KSTREAM-SOURCE-0000000000`, or the name given with `Named`).
    pub name: String,
    /// The topics a source reads or a sink writes (a source's pattern or a sink's extractor is
    /// one entry, as written).
    pub topics: Vec<String>,
    /// The stores a processor uses.
    pub stores: Vec<String>,
    /// The nodes it forwards to.
    pub successors: Vec<String>,
}

/// One subtopology (or global store) of a description.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Subtopology {
    /// Its id (`0`, `1`, …).
    pub id: String,
    /// A global store's subtopology (it generates no tasks).
    pub global: bool,
    /// Its nodes in the order described.
    pub nodes: Vec<Node>,
}

/// A parsed `describe()` text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Description {
    /// The subtopologies in the order described.
    pub subtopologies: Vec<Subtopology>,
}

/// Why a text is not a topology description.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DescriptionError {
    /// No `Sub-topology:` line: give the whole output of `describe()`.
    #[error(
        "no `Sub-topology:` line: this is not the text of a topology's describe() (pass it whole, \
         from its `Topologies:` line)"
    )]
    NoSubtopology,
    /// A line that belongs to a node came before any node, or one could not be read.
    #[error("line {line} of the description cannot be read: `{text}`")]
    Unreadable {
        /// Its number, from 1.
        line: usize,
        /// The line.
        text: String,
    },
}

impl Description {
    /// Reads the text of Kafka Streams' `Topology.describe()` (or `topology!`'s `describe()`,
    /// whose lines after the nodes, not indented, end the part read).
    ///
    /// # Errors
    ///
    /// [`DescriptionError`] when the text holds no subtopology or a node line cannot be read.
    pub fn parse(text: &str) -> Result<Description, DescriptionError> {
        let mut subtopologies: Vec<Subtopology> = Vec::new();
        let mut in_topologies = false;
        for (i, raw) in text.lines().enumerate() {
            let line = raw.trim();
            let unreadable = || DescriptionError::Unreadable {
                line: i + 1,
                text: raw.to_owned(),
            };
            if line.is_empty() {
                continue;
            }
            if !raw.starts_with(' ') {
                // `Topologies:` opens the part read; a later line at the margin ends it.
                if in_topologies && !subtopologies.is_empty() {
                    break;
                }
                in_topologies |= line.starts_with("Topologies:") || line.starts_with("Topology:");
                continue;
            }
            if let Some(rest) = line.strip_prefix("Sub-topology:") {
                let rest = rest.trim();
                let (id, global) = match rest.split_once(' ') {
                    Some((id, tail)) => (id, tail.contains("global store")),
                    None => (rest, false),
                };
                subtopologies.push(Subtopology {
                    id: id.to_owned(),
                    global,
                    nodes: Vec::new(),
                });
                continue;
            }
            let Some(sub) = subtopologies.last_mut() else {
                continue;
            };
            if let Some(names) = line.strip_prefix("-->") {
                let node = sub.nodes.last_mut().ok_or_else(unreadable)?;
                node.successors = node_names(names);
                continue;
            }
            if line.starts_with("<--") {
                // Predecessors repeat the successors of other nodes.
                sub.nodes.last().ok_or_else(unreadable)?;
                continue;
            }
            let (kind, rest) = if let Some(rest) = line.strip_prefix("Source:") {
                (NodeKind::Source, rest)
            } else if let Some(rest) = line.strip_prefix("Processor:") {
                (NodeKind::Processor, rest)
            } else if let Some(rest) = line.strip_prefix("Sink:") {
                (NodeKind::Sink, rest)
            } else {
                // `Store:` lines of `topology!` and anything else: not drawn from here.
                continue;
            };
            let rest = rest.trim();
            let (name, detail) = match rest.split_once(" (") {
                Some((name, detail)) => (name, detail.strip_suffix(')').ok_or_else(unreadable)?),
                None => (rest, ""),
            };
            let mut node = Node {
                kind,
                name: name.to_owned(),
                topics: Vec::new(),
                stores: Vec::new(),
                successors: Vec::new(),
            };
            if let Some(list) = detail.strip_prefix("topics: ") {
                node.topics = bracketed(list);
            } else if let Some(topic) = detail.strip_prefix("topic: ") {
                node.topics = vec![topic.to_owned()];
            } else if let Some(class) = detail.strip_prefix("extractor class: ") {
                node.topics = vec![format!("(chosen by {class})")];
            } else if let Some(list) = detail.strip_prefix("stores: ") {
                node.stores = bracketed(list);
            }
            sub.nodes.push(node);
        }
        if subtopologies.is_empty() {
            return Err(DescriptionError::NoSubtopology);
        }
        Ok(Description { subtopologies })
    }

    /// The topology in Graphviz DOT (`dot -Tsvg`).
    pub fn to_dot(&self) -> String {
        let mut out = String::from(
            "digraph topology {\n  rankdir=LR;\n  node [fontname=\"Helvetica\", fontsize=10];\n",
        );
        let (topics, stores) = self.topics_and_stores();
        for sub in &self.subtopologies {
            let title = subtopology_title(sub);
            let _ = writeln!(
                out,
                "  subgraph \"cluster_{}\" {{\n    label={};\n    style=rounded;",
                sub.id,
                dot_quote(&title)
            );
            for node in &sub.nodes {
                let shape = match node.kind {
                    NodeKind::Source => "invhouse",
                    NodeKind::Processor => "box",
                    NodeKind::Sink => "house",
                };
                let _ = writeln!(
                    out,
                    "    {} [label={}, shape={shape}];",
                    dot_quote(&format!("node:{}", node.name)),
                    dot_quote(&node.name)
                );
            }
            out.push_str("  }\n");
        }
        for topic in &topics {
            let _ = writeln!(
                out,
                "  {} [label={}, shape=ellipse, style=filled, fillcolor=\"#e8eefc\"];",
                dot_quote(&format!("topic:{topic}")),
                dot_quote(topic)
            );
        }
        for store in &stores {
            let _ = writeln!(
                out,
                "  {} [label={}, shape=cylinder, style=filled, fillcolor=\"#fdf3e1\"];",
                dot_quote(&format!("store:{store}")),
                dot_quote(store)
            );
        }
        for (from, to, style) in self.edges() {
            let attributes = match style {
                Edge::Flow => "",
                Edge::Store => " [style=dashed, arrowhead=none]",
            };
            let _ = writeln!(
                out,
                "  {} -> {}{attributes};",
                dot_quote(&from),
                dot_quote(&to)
            );
        }
        out.push_str("}\n");
        out
    }

    /// The topology as a Mermaid flowchart.
    pub fn to_mermaid(&self) -> String {
        let mut out = String::from("flowchart LR\n");
        // Mermaid ids are plain words: every node, topic and store gets a numbered one.
        let mut ids: BTreeMap<String, String> = BTreeMap::new();
        let mut id_of = |key: &str| -> String {
            let next = ids.len();
            ids.entry(key.to_owned())
                .or_insert_with(|| format!("n{next}"))
                .clone()
        };
        let (topics, stores) = self.topics_and_stores();
        for sub in &self.subtopologies {
            let _ = writeln!(
                out,
                "  subgraph sub{}[{}]",
                mermaid_word(&sub.id),
                mermaid_quote(&subtopology_title(sub))
            );
            for node in &sub.nodes {
                let id = id_of(&format!("node:{}", node.name));
                let label = mermaid_quote(&node.name);
                let shape = match node.kind {
                    NodeKind::Source => format!("[/{label}/]"),
                    NodeKind::Processor => format!("[{label}]"),
                    NodeKind::Sink => format!("[\\{label}\\]"),
                };
                let _ = writeln!(out, "    {id}{shape}");
            }
            out.push_str("  end\n");
        }
        for topic in &topics {
            let id = id_of(&format!("topic:{topic}"));
            let _ = writeln!(out, "  {id}([{}])", mermaid_quote(topic));
        }
        for store in &stores {
            let id = id_of(&format!("store:{store}"));
            let _ = writeln!(out, "  {id}[({})]", mermaid_quote(store));
        }
        for (from, to, style) in self.edges() {
            let arrow = match style {
                Edge::Flow => "-->",
                Edge::Store => "-.-",
            };
            let _ = writeln!(out, "  {} {arrow} {}", id_of(&from), id_of(&to));
        }
        out
    }

    /// Every topic and store named, each once, in order of appearance.
    fn topics_and_stores(&self) -> (Vec<String>, Vec<String>) {
        let (mut topics, mut stores) = (Vec::new(), Vec::new());
        for node in self.subtopologies.iter().flat_map(|s| &s.nodes) {
            for t in &node.topics {
                if !topics.contains(t) {
                    topics.push(t.clone());
                }
            }
            for s in &node.stores {
                if !stores.contains(s) {
                    stores.push(s.clone());
                }
            }
        }
        (topics, stores)
    }

    /// The edges: topic to source, node to node, sink to topic, processor to store.
    fn edges(&self) -> Vec<(String, String, Edge)> {
        let mut edges = Vec::new();
        for node in self.subtopologies.iter().flat_map(|s| &s.nodes) {
            let me = format!("node:{}", node.name);
            for topic in &node.topics {
                let topic = format!("topic:{topic}");
                match node.kind {
                    NodeKind::Source => edges.push((topic, me.clone(), Edge::Flow)),
                    _ => edges.push((me.clone(), topic, Edge::Flow)),
                }
            }
            for next in &node.successors {
                edges.push((me.clone(), format!("node:{next}"), Edge::Flow));
            }
            for store in &node.stores {
                edges.push((me.clone(), format!("store:{store}"), Edge::Store));
            }
        }
        edges
    }
}

#[derive(Debug, Clone, Copy)]
enum Edge {
    Flow,
    Store,
}

fn subtopology_title(sub: &Subtopology) -> String {
    if sub.global {
        format!("Sub-topology {} (global store)", sub.id)
    } else {
        format!("Sub-topology {}", sub.id)
    }
}

/// `a, b` (or `none`) as names.
fn node_names(list: &str) -> Vec<String> {
    let list = list.trim();
    if list == "none" || list.is_empty() {
        return Vec::new();
    }
    list.split(", ").map(|s| s.trim().to_owned()).collect()
}

/// `[a, b]` as names; anything else (a source's pattern) as one entry.
fn bracketed(list: &str) -> Vec<String> {
    match list.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
        Some("") => Vec::new(),
        Some(inner) => inner.split(", ").map(|s| s.trim().to_owned()).collect(),
        None => vec![list.to_owned()],
    }
}

/// A DOT string literal.
fn dot_quote(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A Mermaid label: quoted, with quotes as entities.
fn mermaid_quote(text: &str) -> String {
    format!("\"{}\"", text.replace('"', "#quot;"))
}

/// A subtopology id as part of a Mermaid id.
fn mermaid_word(id: &str) -> String {
    id.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Kafka Streams 4.4's text for a topology with a global store between two subtopologies,
    /// a pattern source and a sink with a topic extractor (`InternalTopologyBuilder`'s
    /// `toString`s).
    pub(super) const JAVA: &str = "Topologies:
   Sub-topology: 0
    Source: orders-source (topics: [orders])
      --> enrich
    Processor: enrich (stores: [])
      --> to-shipments
      <-- orders-source
    Sink: to-shipments (topic: shipments)
      <-- enrich
  Sub-topology: 1 for global store (will not generate tasks)
    Source: customers-source (topics: [customers])
      --> customers-updater
    Processor: customers-updater (stores: [customers-store])
      --> none
      <-- customers-source
   Sub-topology: 2
    Source: audit-source (topics: audit-.*)
      --> route
    Processor: route (stores: [seen, \"quoted\"])
      --> dynamic-sink
      <-- audit-source
    Sink: dynamic-sink (extractor class: com.example.Router@1b2c3d)
      <-- route

";

    #[test]
    fn a_kafka_streams_description_is_read_node_by_node() {
        let d = Description::parse(JAVA).unwrap();
        let ids: Vec<(&str, bool, usize)> = d
            .subtopologies
            .iter()
            .map(|s| (s.id.as_str(), s.global, s.nodes.len()))
            .collect();
        assert_eq!(ids, [("0", false, 3), ("1", true, 2), ("2", false, 3)]);
        let route = &d.subtopologies[2].nodes[1];
        assert_eq!(route.kind, NodeKind::Processor);
        assert_eq!(route.stores, ["seen", "\"quoted\""]);
        assert_eq!(route.successors, ["dynamic-sink"]);
        assert_eq!(d.subtopologies[2].nodes[0].topics, ["audit-.*"]);
        assert_eq!(
            d.subtopologies[2].nodes[2].topics,
            ["(chosen by com.example.Router@1b2c3d)"]
        );
        assert!(d.subtopologies[1].nodes[1].successors.is_empty());
    }

    #[test]
    fn dot_has_a_box_per_subtopology_and_every_edge() {
        let dot = Description::parse(JAVA).unwrap().to_dot();
        assert!(dot.starts_with("digraph topology {"));
        assert!(
            dot.contains("subgraph \"cluster_1\" {\n    label=\"Sub-topology 1 (global store)\";")
        );
        for edge in [
            "\"topic:orders\" -> \"node:orders-source\";",
            "\"node:orders-source\" -> \"node:enrich\";",
            "\"node:to-shipments\" -> \"topic:shipments\";",
            "\"node:customers-updater\" -> \"store:customers-store\" [style=dashed, arrowhead=none];",
            "\"node:route\" -> \"store:\\\"quoted\\\"\" [style=dashed, arrowhead=none];",
        ] {
            assert!(dot.contains(edge), "{edge} missing from\n{dot}");
        }
        assert!(dot.trim_end().ends_with('}'));
    }

    #[test]
    fn mermaid_uses_plain_ids_and_quoted_labels() {
        let mermaid = Description::parse(JAVA).unwrap().to_mermaid();
        assert!(mermaid.starts_with("flowchart LR\n  subgraph sub0[\"Sub-topology 0\"]\n"));
        assert!(mermaid.contains("[/\"orders-source\"/]"));
        assert!(mermaid.contains("[(\"#quot;quoted#quot;\")]"));
        assert!(mermaid.contains("-.-"));
        // Every edge joins two declared ids.
        let declared: Vec<&str> = mermaid
            .lines()
            .filter(|l| !l.contains("--") && !l.contains("-.-"))
            .filter_map(|l| l.trim().split(['[', '(']).next())
            .collect();
        for edge in mermaid
            .lines()
            .filter(|l| l.contains("-->") || l.contains("-.-"))
        {
            let ends: Vec<&str> = edge.split_whitespace().collect();
            assert!(
                declared.contains(&ends[0]) && declared.contains(&ends[2]),
                "{edge}"
            );
        }
    }

    #[test]
    fn what_follows_the_nodes_is_not_read() {
        let ours = "Topology: WordCount (application id word-count)
Topologies:
   Sub-topology: 0
    Source: src (topics: [sentences])
      --> none
    Store: counts (key-value; changelog: word-count-counts-changelog)

Declared to the coordinator:
   Sub-topology: 0
    Source topics: [sentences]
";
        let d = Description::parse(ours).unwrap();
        assert_eq!(d.subtopologies.len(), 1);
        assert_eq!(d.subtopologies[0].nodes.len(), 1);
    }

    #[test]
    fn text_that_is_no_description_is_an_error() {
        assert_eq!(
            Description::parse("hello"),
            Err(DescriptionError::NoSubtopology)
        );
        let err = Description::parse("Topologies:\n   Sub-topology: 0\n      --> a\n").unwrap_err();
        assert!(matches!(err, DescriptionError::Unreadable { line: 3, .. }));
    }
}

//! Names: Kafka's rules for topic names, the names the topology derives (internal topics,
//! Kafka Streams style node names) and the Rust identifiers of the generated handles.

/// Kafka's longest topic name.
pub(crate) const MAX_TOPIC_LEN: usize = 249;

/// Why a topic name (or application id) is not legal in Kafka, if it is not.
pub(crate) fn invalid_name(name: &str) -> Option<String> {
    if name.is_empty() {
        return Some("it is empty".to_owned());
    }
    if name == "." || name == ".." {
        return Some(format!("`{name}` is reserved"));
    }
    if let Some(c) = illegal_char(name) {
        return Some(format!(
            "it contains {c:?}; Kafka allows ASCII letters, digits, '.', '_' and '-'"
        ));
    }
    if name.len() > MAX_TOPIC_LEN {
        return Some(format!(
            "it is {} characters long; Kafka allows {MAX_TOPIC_LEN}",
            name.len()
        ));
    }
    None
}

/// The first character Kafka does not allow in a topic name (store and repartition names
/// become parts of internal topic names, so the same rule applies to them).
pub(crate) fn illegal_char(name: &str) -> Option<char> {
    name.chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-')))
}

/// An internal topic: `<application id>-<name>-<suffix>` (`repartition` or `changelog`), as
/// Kafka Streams names them.
pub(crate) fn internal_topic(app_id: &str, name: &str, suffix: &str) -> String {
    format!("{app_id}-{name}-{suffix}")
}

/// A Kafka Streams style node name: `KSTREAM-FILTER-0000000001`.
pub(crate) fn node_name(kind: &str, id: usize) -> String {
    format!("{kind}-{id:010}")
}

/// The source and sink nodes of a repartition topic named after `name`.
pub(crate) fn repartition_node_names(name: &str) -> (String, String) {
    (
        format!("{name}-repartition-sink"),
        format!("{name}-repartition-source"),
    )
}

/// `word-counts` → `word_counts`.
pub(crate) fn snake(name: &str) -> String {
    let mut out: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect();
    if out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, '_');
    }
    out
}

/// `word-counts` → `WORD_COUNTS`.
pub(crate) fn screaming(name: &str) -> String {
    snake(name).to_ascii_uppercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn topic_names() {
        assert_eq!(invalid_name("orders"), None);
        assert!(invalid_name("a b").is_some());
        assert!(invalid_name("..").is_some());
        assert!(invalid_name(&"x".repeat(250)).is_some());
        assert_eq!(invalid_name(&"x".repeat(249)), None);
    }

    #[test]
    fn derived_names() {
        assert_eq!(internal_topic("app", "c", "changelog"), "app-c-changelog");
        assert_eq!(node_name("KSTREAM-FILTER", 1), "KSTREAM-FILTER-0000000001");
    }

    #[test]
    fn handle_names() {
        assert_eq!(screaming("word-counts"), "WORD_COUNTS");
        assert_eq!(snake("seen.ids"), "seen_ids");
        assert_eq!(snake("1st"), "_1st");
    }
}

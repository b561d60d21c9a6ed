//! The names of Kafka's topic configs, to refuse an internal topic config the broker would
//! refuse (the coordinator would fail to create the topic, and the group would wait) before the
//! application starts.

/// Every topic config a Kafka 4.4 broker knows, sorted.
pub(crate) const TOPIC_CONFIG_NAMES: &[&str] = &include!("topic_config_names.in");

/// Whether `name` is a topic config a broker knows.
pub(crate) fn is_topic_config(name: &str) -> bool {
    TOPIC_CONFIG_NAMES.binary_search(&name).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_sorted_so_lookups_find_them() {
        assert!(TOPIC_CONFIG_NAMES.is_sorted());
        assert!(is_topic_config("min.insync.replicas"));
        assert!(is_topic_config("cleanup.policy"));
        assert!(!is_topic_config("min.insync.replica"));
        assert!(!is_topic_config("topic.min.insync.replicas"));
    }
}

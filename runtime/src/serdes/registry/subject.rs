//! Subject names: where a schema is registered for a topic's keys or values.

use crate::serdes::Role;

/// How the subject of a topic's keys or values is named (Confluent's
/// `key.subject.name.strategy` / `value.subject.name.strategy`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SubjectNameStrategy {
    /// `<topic>-key` / `<topic>-value` (`TopicNameStrategy`, the default).
    #[default]
    Topic,
    /// The record's full name, `<namespace>.<name>` (`RecordNameStrategy`): one subject per
    /// record type, whatever the topic.
    Record,
    /// `<topic>-<namespace>.<name>` (`TopicRecordNameStrategy`).
    TopicRecord,
}

impl SubjectNameStrategy {
    /// The subject of `role` on `topic` for a record named `record` (its full name; `None` for
    /// a schema that is not a named type, which only [`Topic`](Self::Topic) can name).
    pub fn subject(self, topic: &str, role: Role, record: Option<&str>) -> Result<String, String> {
        match (self, record) {
            (SubjectNameStrategy::Topic, _) => Ok(format!("{topic}-{role}")),
            (SubjectNameStrategy::Record, Some(record)) => Ok(record.to_owned()),
            (SubjectNameStrategy::TopicRecord, Some(record)) => Ok(format!("{topic}-{record}")),
            (_, None) => Err(format!(
                "the {self:?} subject name strategy needs a named schema (record, enum or fixed) for the {role}s of {topic}"
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        let s = |st: SubjectNameStrategy, r| st.subject("orders", r, Some("shop.Order"));
        assert_eq!(
            s(SubjectNameStrategy::Topic, Role::Value).as_deref(),
            Ok("orders-value")
        );
        assert_eq!(
            s(SubjectNameStrategy::Topic, Role::Key).as_deref(),
            Ok("orders-key")
        );
        assert_eq!(
            s(SubjectNameStrategy::Record, Role::Value).as_deref(),
            Ok("shop.Order")
        );
        assert_eq!(
            s(SubjectNameStrategy::TopicRecord, Role::Value).as_deref(),
            Ok("orders-shop.Order")
        );
        assert!(
            SubjectNameStrategy::Record
                .subject("t", Role::Value, None)
                .is_err()
        );
    }
}

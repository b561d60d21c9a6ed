//! Session windows: user activity split into sessions by 10 ms of inactivity (tiny numbers, so
//! the tests read like Kafka Streams' own), counted, aggregated with a merger, and counted once
//! per closed session with `suppress_until_window_closes()`.
//!
//! A record within the gap of one or more sessions of its key merges them: the merged-away
//! sessions are deleted and a tombstone is written for each old session key. Keys on the wire
//! are Kafka Streams' `SessionWindowedSerializer` layout (key, end, start), so a Java consumer
//! with `SessionWindowedDeserializer` reads them.

use dekaf_streams::prelude::*;

topology! {
    /// Sessions of clicks. Input: key = user, value = page.
    pub Sessions = "sessions" {
        let clicks = stream("clicks", Utf8, Utf8);
        clicks
            .group_by_key()
            .windowed_by(session(10))
            .count("clicks-per-session")
            .to_stream()
            .to("session-clicks", SessionWindowed::<Utf8>, I64);
        clicks
            .group_by_key()
            .windowed_by(session(10).grace(5))
            .aggregate(
                "pages-per-session",
                String::new,
                |_user, page, pages: String| pages + &page,
                |_user, a: String, b: String| a + &b,
                Utf8,
            )
            .to_stream()
            .to("session-pages", SessionWindowed::<Utf8>, Utf8);
        clicks
            .group_by_key()
            .windowed_by(session(10).grace(5))
            .reduce("longest-page", |a: String, b: String| if b.len() > a.len() { b } else { a })
            .to_stream()
            .to("session-longest-page", SessionWindowed::<Utf8>, Utf8);
        clicks
            .group_by_key()
            .windowed_by(session(10).grace(5))
            .count("final-clicks-per-session")
            .suppress_until_window_closes()
            .to_stream()
            .to("session-clicks-final", SessionWindowed::<Utf8>, I64);
    }
}

//! Sliding windows and final results of time windows: events per key in every window of
//! 10 ms (both ends inclusive) that holds records, as Kafka Streams' `SlidingWindows`; and the
//! final count of each tumbling window, once, when it closes (`suppress_until_window_closes()`).

use dekaf_streams::prelude::*;

topology! {
    /// Events per key. Input: key = key, value = anything.
    pub Sliding = "sliding" {
        let events = stream("events", Utf8, Utf8);
        events
            .group_by_key()
            .windowed_by(sliding(10))
            .count("sliding-counts")
            .to_stream()
            .to("sliding-count", TimeWindowed::<Utf8>, I64);
        events
            .group_by_key()
            .windowed_by(sliding(10).grace(5))
            .reduce("sliding-concat", |a: String, b: String| a + &b)
            .to_stream()
            .to("sliding-concat", TimeWindowed::<Utf8>, Utf8);
        events
            .group_by_key()
            .windowed_by(sliding(10).grace(5))
            .count("sliding-final-counts")
            .suppress_until_window_closes()
            .to_stream()
            .to("sliding-final", TimeWindowed::<Utf8>, I64);
        events
            .group_by_key()
            .windowed_by(tumbling(10).grace(5))
            .count("tumbling-counts")
            .suppress_until_window_closes("tumbling-final")
            .to_stream()
            .to("tumbling-final", TimeWindowed::<Utf8>, I64);
    }
}

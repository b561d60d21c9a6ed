// A `to(..)` of a topic the topology reads is a loop: it compiles with a warning naming the
// loop (`use of deprecated constant topic_loop: loop: this topology writes to `events` ...`);
// `#[allow(deprecated)]` on the enclosing module silences it.
#![deny(warnings)]

#[allow(deprecated)]
mod looping {
    use dekaf_streams::prelude::*;
    topology! {
        pub T = "app" {
            let events = stream("events", Utf8, Utf8);
            events.filter(|_k, v| v.len() < 3).map_values(|v: String| v + "x").to("events", Utf8, Utf8);
            events.to("out", Utf8, Utf8);
        }
    }
}

fn main() {
    use dekaf_streams::prelude::*;
    assert_eq!(<looping::T as Topology>::INFO.subtopologies[0].sink_topics, ["events", "out"]);
}

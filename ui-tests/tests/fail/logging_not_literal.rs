use dekaf_streams::prelude::*;
const SEGMENT: &str = "600000";
topology! {
    pub T = "app" {
        stream("clicks", Utf8, Utf8)
            .group_by_key()
            .count("counts")
            .with_logging_enabled([("segment.ms", SEGMENT)])
            .to_stream()
            .to("out", Utf8, I64);
    }
}

fn main() {}

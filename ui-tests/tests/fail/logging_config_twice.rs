use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        stream("clicks", Utf8, Utf8)
            .group_by_key()
            .count("counts")
            .with_logging_enabled([("segment.ms", "600000"), ("segment.ms", "60000")])
            .to_stream()
            .to("out", Utf8, I64);
    }
}

fn main() {}

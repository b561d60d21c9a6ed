use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        stream("clicks", Utf8, Utf8)
            .group_by_key()
            .count("counts")
            .with_logging_enabled([("cleanup.policy", "compacted")])
            .to_stream()
            .to("out", Utf8, I64);
        stream("views", Utf8, Utf8)
            .group_by_key()
            .count("views")
            .with_logging_enabled([("retention.ms", "7d")])
            .to_stream()
            .to("out2", Utf8, I64);
    }
}

fn main() {}

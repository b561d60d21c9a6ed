use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        stream("in", Utf8, Utf8)
            .group_by_key()
            .count("counts")
            .suppress_until_time_limit(Duration::from_secs(10), max_records(10).emit_early())
            .to_stream()
            .to("out", Utf8, I64);
    }
}

fn main() {}

use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        stream("in", Utf8, Utf8)
            .group_by_key()
            .count("counts")
            .suppress_until_time_limit("settled")
            .to_stream()
            .to("out", Utf8, I64);
    }
}

fn main() {}

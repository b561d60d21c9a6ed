use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        stream("in", Utf8, Utf8)
            .group_by_key()
            .count("counts")
            .with_retention(Duration::from_hours(1))
            .to_stream()
            .to("out", Utf8, I64);
    }
}

fn main() {}

use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        stream("in", Utf8, Utf8)
            .group_by_key()
            .windowed_by(session(Duration::from_secs(60)))
            .count("counts")
            .suppress_until_time_limit(Duration::from_secs(10))
            .to_stream()
            .to("out", SessionWindowed::<Utf8>, I64);
    }
}

fn main() {}

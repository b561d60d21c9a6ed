use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        stream("in", Utf8, Utf8)
            .group_by_key()
            .windowed_by(tumbling(Duration::from_secs(60)).grace(Duration::from_secs(30)))
            .count("per-minute")
            .with_retention(Duration::from_secs(60))
            .to_stream()
            .to("out", TimeWindowed::<Utf8>, I64);
    }
}

fn main() {}

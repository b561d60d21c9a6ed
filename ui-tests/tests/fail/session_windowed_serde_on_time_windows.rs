use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        stream("in", Utf8, Utf8)
            .group_by_key()
            .windowed_by(tumbling(Duration::from_secs(60)))
            .count("counts")
            .to_stream()
            .to("out", SessionWindowed::<Utf8>, I64);
    }
}

fn main() {}

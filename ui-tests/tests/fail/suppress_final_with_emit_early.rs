use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        stream("in", Utf8, Utf8)
            .group_by_key()
            .windowed_by(tumbling(Duration::from_secs(60)))
            .count("counts")
            .suppress_until_window_closes(max_records(1000))
            .to_stream()
            .to("out", TimeWindowed::<Utf8>, I64);
    }
}

fn main() {}

use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        stream("in", Utf8, Utf8)
            .group_by_key()
            .windowed_by(session(Duration::from_mins(5)))
            .count("sessions")
            .to_stream()
            .to("out", Utf8, I64);
    }
}

fn main() {}

use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        stream("in", Utf8, Utf8)
            .group_by_key()
            .windowed_by(session(Duration::from_secs(0)))
            .count("sessions");
    }
}

fn main() {}

use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        stream("in", Utf8, Utf8)
            .group_by_key()
            .windowed_by(hopping(Duration::from_secs(60), Duration::from_secs(90)))
            .count("counts");
    }
}

fn main() {}

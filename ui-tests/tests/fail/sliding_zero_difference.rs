use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        stream("in", Utf8, Utf8)
            .group_by_key()
            .windowed_by(sliding(0).grace(Duration::from_secs(5)))
            .count("sliding");
    }
}

fn main() {}

use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        stream("in", Utf8, Utf8)
            .select_key(|_, v| v.clone())
            .repartition("words", Utf8, Utf8)
            .group_by(|_, v| v.clone(), Utf8, Utf8)
            .count("words");
    }
}

fn main() {}

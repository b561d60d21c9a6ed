use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        stream("in", Utf8, Utf8)
            .group_by_key()
            .filter(|_, v| !v.is_empty())
            .count("counts");
    }
}

fn main() {}

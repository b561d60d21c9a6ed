use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        stream("in", Utf8, Utf8)
            .select_key(|_, v| v.len() as i64)
            .group_by_key()
            .count("by-length");
    }
}

fn main() {}

use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        stream("in", Utf8, Utf8).group_by_key().count("word counts");
    }
}

fn main() {}

use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        let counts = stream("in", Utf8, Utf8).group_by_key().count("counts");
        counts.to_stream().to("app-counts-changelog", Utf8, I64);
    }
}

fn main() {}

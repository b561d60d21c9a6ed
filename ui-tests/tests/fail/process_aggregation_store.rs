use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        let counts = stream("in", Utf8, Utf8).group_by_key().count("counts");
        stream("other", Utf8, Utf8)
            .process(["counts"], |ctx, k, v| Ok(Some((k, v))))
            .to("out", Utf8, Utf8);
    }
}

fn main() {}

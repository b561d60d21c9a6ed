use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        stream("in", Utf8, Utf8)
            .process(["seen"], |ctx, k, v| Ok(Some((k, v))))
            .to("out", Utf8, Utf8);
    }
}

fn main() {}

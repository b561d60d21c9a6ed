use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        stream("in", Utf8, Utf8).with_caching_disabled().to("out", Utf8, Utf8);
    }
}

fn main() {}

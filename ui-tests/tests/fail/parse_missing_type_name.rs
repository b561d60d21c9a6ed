use dekaf_streams::prelude::*;
topology! {
    pub = "app" {
        stream("in", Utf8, Utf8).to("out", Utf8, Utf8);
    }
}

fn main() {}

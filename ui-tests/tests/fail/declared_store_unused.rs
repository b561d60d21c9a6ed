use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        store("seen", Utf8, I64);
        stream("in", Utf8, Utf8).to("out", Utf8, Utf8);
    }
}

fn main() {}

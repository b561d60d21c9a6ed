use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        stream("in", Utf8, Utf8).to("a", Utf8, Utf8);
        stream("in", Utf8, Utf8).to("b", Utf8, Utf8);
    }
}

fn main() {}

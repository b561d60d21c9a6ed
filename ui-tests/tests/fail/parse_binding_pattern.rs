use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        let (a, b) = stream("in", Utf8, Utf8);
        a.to("out", Utf8, Utf8);
    }
}

fn main() {}

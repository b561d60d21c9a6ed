use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        let s = stream("in", Utf8, Utf8) else { return };
        s.to("out", Utf8, Utf8);
    }
}

fn main() {}

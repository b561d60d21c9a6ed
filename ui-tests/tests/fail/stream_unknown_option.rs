use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        stream("in", Utf8, Utf8, timestamps(WallClock)).to("out", Utf8, Utf8);
    }
}

fn main() {}

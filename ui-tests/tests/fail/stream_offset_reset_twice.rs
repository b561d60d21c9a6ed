use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        stream("in", Utf8, Utf8, offset_reset(latest), offset_reset(earliest)).to("out", Utf8, Utf8);
    }
}

fn main() {}

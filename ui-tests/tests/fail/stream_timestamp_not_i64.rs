use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        stream("in", Utf8, Utf8, timestamp(|_key, value: &String, _ts, _pt| value.clone())).to("out", Utf8, Utf8);
    }
}

fn main() {}

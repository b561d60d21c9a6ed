use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        stream("in", Utf8, I64, timestamp(|_key: &String, value: &String, _ts, _pt| value.len() as i64)).to("out", Utf8, I64);
    }
}

fn main() {}

use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        let s = stream("in", Utf8, I64);
        s.to("out", Utf8, I64);
        s.map_values(|v| v.to_string()).to("out", Utf8, Utf8);
    }
}

fn main() {}

use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        let t = table("t", Utf8, Utf8);
        stream("in", Utf8, Utf8)
            .join(t, |_key: &String, v: String, _t: String, _extra: u8| v)
            .to("out", Utf8, Utf8);
    }
}

fn main() {}

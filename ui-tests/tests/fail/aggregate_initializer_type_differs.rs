use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        stream("in", Utf8, Utf8)
            .group_by_key()
            .aggregate("lengths", || String::new(), |_, v, a: i64| a + v.len() as i64, I64)
            .to_stream()
            .to("out", Utf8, I64);
    }
}

fn main() {}

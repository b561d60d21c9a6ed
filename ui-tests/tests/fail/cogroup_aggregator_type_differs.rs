use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        let views = stream("views", Utf8, Utf8).group_by_key();
        stream("clicks", Utf8, Utf8)
            .group_by_key()
            .cogroup(|_k, _v: String, a: i64| a + 1)
            .cogroup(views, |_k, v: String, _a: i64| v)
            .aggregate("activity", || 0i64, I64)
            .to_stream()
            .to("out", Utf8, I64);
    }
}

fn main() {}

use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        let views = stream("views", Utf8, Utf8).group_by_key();
        stream("clicks", Utf8, Utf8)
            .group_by_key()
            .cogroup(|_k, v: String, a: String| a + &v)
            .cogroup(views, |_k, v: String, a: String| a + &v)
            .count("activity")
            .to_stream()
            .to("out", Utf8, I64);
    }
}

fn main() {}

use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        let views = stream("views", Utf8, Utf8).group_by_key();
        stream("clicks", Utf8, Utf8)
            .group_by_key()
            .cogroup(|_k, v: String, a: String| a + &v)
            .cogroup(views, |_k, v: String, a: String| a + &v)
            .aggregate("activity", String::new, |_k, v: String, a: String| a + &v, Utf8)
            .to_stream()
            .to("out", Utf8, Utf8);
    }
}

fn main() {}

use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        let views = stream("views", Utf8, Utf8).group_by_key();
        stream("clicks", Utf8, Utf8)
            .group_by_key()
            .cogroup(|_k, v: String, a: String| a + &v)
            .cogroup(views, |_k, v: String, a: String| a + &v)
            .windowed_by(session(Duration::from_mins(5)))
            .aggregate("activity", String::new, Utf8)
            .to_stream()
            .to("out", SessionWindowed::<Utf8>, Utf8);
    }
}

fn main() {}

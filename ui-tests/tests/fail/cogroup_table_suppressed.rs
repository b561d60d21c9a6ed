use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        let views = stream("views", Utf8, Utf8).group_by_key();
        stream("clicks", Utf8, Utf8)
            .group_by_key()
            .cogroup(|_k, v: String, a: String| a + &v)
            .cogroup(views, |_k, v: String, a: String| a + &v)
            .windowed_by(tumbling(Duration::from_mins(1)))
            .aggregate("activity", String::new, Utf8)
            .suppress_until_window_closes()
            .to_stream()
            .to("out", TimeWindowed::<Utf8>, Utf8);
    }
}

fn main() {}

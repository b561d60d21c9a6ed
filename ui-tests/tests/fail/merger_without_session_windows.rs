use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        stream("in", Utf8, Utf8)
            .group_by_key()
            .windowed_by(tumbling(Duration::from_mins(5)))
            .aggregate("pages", String::new, |_k, v, a: String| a + &v, |_k, a: String, b: String| a + &b, Utf8);
    }
}

fn main() {}

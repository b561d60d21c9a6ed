use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        stream("in", Utf8, Utf8)
            .group_by_key()
            .windowed_by(session(Duration::from_mins(5)))
            .aggregate("pages", String::new, |_k, v, a: String| a + &v, Utf8);
    }
}

fn main() {}

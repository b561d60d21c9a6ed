use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        stream("clicks", Utf8, Utf8)
            .cogroup(|_k, v: String, a: String| a + &v)
            .aggregate("activity", String::new, Utf8)
            .to_stream()
            .to("out", Utf8, Utf8);
    }
}

fn main() {}

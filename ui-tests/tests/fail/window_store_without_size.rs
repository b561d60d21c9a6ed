use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        window_store("recent", Utf8, I64, retention(Duration::from_secs(30)));
        stream("in", Utf8, Utf8)
            .process(["recent"], |_ctx, k: String, v: String| Ok(Some((k, v))))
            .to("out", Utf8, Utf8);
    }
}

fn main() {}

use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        window_store("recent", Utf8, I64, size(Duration::from_secs(60)), retention(Duration::from_secs(600)), size(Duration::from_secs(60)));
        stream("in", Utf8, Utf8)
            .process(["recent"], |_ctx, k: String, v: String| Ok(Some((k, v))))
            .to("out", Utf8, Utf8);
    }
}

fn main() {}

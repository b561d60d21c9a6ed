use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        session_store("visits", Utf8, I64, retention(Duration::from_secs(300)), size(Duration::from_secs(60)));
        stream("in", Utf8, Utf8)
            .process(["visits"], |_ctx, k: String, v: String| Ok(Some((k, v))))
            .to("out", Utf8, Utf8);
    }
}

fn main() {}

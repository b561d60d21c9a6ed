use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        window_store("recent", Utf8, I64, size(Duration::from_secs(60)), retention(Duration::from_secs(600)))
            .with_logging_disabled()
            .with_logging_enabled([("segment.ms", "600000")]);
        stream("in", Utf8, Utf8)
            .process(["recent"], |ctx, k: String, v: String| {
                ctx.recent().put(&k, &1, 0)?;
                Ok(Some((k, v)))
            })
            .to("out", Utf8, Utf8);
    }
}

fn main() {}

use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        session_store("visits", Utf8, I64, retention(Duration::from_secs(300)));
        stream("in", Utf8, Utf8)
            .process(["visits"], |ctx, k: String, v: String| {
                // A session store is put with a session's start and end, not a window start.
                ctx.visits().put(&k, &1, 0)?;
                Ok(Some((k, v)))
            })
            .to("out", Utf8, Utf8);
    }
}

fn main() {}

use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        store("seen", Utf8, I64).to("out", Utf8, I64);
        stream("in", Utf8, Utf8)
            .process(["seen"], |ctx, k: String, v: String| {
                ctx.seen().put(&k, &1)?;
                Ok(Some((k, v)))
            })
            .to("out2", Utf8, Utf8);
    }
}

fn main() {}

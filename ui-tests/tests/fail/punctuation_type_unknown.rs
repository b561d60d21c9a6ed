use dekaf_streams::prelude::*;

topology! {
    pub Flush = "flush" {
        store("pending", Utf8, Utf8);
        stream("in", Utf8, Utf8)
            .process(["pending"], |ctx, key, value| {
                ctx.pending().put(&key, &value)?;
                Ok(None::<(String, String)>)
            }, schedule(1000, EventTime, |ctx, _now| {
                Ok(ctx.pending().all()?)
            }))
            .to("out", Utf8, Utf8);
    }
}

fn main() {}

use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        stream("in", Utf8, Utf8)
            .process_values([], |_ctx, key: &String, value: String| Ok(Some((key.clone(), value))))
            .to("out", Utf8, Utf8);
    }
}

fn main() {}

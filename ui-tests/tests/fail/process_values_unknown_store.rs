use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        store("seen", Utf8, I64);
        stream("in", Utf8, Utf8)
            .process_values(["sen"], |_ctx, _key: &String, value: String| Ok(Some(value)))
            .to("out", Utf8, Utf8);
    }
}

fn main() {}

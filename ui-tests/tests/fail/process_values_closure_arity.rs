use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        stream("in", Utf8, Utf8)
            .process_values([], |key: &String, value: String| Ok(Some(value)))
            .to("out", Utf8, Utf8);
    }
}

fn main() {}

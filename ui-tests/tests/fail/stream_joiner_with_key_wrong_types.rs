use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        let r = stream("r", Utf8, Utf8);
        stream("l", Utf8, Utf8)
            // The key of a stream-stream joiner is a reference, like the values.
            .join(r, |key: String, l: &String, r: &String| format!("{key}{l}{r}"), join_window(10))
            .to("out", Utf8, Utf8);
    }
}

fn main() {}

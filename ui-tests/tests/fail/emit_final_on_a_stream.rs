use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        stream("in", Utf8, Utf8)
            .suppress_until_window_closes()
            .to("out", Utf8, Utf8);
    }
}

fn main() {}

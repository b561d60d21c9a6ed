use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        stream("clicks", Utf8, Utf8)
            .with_logging_disabled()
            .to("out", Utf8, Utf8);
    }
}

fn main() {}

// A stream has no store to version.
use dekaf_streams::prelude::*;

topology! {
    pub Prices = "versioned-stream" {
        stream("prices", Utf8, I64)
            .versioned(Duration::from_secs(60))
            .to("out", Utf8, I64);
    }
}

fn main() {}

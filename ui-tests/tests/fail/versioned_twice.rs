// One history retention per store.
use dekaf_streams::prelude::*;

topology! {
    pub Prices = "versioned-twice" {
        table("prices", Utf8, I64)
            .versioned(Duration::from_secs(60))
            .versioned(Duration::from_secs(600))
            .to_stream()
            .to("out", Utf8, Nullable::<I64>);
    }
}

fn main() {}

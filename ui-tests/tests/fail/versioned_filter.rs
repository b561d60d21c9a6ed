// A filter's table has no store of its own to version: version the table it reads.
use dekaf_streams::prelude::*;

topology! {
    pub Prices = "versioned-filter" {
        table("prices", Utf8, I64)
            .filter(|_k: &String, v: &i64| *v > 0)
            .versioned(Duration::from_secs(60))
            .to_stream()
            .to("out", Utf8, Nullable::<I64>);
    }
}

fn main() {}

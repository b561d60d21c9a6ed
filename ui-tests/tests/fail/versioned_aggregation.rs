// `versioned(..)` applies to a table read from a topic or made by `to_table(..)`, not to an
// aggregation's table.
use dekaf_streams::prelude::*;

topology! {
    pub Counts = "versioned-aggregation" {
        stream("clicks", Utf8, Utf8)
            .group_by_key()
            .count("clicks-per-user")
            .versioned(Duration::from_secs(60))
            .to_stream()
            .to("counts", Utf8, I64);
    }
}

fn main() {}

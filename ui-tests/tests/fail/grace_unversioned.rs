// A grace period needs a versioned table.
use dekaf_streams::prelude::*;

topology! {
    pub Totals = "grace-unversioned" {
        let prices = table("prices", Utf8, I64);
        stream("orders", Utf8, I64)
            .join(prices, |q: i64, p: i64| q * p, grace(Duration::from_secs(1)))
            .to("totals", Utf8, I64);
    }
}

fn main() {}

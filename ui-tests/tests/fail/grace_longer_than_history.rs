// The table must keep its history at least as long as the grace.
use dekaf_streams::prelude::*;

topology! {
    pub Totals = "grace-longer" {
        let prices = table("prices", Utf8, I64).versioned(Duration::from_secs(1));
        stream("orders", Utf8, I64)
            .join(prices, |q: i64, p: i64| q * p, grace(Duration::from_secs(5)))
            .to("totals", Utf8, I64);
    }
}

fn main() {}

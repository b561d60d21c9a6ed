// The buffer stores the stream's values: their serde must be known.
use dekaf_streams::prelude::*;

topology! {
    pub Totals = "grace-value-unknown" {
        let prices = table("prices", Utf8, I64).versioned(Duration::from_secs(10));
        stream("orders", Utf8, Utf8)
            .map_values(|v: String| v.len() as i64)
            .join(prices, |q: i64, p: i64| q * p, grace(Duration::from_secs(5)))
            .to("totals", Utf8, I64);
    }
}

fn main() {}

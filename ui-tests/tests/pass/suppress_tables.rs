use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        table("prices", Utf8, Utf8)
            .filter(|_k, v| !v.is_empty())
            .suppress_until_time_limit(Duration::from_secs(10), max_records(1000), "settled")
            .filter(|_k, v| v != "0")
            .to_stream()
            .to("settled-prices", Utf8, Nullable::<Utf8>);
    }
}

fn main() {}

use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        table("prices", Utf8, Utf8)
            .map_values(|v: String| v.len() as i64)
            .suppress_until_time_limit(Duration::from_secs(10))
            .to_stream()
            .to("out", Utf8, Nullable::<I64>);
    }
}

fn main() {}

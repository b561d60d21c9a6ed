use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        let rates = table("rates", Utf8, Utf8).suppress_until_time_limit(Duration::from_secs(10));
        table("prices", Utf8, Utf8)
            .join(rates, |p: &String, r: &String| format!("{p}@{r}"))
            .to_stream()
            .to("out", Utf8, Nullable::<Utf8>);
    }
}

fn main() {}

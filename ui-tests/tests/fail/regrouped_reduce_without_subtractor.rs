use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        table("balances", Utf8, I64)
            .group_by(|account: &String, amount: i64| (account[..1].to_owned(), amount), Utf8, I64)
            .reduce("region-balance", |sum, v| sum + v)
            .to_stream()
            .to("out", Utf8, Nullable::<I64>);
    }
}

fn main() {}

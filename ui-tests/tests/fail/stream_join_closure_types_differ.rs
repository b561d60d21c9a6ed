use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        let payments = stream("payments", Utf8, I64);
        stream("orders", Utf8, Utf8)
            .left_join(
                payments,
                |order: &String, amount: &i64| format!("{order} {amount}"),
                join_window(Duration::from_secs(60)),
            )
            .to("out", Utf8, Utf8);
    }
}

fn main() {}

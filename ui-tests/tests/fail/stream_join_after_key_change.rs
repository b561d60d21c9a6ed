use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        let payments = stream("payments", Utf8, Utf8);
        stream("orders", Utf8, Utf8)
            .select_key(|_, v| v.clone())
            .join(payments, |o, p| format!("{o} {p}"), join_window(1000))
            .to("out", Utf8, Utf8);
    }
}

fn main() {}

use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        let payments = stream("payments", I64, Utf8);
        stream("orders", Utf8, Utf8)
            .join(payments, |o, p| format!("{o} {p}"), join_window(1000))
            .to("out", Utf8, Utf8);
    }
}

fn main() {}

use dekaf_streams::prelude::*;
#[derive(serde::Serialize, serde::Deserialize)]
struct OrderId;
#[derive(serde::Serialize, serde::Deserialize)]
struct PaymentId;
topology! {
    pub T = "app" {
        let payments = stream("payments", Json::<PaymentId>, Utf8);
        stream("orders", Json::<OrderId>, Utf8)
            .join(payments, |o, p| format!("{o} {p}"), join_window(1000))
            .to("out", Json::<OrderId>, Utf8);
    }
}

fn main() {}

use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        let orders = stream("orders", Utf8, Utf8);
        table("customers", Utf8, Utf8)
            .join(orders, |c, o| format!("{c} {o}"), join_window(1000))
            .to("out", Utf8, Utf8);
    }
}

fn main() {}

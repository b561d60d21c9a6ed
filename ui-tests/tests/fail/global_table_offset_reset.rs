use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        global_table("rates", Utf8, I64, "rates-store", offset_reset(latest));
        stream("orders", Utf8, I64).to("out", Utf8, I64);
    }
}

fn main() {}

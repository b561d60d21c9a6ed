use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        let _customers = table("customers", Utf8, Utf8);
        stream("orders", Utf8, Utf8)
            .join(customer, |o: &String, c: &String| format!("{o}/{c}"))
            .to("out", Utf8, Utf8);
    }
}

fn main() {}

use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        let customers = global_table("customers", Utf8, Utf8);
        customers.filter(|_k: &String, v: &String| !v.is_empty()).to("out", Utf8, Utf8);
    }
}

fn main() {}

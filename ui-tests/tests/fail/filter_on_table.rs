use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        table("customers", Utf8, Utf8).filter(|_, v| !v.is_empty());
    }
}

fn main() {}

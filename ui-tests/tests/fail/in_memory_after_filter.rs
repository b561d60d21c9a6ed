use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        table("customers", Utf8, Utf8)
            .filter(|_k: &String, v: &String| !v.is_empty())
            .in_memory()
            .to_stream()
            .to("out", Utf8, dekaf_streams::serdes::Nullable::<Utf8>);
    }
}

fn main() {}

use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        stream("clicks", Utf8, Utf8)
            .group_by_key()
            .count("counts")
            .in_memory()
            .in_memory()
            .to_stream()
            .to("out", Utf8, I64);
    }
}

fn main() {}

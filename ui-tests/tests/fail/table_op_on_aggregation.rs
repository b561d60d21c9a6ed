use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        stream("in", Utf8, Utf8)
            .group_by_key()
            .count("counts")
            .filter(|_, n| *n > 1)
            .to_stream()
            .to("out", Utf8, Nullable::<I64>);
    }
}

fn main() {}

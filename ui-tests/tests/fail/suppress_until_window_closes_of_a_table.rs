use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        table("prices", Utf8, Utf8)
            .suppress_until_window_closes()
            .to_stream()
            .to("out", Utf8, Nullable::<Utf8>);
    }
}

fn main() {}

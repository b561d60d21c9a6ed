use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        table("customers", Utf8, Utf8, timestamp(WallClock))
            .to_stream()
            .to("out", Utf8, dekaf_streams::serdes::Nullable::<Utf8>);
    }
}

fn main() {}

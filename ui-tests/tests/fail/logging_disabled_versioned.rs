use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        stream("prices", Utf8, Utf8)
            .to_table("prices")
            .versioned(std::time::Duration::from_secs(600))
            .with_logging_disabled()
            .to_stream()
            .to("out", Utf8, dekaf_streams::serdes::Nullable::<Utf8>);
    }
}

fn main() {}

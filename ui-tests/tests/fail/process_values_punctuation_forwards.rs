use std::time::Duration;

use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        stream("in", Utf8, Utf8)
            .process_values(
                [],
                |_ctx, _key: &String, value: String| Ok(Some(value)),
                schedule(Duration::from_secs(1), StreamTime, |_ctx, _ts| Ok(Some("x".to_owned())))
            )
            .to("out", Utf8, Utf8);
    }
}

fn main() {}

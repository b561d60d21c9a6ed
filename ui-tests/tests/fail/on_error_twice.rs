use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        on_error(|_| ErrorResponse::Continue);
        on_error(|_| ErrorResponse::Fail);
        stream("in", Utf8, Utf8).to("out", Utf8, Utf8);
    }
}

fn main() {}

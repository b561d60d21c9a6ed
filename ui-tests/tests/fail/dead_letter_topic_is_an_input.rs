use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        on_error(|_| ErrorResponse::DeadLetter("orders"));
        stream("orders", Utf8, Utf8).to("out", Utf8, Utf8);
    }
}

fn main() {}

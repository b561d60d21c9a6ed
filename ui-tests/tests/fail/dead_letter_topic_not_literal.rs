use dekaf_streams::prelude::*;
const DLQ: &str = "dlq";
topology! {
    pub T = "app" {
        on_error(|_| ErrorResponse::DeadLetter(DLQ));
        stream("in", Utf8, Utf8).to("out", Utf8, Utf8);
    }
}

fn main() {}

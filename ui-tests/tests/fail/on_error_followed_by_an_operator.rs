use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        on_error(|_e| ErrorResponse::Continue).in_memory();
        stream("in", Utf8, Utf8).to("out", Utf8, Utf8);
    }
}

fn main() {}

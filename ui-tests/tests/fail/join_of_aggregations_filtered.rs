use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        let a = stream("a", Utf8, Utf8).group_by_key().count("a-counts");
        let b = stream("b", Utf8, Utf8).group_by_key().count("b-counts");
        a.join(b, |x: &i64, y: &i64| x + y)
            .filter(|_, n| *n > 1)
            .to_stream()
            .to("out", Utf8, Nullable::<I64>);
    }
}

fn main() {}

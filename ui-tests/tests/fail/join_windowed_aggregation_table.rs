use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        let a = stream("a", Utf8, Utf8)
            .group_by_key()
            .windowed_by(tumbling(Duration::from_secs(60)))
            .count("a-counts");
        let b = stream("b", Utf8, Utf8).group_by_key().count("b-counts");
        b.join(a, |x: &i64, y: &i64| x + y)
            .to_stream()
            .to("out", Utf8, Nullable::<I64>);
    }
}

fn main() {}

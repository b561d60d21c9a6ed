/// A join of a filtered table (read through the filter's value getter), filtered again.
pub Chained = "table-joins-chained" {
    let names = table("names", Utf8, Utf8);
    let big = table("amounts", Utf8, I64).filter(|_k, n| *n >= 10);
    names
        .join(big, |name: &String, n: &i64| format!("{name}:{n}"))
        .filter_not(|_k, v| v.starts_with("skip"))
        .to_stream()
        .to("big-named", Utf8, Nullable::<Utf8>);
}

/// An outer stream-stream join, records at most 10 ms apart, 5 ms grace.
pub OuterJoin = "outer-join" {
    let left = stream("outer-left", Utf8, Utf8);
    let right = stream("outer-right", Utf8, Utf8);
    left.outer_join(right, |l: Option<&String>, r: Option<&String>| format!("{l:?}{r:?}"), join_window(10).grace(5))
        .to("outer-joined", Utf8, Utf8);
}

/// Session windows: a count and an aggregation with a merger, suppressed until closed.
pub Sessions = "sessions" {
    let clicks = stream("clicks", Utf8, Utf8);
    clicks
        .group_by_key()
        .windowed_by(session(10))
        .count("clicks-per-session")
        .suppress_until_window_closes()
        .to_stream()
        .to("session-clicks", SessionWindowed::<Utf8>, I64);
}

/// Sources with timestamp extractors: a closure, and a built-in.
pub Stamps = "timestamp-extractors" {
    stream("events", Utf8, I64, timestamp(|_key: &String, value: &i64, _record_ts, _partition_time| *value))
        .group_by_key()
        .count("counts");
    stream("pings", Utf8, Utf8, timestamp(UsePartitionTimeOnInvalid)).to("pongs", Utf8, Utf8);
}

//! Kafka requests the runtime encodes itself: StreamsGroupHeartbeat and StreamsGroupDescribe.

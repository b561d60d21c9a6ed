//! The coordinator connection and the streams-group membership state machine.

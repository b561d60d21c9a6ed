//! Why the security properties cannot configure the coordinator connection.

/// Why the security properties cannot configure the coordinator connection.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SecurityError {
    /// A property the coordinator connection does not support.
    #[error(
        "the property `{property}` is not supported by dekaf-streams' coordinator connection \
         ({why}); remove it or use a supported alternative"
    )]
    Unsupported {
        /// The property.
        property: String,
        /// Why, and what to use instead.
        why: String,
    },
    /// A property has a value that is not understood.
    #[error("the property `{property}` has the invalid value `{value}`; expected {expected}")]
    InvalidValue {
        /// The property.
        property: String,
        /// The value given (never a secret's value).
        value: String,
        /// What values are valid.
        expected: &'static str,
    },
    /// A property the chosen protocol or mechanism needs is missing.
    #[error("`{needed}` is required with {because}; set it with `.property(\"{needed}\", ..)`")]
    Missing {
        /// The missing property.
        needed: &'static str,
        /// What makes it necessary.
        because: String,
    },
    /// The TLS material could not be loaded.
    #[error("cannot load the TLS settings from `{property}`: {reason}")]
    Tls {
        /// The property whose value could not be used.
        property: &'static str,
        /// What went wrong (OpenSSL's reason).
        reason: String,
    },
}

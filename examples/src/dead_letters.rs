//! Dead letters: records that do not deserialize go to `payments-dead-letter` with their
//! original key, value, timestamp and headers; payments the closure rejects (a
//! `try_map_values` returning `Err`) go to `payments-rejected`; anything else fails the
//! application.

use dekaf_streams::prelude::*;
use serde::{Deserialize, Serialize};

/// A payment; the key is the account.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Payment {
    /// Amount in cents; negative amounts are rejected.
    pub amount_cents: i64,
}

topology! {
    /// Extracts payment amounts, routing bad records to dead-letter topics.
    pub Payments = "payments" {
        on_error(|error| match error.kind {
            ErrorKind::KeyDeserialization | ErrorKind::ValueDeserialization => {
                ErrorResponse::DeadLetter("payments-dead-letter")
            }
            ErrorKind::Processing => ErrorResponse::DeadLetter("payments-rejected"),
            ErrorKind::Serialization => ErrorResponse::Fail,
            ErrorKind::InvalidTimestamp | ErrorKind::NullKey | ErrorKind::NullValue => {
                ErrorResponse::DeadLetter("payments-rejected")
            }
        });
        stream("payments", Utf8, Json::<Payment>)
            .try_map_values(|payment| {
                if payment.amount_cents < 0 {
                    Err(ProcessError::msg(format!("negative amount {}", payment.amount_cents)))
                } else {
                    Ok(payment.amount_cents)
                }
            })
            .to("payment-amounts", Utf8, I64);
    }
}

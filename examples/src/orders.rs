//! Orders enriched with their customer: a stream-table `join` (orders of unknown customers are
//! dropped) and a `left_join` (they pass with `None`).
//!
//! Both topics are keyed by customer id, so they must be co-partitioned (same partition count);
//! the topology declares the copartition group `[customers, orders]` for the coordinator.

use dekaf_streams::prelude::*;
use serde::{Deserialize, Serialize};

/// An order; the record key is the customer id.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Order {
    /// Order id.
    pub id: u64,
    /// Amount in cents.
    pub amount_cents: i64,
}

/// A customer; the record key is the customer id.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Customer {
    /// Display name.
    pub name: String,
    /// Country code.
    pub country: String,
}

/// An order with its customer's name and country.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EnrichedOrder {
    /// Order id.
    pub id: u64,
    /// Amount in cents.
    pub amount_cents: i64,
    /// The customer's name, if the customer is known.
    pub customer: Option<String>,
    /// The customer's country, if the customer is known.
    pub country: Option<String>,
}

fn enrich(order: Order, customer: Option<Customer>) -> EnrichedOrder {
    EnrichedOrder {
        id: order.id,
        amount_cents: order.amount_cents,
        customer: customer.as_ref().map(|c| c.name.clone()),
        country: customer.map(|c| c.country),
    }
}

topology! {
    /// Joins orders with the customers table.
    pub OrderEnrichment = "order-enrichment" {
        let customers = table("customers", Utf8, Json::<Customer>);
        let orders = stream("orders", Utf8, Json::<Order>);
        orders
            .join(customers, |order, customer| enrich(order, Some(customer)))
            .to("orders-enriched", Utf8, Json::<EnrichedOrder>);
        orders
            .left_join(customers, enrich)
            .to("orders-with-customer", Utf8, Json::<EnrichedOrder>);
    }
}

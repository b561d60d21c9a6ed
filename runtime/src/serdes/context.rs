//! Where a serde works (topic and role) and the state an application instance gives its serdes.
//!
//! # The design
//!
//! A serde stays a *type*, called through associated functions, so the compiled tasks dispatch
//! statically as before. Two things were missing for serdes backed by a schema registry:
//!
//! - **The topic and the role.** [`Serde::serialize_in`](super::Serde::serialize_in),
//!   [`deserialize_in`](super::Serde::deserialize_in) and [`check_in`](super::Serde::check_in)
//!   take a [`SerdeContext`]: the topic the bytes come from or go to and whether they are the
//!   record's key or value ([`Role`]). The compiled tasks call these at every source, sink and
//!   repartition topic, with the topic and role written as constants by `topology!`. Their
//!   default implementations ignore the context and call the context-free functions
//!   ([`Serde::serialize`](super::Serde::serialize) ...), inlined: `Utf8`, `I64` and every
//!   serde written before compile to exactly the code they compiled to, and their `impl Serde`
//!   blocks do not change.
//! - **State per application instance.** A registry serde needs a configured client (URL,
//!   credentials), shared by all processing threads, and caches of schema ids. The application
//!   builds such state once and hands it to the instance as a [`SerdeStates`]
//!   (`KafkaStreams::builder(..).serde_state(registry)`, `TestDriver::builder().serde_state(..)`).
//!   Every processing thread of that instance (and the TestDriver while it runs a task)
//!   *enters* the instance's states for as long as it runs ([`SerdeStates::enter`]); a serde
//!   reaches them with [`with_state`]. The state is therefore per instance, not a process
//!   global keyed by type: two instances in one process (the tests run several) each see
//!   their own client and caches, because each runs on its own threads.
//!
//! Why not a `&self` serde value threaded through the tasks: `create_task`, every task, store
//! handle and query view would carry serde values, and the many serdes without state (nearly
//! all) would be values to pass around for nothing. Why not a process global keyed by the
//! serde's type: two instances of one topology in one process (two applications, or a test
//! that runs several members) may talk to two registries, or need separate caches.
//!
//! Serdes without context (stores, the interactive queries, [`ListOf`](super::ListOf) entries)
//! call the context-free functions; a registry serde fails there with a [`SerdeError`] that
//! says so, instead of guessing a subject.
//!
//! [`SerdeError`]: super::SerdeError

use std::any::{Any, TypeId};
use std::cell::RefCell;
use std::fmt;
use std::sync::Arc;

/// Whether the bytes are a record's key or its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Role {
    /// The record's key.
    Key,
    /// The record's value.
    Value,
}

impl Role {
    /// `"key"` or `"value"`, as subject names end (`<topic>-value`).
    pub const fn as_str(self) -> &'static str {
        match self {
            Role::Key => "key",
            Role::Value => "value",
        }
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where a serde is working: the topic and the [`Role`] of the bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SerdeContext<'a> {
    topic: &'a str,
    role: Role,
}

impl<'a> SerdeContext<'a> {
    /// The bytes of `role` on `topic`.
    #[inline(always)]
    pub const fn new(topic: &'a str, role: Role) -> Self {
        SerdeContext { topic, role }
    }

    /// A key on `topic`.
    #[inline(always)]
    pub const fn key(topic: &'a str) -> Self {
        SerdeContext::new(topic, Role::Key)
    }

    /// A value on `topic`.
    #[inline(always)]
    pub const fn value(topic: &'a str) -> Self {
        SerdeContext::new(topic, Role::Value)
    }

    /// The topic (full name, as the broker knows it).
    #[inline(always)]
    pub const fn topic(&self) -> &'a str {
        self.topic
    }

    /// Key or value.
    #[inline(always)]
    pub const fn role(&self) -> Role {
        self.role
    }
}

/// The serde state of one application instance: values of distinct types (a schema registry
/// client, ...) that serdes reach with [`with_state`] while a thread of the instance runs.
///
/// Cheap to clone (one `Arc`); built once per instance.
#[derive(Clone, Default)]
pub struct SerdeStates {
    states: Arc<Vec<(TypeId, Arc<dyn Any + Send + Sync>)>>,
}

impl fmt::Debug for SerdeStates {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SerdeStates({} states)", self.states.len())
    }
}

/// Two `SerdeStates` are equal when they are the same states (clones of one another), or both
/// empty.
impl PartialEq for SerdeStates {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.states, &other.states) || (self.is_empty() && other.is_empty())
    }
}

impl Eq for SerdeStates {}

impl SerdeStates {
    /// No state: what serdes without state need.
    pub fn new() -> Self {
        SerdeStates::default()
    }

    /// These states and `state`, which replaces a state of the same type.
    pub fn with<T: Send + Sync + 'static>(self, state: T) -> Self {
        let mut states: Vec<_> = self
            .states
            .iter()
            .filter(|(id, _)| *id != TypeId::of::<T>())
            .cloned()
            .collect();
        states.push((TypeId::of::<T>(), Arc::new(state)));
        SerdeStates {
            states: Arc::new(states),
        }
    }

    /// Whether there is no state.
    pub fn is_empty(&self) -> bool {
        self.states.is_empty()
    }

    /// The state of type `T`, if the instance has one.
    pub fn get<T: 'static>(&self) -> Option<&T> {
        self.states
            .iter()
            .find(|(id, _)| *id == TypeId::of::<T>())
            .and_then(|(_, state)| state.downcast_ref::<T>())
    }

    /// Makes these the states that [`with_state`] sees on this thread until the guard is
    /// dropped (then the ones before come back).
    pub fn enter(&self) -> EnteredStates {
        let previous = CURRENT.with(|current| current.replace(Some(self.clone())));
        EnteredStates { previous }
    }
}

thread_local! {
    static CURRENT: RefCell<Option<SerdeStates>> = const { RefCell::new(None) };
}

/// What [`SerdeStates::enter`] returns: leaving restores the thread's previous states.
#[must_use = "the states are left when this guard is dropped"]
pub struct EnteredStates {
    previous: Option<SerdeStates>,
}

impl Drop for EnteredStates {
    fn drop(&mut self) {
        let previous = self.previous.take();
        CURRENT.with(|current| {
            *current.borrow_mut() = previous;
        });
    }
}

impl fmt::Debug for EnteredStates {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("EnteredStates")
    }
}

/// Calls `f` with the state of type `T` of the instance this thread runs for, or `None` when
/// the thread runs for no instance or the instance has no such state.
pub fn with_state<T: 'static, R>(f: impl FnOnce(Option<&T>) -> R) -> R {
    CURRENT.with(|current| match current.try_borrow() {
        Ok(states) => f(states.as_ref().and_then(SerdeStates::get::<T>)),
        Err(_) => f(None),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq)]
    struct Url(&'static str);

    #[test]
    fn states_are_per_thread_and_nest() {
        let a = SerdeStates::new().with(Url("a")).with(7u32);
        let b = SerdeStates::new().with(Url("b"));
        assert_eq!(with_state::<Url, _>(|u| u.map(|u| u.0)), None);
        let _a = a.enter();
        assert_eq!(with_state::<Url, _>(|u| u.map(|u| u.0)), Some("a"));
        assert_eq!(with_state::<u32, _>(|n| n.copied()), Some(7));
        {
            let _b = b.enter();
            assert_eq!(with_state::<Url, _>(|u| u.map(|u| u.0)), Some("b"));
            assert_eq!(with_state::<u32, _>(|n| n.copied()), None);
            // Another thread runs for another instance (or none).
            std::thread::spawn(|| assert_eq!(with_state::<Url, _>(|u| u.map(|u| u.0)), None))
                .join()
                .expect("thread");
        }
        assert_eq!(with_state::<Url, _>(|u| u.map(|u| u.0)), Some("a"));
        let replaced = a.clone().with(Url("c"));
        assert_eq!(replaced.get::<Url>(), Some(&Url("c")));
        assert_eq!(replaced.get::<u32>(), Some(&7));
    }
}

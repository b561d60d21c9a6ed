//! [`TaskParts`]: what a subtopology's task is made of besides the per-record code. The
//! stores ([`super::stores`]) and the operators with task state (`crate::ops::TASK_PARTS`:
//! stream-stream joins, global tables, foreign-key joins, the record cache, punctuations) each
//! make one; they merge into the task's, which [`super::task`] writes out.

use proc_macro2::TokenStream;

use super::emitter::Emitter;
use crate::ir::Sub;

/// What an operator adds to the task of subtopology `sub`, given what the ones before it added
/// (punctuations run the record cache's `after_record` too).
pub(crate) type TaskFn = fn(&Emitter<'_>, &Sub, &TaskParts) -> TaskParts;

/// The pieces of a task; every field empty (the `Task` trait's defaults) for a task without
/// the state they are for.
#[derive(Default)]
pub(crate) struct TaskParts {
    /// Fields of the task struct.
    pub fields: TokenStream,
    /// Their initial values, in `__create`'s struct literal.
    pub inits: TokenStream,
    /// Statements after the struct is made (`__dk_task`), before `__create` returns it.
    pub opened: TokenStream,
    /// Methods of the task struct (flushes, punctuations).
    pub methods: TokenStream,
    /// `Task` methods that override the trait's defaults.
    pub trait_items: TokenStream,
    /// Arms of `restore`'s match on the changelog topic.
    pub restores: TokenStream,
    /// Statements of `clear`.
    pub clear: TokenStream,
    /// Statements of `discard_uncommitted` once the stores kept their committed state.
    pub discard: TokenStream,
    /// Statements after each record (and punctuation): the record cache's budget check.
    pub after_record: TokenStream,
    /// Whether the task's state is rebuilt only by a full restore (a stream-stream join's
    /// window state): it never keeps its stores through an aborted interval.
    pub full_restore: bool,
}

impl TaskParts {
    /// Adds `other`'s pieces after this one's.
    pub(crate) fn merge(&mut self, other: TaskParts) {
        self.fields.extend(other.fields);
        self.inits.extend(other.inits);
        self.opened.extend(other.opened);
        self.methods.extend(other.methods);
        self.trait_items.extend(other.trait_items);
        self.restores.extend(other.restores);
        self.clear.extend(other.clear);
        self.discard.extend(other.discard);
        self.after_record.extend(other.after_record);
        self.full_restore |= other.full_restore;
    }
}

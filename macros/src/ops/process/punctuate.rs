//! `schedule(interval, StreamTime | WallClock, |ctx, timestamp| ..)`: the punctuations of a
//! `process(..)` node, written after its closure. Each becomes a field holding its next due
//! time and two task methods (the callback's code with the node's downstream operators, and the
//! call that hands its failures to `on_error`); the task's `punctuate_stream_time`,
//! `wall_clock_due` and `punctuate_wall_clock` run the due ones (semantics in the runtime's
//! `punctuation` module, after Kafka Streams' `PunctuationSchedule`/`PunctuationQueue`).

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::Expr;

use crate::args::{closure_arity, duration, err_at};
use crate::codegen::emitter::{Emitter, dk};
use crate::codegen::parts::TaskParts;
pub(crate) use crate::ir::Schedule;
use crate::ir::{NodeKind, Sub};

/// The usage line quoted in errors.
pub(crate) const USAGE: &str = "schedule(Duration::from_secs(1), StreamTime, |ctx, timestamp| Ok(Some((key, value)))) (or WallClock)";

/// The usage line of `process_values(..)`'s punctuations, which forward nothing.
const VALUES_USAGE: &str =
    "schedule(Duration::from_secs(1), StreamTime, |ctx, timestamp| Ok(())) (or WallClock)";

/// Parses the arguments of `process(..)` (or of `process_values(..)`: `values`) after its
/// closure: each a `schedule(..)`.
pub(crate) fn parse_all(args: &[Expr], values: bool) -> syn::Result<Vec<Schedule>> {
    let usage = if values { VALUES_USAGE } else { USAGE };
    args.iter().map(|e| parse(e, usage)).collect()
}

fn parse(e: &Expr, usage: &str) -> syn::Result<Schedule> {
    let Expr::Call(call) = e else {
        return Err(err_at(
            e,
            format!("after its closure, process(..) takes only punctuation schedules: {usage}"),
        ));
    };
    let is_schedule = matches!(&*call.func, Expr::Path(p) if p.path.is_ident("schedule"));
    if !is_schedule {
        return Err(err_at(
            &call.func,
            format!("after its closure, process(..) takes only punctuation schedules: {usage}"),
        ));
    }
    let args: Vec<&Expr> = call.args.iter().collect();
    let [interval, kind, f] = args.as_slice() else {
        return Err(err_at(
            e,
            format!(
                "schedule(..) takes an interval, StreamTime or WallClock, and a callback: {usage}"
            ),
        ));
    };
    let ms = duration(interval)?;
    if ms < 1 {
        return Err(err_at(
            interval,
            format!(
                "a punctuation interval must be at least 1 ms (Kafka Streams rejects shorter ones; zero would punctuate without end): give a positive interval, e.g. {usage}"
            ),
        ));
    }
    let wall_clock = match kind {
        Expr::Path(p) => match p.path.segments.last().map(|s| s.ident.to_string()) {
            Some(s) if s == "StreamTime" => false,
            Some(s) if s == "WallClock" => true,
            _ => return Err(kind_error(kind, usage)),
        },
        _ => return Err(kind_error(kind, usage)),
    };
    if closure_arity(f) != Some(2) {
        return Err(err_at(
            f,
            format!(
                "a punctuation callback is a closure of the context and the punctuation's time, returning the records to forward: {usage}"
            ),
        ));
    }
    Ok(Schedule {
        interval: ms,
        wall_clock,
        f: (*f).clone(),
        span: syn::spanned::Spanned::span(&call.func),
    })
}

fn kind_error(kind: &Expr, usage: &str) -> syn::Error {
    err_at(
        kind,
        format!(
            "the punctuation type is StreamTime (record timestamps) or WallClock (the system clock): {usage}"
        ),
    )
}

/// The schedules of the `process(..)` nodes of `sub`: (node, index, schedule).
fn schedules<'m>(em: &Emitter<'m>, sub: &Sub) -> Vec<(usize, usize, &'m Schedule)> {
    let mut out = Vec::new();
    for &n in &sub.nodes {
        if let NodeKind::Process { schedules, .. } = &em.m.nodes[n].kind {
            out.extend(schedules.iter().enumerate().map(|(j, s)| (n, j, s)));
        }
    }
    out
}

/// Fields, initializers, `clear` code, methods and `Task` items of `sub`'s punctuations; all
/// empty (the trait's defaults) when it has none.
pub(crate) fn task_parts(em: &Emitter<'_>, sub: &Sub, before: &TaskParts) -> TaskParts {
    let dk = dk();
    let topo = &em.topo;
    let after_record = &before.after_record;
    let all = schedules(em, sub);
    let mut parts = TaskParts::default();
    if all.is_empty() {
        return parts;
    }
    for &(node, j, s) in &all {
        let next = next_field(node, j);
        let body = format_ident!("__punctuation_{}_{}", node, j);
        let run = run_method(node, j);
        // Stream time: aligned to 0 (Kafka Streams' schedule(0, interval)). Wall clock: not
        // started (i64::MIN) until the runner first tells the time.
        let start = if s.wall_clock {
            quote!(i64::MIN)
        } else {
            quote!(0)
        };
        parts.fields.extend(quote!(#next: i64,));
        parts.inits.extend(quote!(#next: #start,));
        parts.clear.extend(quote!(self.#next = #start;));
        let code = callback(em, node, s);
        let node_name = &em.m.nodes[node].name;
        parts
            .methods
            .extend(crate::codegen::emitter::record_method(&body, &code));
        parts.methods.extend(quote! {
            /// Runs one punctuation at `__dk_time`; a failure goes to `on_error`.
            #[inline(never)]
            fn #run<S: #dk::RecordSink>(
                &mut self,
                __dk_time: i64,
                __dk_sink: &mut S,
            ) -> ::core::result::Result<(), #dk::TaskError> {
                let __dk_record = #dk::punctuation_record(__dk_time);
                let __dk_result = match ::std::panic::catch_unwind(
                    ::std::panic::AssertUnwindSafe(|| self.#body(&__dk_record, __dk_sink)),
                ) {
                    Ok(r) => r,
                    Err(payload) => Err(#dk::panicked(#node_name, payload)),
                };
                if let Err(e) = __dk_result {
                    #dk::handle_error(e, "", &__dk_record, #topo::__on_error, &mut self.__skipped, __dk_sink)?;
                }
                #after_record
                Ok(())
            }
        });
    }
    let stream: Vec<_> = all.iter().filter(|(_, _, s)| !s.wall_clock).collect();
    let wall: Vec<_> = all.iter().filter(|(_, _, s)| s.wall_clock).collect();
    let mut items = TokenStream::new();
    if !stream.is_empty() {
        let run_due = run_due(&stream);
        items.extend(quote! {
            fn punctuate_stream_time<S: #dk::RecordSink>(
                &mut self,
                __dk_sink: &mut S,
            ) -> ::core::result::Result<bool, #dk::TaskError> {
                let __dk_now = self.__stream_time;
                if __dk_now == i64::MIN {
                    return Ok(false);
                }
                #run_due
            }
        });
    }
    if !wall.is_empty() {
        let run_due = run_due(&wall);
        let (starts, dues): (Vec<_>, Vec<_>) = wall
            .iter()
            .map(|(n, j, s)| {
                let f = next_field(*n, *j);
                let interval = s.interval;
                (
                    quote!(if self.#f == i64::MIN { self.#f = now_ms.saturating_add(#interval); }),
                    quote!(self.#f <= now_ms),
                )
            })
            .unzip();
        items.extend(quote! {
            fn wall_clock_due(&mut self, now_ms: i64) -> bool {
                #(#starts)*
                false #(|| #dues)*
            }

            fn punctuate_wall_clock<S: #dk::RecordSink>(
                &mut self,
                now_ms: i64,
                __dk_sink: &mut S,
            ) -> ::core::result::Result<bool, #dk::TaskError> {
                if !#dk::Task::wall_clock_due(self, now_ms) {
                    return Ok(false);
                }
                let __dk_now = now_ms;
                #run_due
            }
        });
    }
    parts.trait_items = items;
    parts
}

fn next_field(node: usize, j: usize) -> syn::Ident {
    format_ident!("__punct_next_{}_{}", node, j)
}

fn run_method(node: usize, j: usize) -> syn::Ident {
    format_ident!("__punctuate_{}_{}", node, j)
}

/// Runs the schedules due at `__dk_now`, earliest due time first (ties: declaration order),
/// each once: before it runs its next time is set past `__dk_now`
/// (`PunctuationSchedule.next`).
fn run_due(schedules: &[&(usize, usize, &Schedule)]) -> TokenStream {
    let dk = dk();
    let picks = schedules.iter().enumerate().map(|(i, (n, j, _))| {
        let f = next_field(*n, *j);
        quote! {
            if self.#f <= __dk_now && __dk_due.is_none_or(|(_, at)| self.#f < at) {
                __dk_due = Some((#i, self.#f));
            }
        }
    });
    let arms = schedules.iter().enumerate().map(|(i, (n, j, s))| {
        let f = next_field(*n, *j);
        let run = run_method(*n, *j);
        let interval = s.interval;
        quote! {
            #i => {
                self.#f = #dk::next_punctuation(__dk_at, __dk_now, #interval);
                self.#run(__dk_now, __dk_sink)?;
            }
        }
    });
    quote! {
        let mut __dk_ran = false;
        loop {
            let mut __dk_due: Option<(usize, i64)> = None;
            #(#picks)*
            let Some((__dk_i, __dk_at)) = __dk_due else {
                return Ok(__dk_ran);
            };
            match __dk_i {
                #(#arms)*
                _ => {}
            }
            __dk_ran = true;
        }
    }
}

/// The callback's call with the node's context, then the node's downstream operators for every
/// record it returns.
fn callback(em: &Emitter<'_>, node: usize, s: &Schedule) -> TokenStream {
    let dk = dk();
    let n = &em.m.nodes[node];
    let name = &n.name;
    let f = &s.f;
    if matches!(n.kind, NodeKind::Process { values: true, .. }) {
        let call = quote_spanned!(s.span=> #dk::punctuate_values(&mut __dk_ctx, __dk_record.timestamp, #name, #f)?);
        return super::context::with_context(em, node, call, false);
    }
    let call =
        quote_spanned!(s.span=> #dk::punctuate(&mut __dk_ctx, __dk_record.timestamp, #name, #f)?);
    super::context::with_context(em, node, call, true)
}

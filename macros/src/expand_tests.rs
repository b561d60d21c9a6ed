//! Snapshots of the macro's output: each topology under `macros/tests/expand/*.rs` (the
//! tokens a `topology!` call gets) is expanded, formatted with `rustfmt` when it is installed,
//! and compared with its `.expanded.rs` file beside it, so a code generation change shows as a
//! reviewable diff. `DEKAF_BLESS=1 cargo test -p dekaf-streams-macros expand` rewrites the
//! snapshots.
//!
//! `expand_corpus` (ignored) expands every `topology!` call of the workspace into
//! `$DEKAF_EXPAND_DIR`: run it before and after a refactoring and diff the two directories.

use std::path::{Path, PathBuf};

use syn::visit::Visit;

/// `tokens` expanded and formatted.
fn render(tokens: proc_macro2::TokenStream) -> String {
    let out = crate::expand(tokens).to_string();
    format(&out).unwrap_or(out)
}

/// `code` through `rustfmt`, if it runs and accepts it.
fn format(code: &str) -> Option<String> {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut child = Command::new("rustfmt")
        .args(["--edition", "2024", "--emit", "stdout"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    child.stdin.take()?.write_all(code.as_bytes()).ok()?;
    let out = child.wait_with_output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/expand")
}

#[test]
fn expand_snapshots() {
    let bless = std::env::var_os("DEKAF_BLESS").is_some();
    let mut inputs: Vec<PathBuf> = std::fs::read_dir(dir())
        .expect("macros/tests/expand")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.extension().is_some_and(|x| x == "rs")
                && !p.to_string_lossy().ends_with(".expanded.rs")
        })
        .collect();
    inputs.sort();
    assert!(!inputs.is_empty(), "no topology under macros/tests/expand");
    let mut differ = Vec::new();
    for input in inputs {
        let text = std::fs::read_to_string(&input).expect("readable input");
        let tokens: proc_macro2::TokenStream = text.parse().expect("tokens");
        let got = render(tokens);
        let snapshot = input.with_extension("expanded.rs");
        if bless {
            std::fs::write(&snapshot, &got).expect("writable snapshot");
        } else if std::fs::read_to_string(&snapshot).ok().as_deref() != Some(got.as_str()) {
            differ.push(snapshot.display().to_string());
        }
    }
    assert!(
        differ.is_empty(),
        "the expansion differs from {differ:?}: review, then rerun with DEKAF_BLESS=1"
    );
}

/// Collects the tokens of every `topology!` call.
struct Calls(Vec<proc_macro2::TokenStream>);

impl<'ast> Visit<'ast> for Calls {
    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        if m.path
            .segments
            .last()
            .is_some_and(|s| s.ident == "topology")
        {
            self.0.push(m.tokens.clone());
        }
    }
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        let name = e.file_name().to_string_lossy().into_owned();
        if p.is_dir() {
            if name != "target" && name != "macros" && !name.starts_with('.') {
                rust_files(&p, out);
            }
        } else if name.ends_with(".rs") {
            out.push(p);
        }
    }
}

#[test]
#[ignore = "writes $DEKAF_EXPAND_DIR; a tool for refactorings"]
fn expand_corpus() {
    let Some(out) = std::env::var_os("DEKAF_EXPAND_DIR") else {
        return;
    };
    let out = PathBuf::from(out);
    std::fs::create_dir_all(&out).expect("output dir");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    files.sort();
    for f in files {
        let Ok(text) = std::fs::read_to_string(&f) else {
            continue;
        };
        let Ok(file) = syn::parse_file(&text) else {
            continue;
        };
        let mut calls = Calls(Vec::new());
        calls.visit_file(&file);
        let rel = f
            .strip_prefix(&root)
            .unwrap_or(&f)
            .to_string_lossy()
            .replace('/', "__");
        for (i, tokens) in calls.0.into_iter().enumerate() {
            let got = crate::expand(tokens).to_string();
            std::fs::write(out.join(format!("{rel}.{i}.txt")), got).expect("writable");
        }
    }
}

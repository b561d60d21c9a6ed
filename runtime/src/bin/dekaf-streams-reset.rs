//! `dekaf-streams-reset`: deletes an application's streams group and internal topics, so a
//! changed topology can start under the same application id. Stop every instance first.
//! With `--state-dir`, also deletes the application's local state under that directory (run
//! it on every machine that had one, or delete those directories by hand). With `--dry-run`,
//! prints what it would delete and deletes nothing.
//!
//! The internal topics are the ones the group's described topology lists; without a group, the
//! ones named like the application's internal topics, except those whose names also fit another
//! application with a streams group on the cluster (see `dekaf_streams::plan_reset`).
//!
//! ```text
//! dekaf-streams-reset --bootstrap-server 127.0.0.1:9092 --application-id word-count
//!                     [--dry-run] [--state-dir /var/lib/word-count] [--property key=value]...
//! ```

use std::process::ExitCode;

use dekaf_streams::{ClientSettings, execute_reset, plan_reset};

const USAGE: &str = "usage: dekaf-streams-reset --bootstrap-server HOST:PORT --application-id ID [--dry-run] [--state-dir DIR] [--property KEY=VALUE]...";

/// What the command line asks for.
struct Reset {
    settings: ClientSettings,
    application_id: String,
    state_dir: Option<std::path::PathBuf>,
    dry_run: bool,
}

fn parse(args: &[String]) -> Result<Reset, String> {
    let mut settings = ClientSettings::new("");
    let mut application_id = None;
    let mut state_dir = None;
    let mut dry_run = false;
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        let mut value = || {
            it.next()
                .ok_or_else(|| format!("{flag} needs a value\n{USAGE}"))
        };
        match flag.as_str() {
            "--bootstrap-server" => settings
                .set("bootstrap.servers", value()?.as_str())
                .map_err(|e| e.to_string())?,
            "--application-id" => application_id = Some(value()?.clone()),
            "--state-dir" => state_dir = Some(std::path::PathBuf::from(value()?)),
            "--dry-run" => dry_run = true,
            "--property" => {
                let kv = value()?;
                let (k, v) = kv
                    .split_once('=')
                    .ok_or_else(|| format!("--property {kv}: expected KEY=VALUE"))?;
                settings.set(k, v).map_err(|e| e.to_string())?;
            }
            "-h" | "--help" => return Err(USAGE.to_owned()),
            other => return Err(format!("unknown argument `{other}`\n{USAGE}")),
        }
    }
    settings.validate().map_err(|e| format!("{e}\n{USAGE}"))?;
    let application_id =
        application_id.ok_or_else(|| format!("--application-id is required\n{USAGE}"))?;
    Ok(Reset {
        settings,
        application_id,
        state_dir,
        dry_run,
    })
}

#[tokio::main]
async fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Reset {
        settings,
        application_id,
        state_dir,
        dry_run,
    } = match parse(&args) {
        Ok(p) => p,
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::from(2);
        }
    };
    let plan = match plan_reset(&settings, &application_id).await {
        Ok(plan) => plan,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    if dry_run {
        print!("{plan}");
        if let Some(dir) = state_dir {
            let local = dir.join(&application_id);
            if local.exists() {
                println!(
                    "{application_id}: would delete local state {}",
                    local.display()
                );
            } else {
                println!("{application_id}: no local state under {}", dir.display());
            }
        }
        println!("{application_id}: dry run: nothing deleted");
        return ExitCode::SUCCESS;
    }
    match execute_reset(&settings, &plan).await {
        Ok(report) => {
            println!(
                "{application_id}: group {}; internal topics (found by {}) deleted: {}",
                if report.group_deleted {
                    "deleted"
                } else {
                    "did not exist"
                },
                report.found_by,
                if report.topics_deleted.is_empty() {
                    "none".to_owned()
                } else {
                    report.topics_deleted.join(", ")
                }
            );
            for kept in &report.topics_kept {
                println!(
                    "{application_id}: kept topic {}: {}",
                    kept.topic, kept.reason
                );
            }
            if let Some(dir) = state_dir {
                match dekaf_streams::state_dir::delete_application_state(&dir, &application_id) {
                    Ok(true) => println!(
                        "{application_id}: local state under {} deleted",
                        dir.display()
                    ),
                    Ok(false) => {
                        println!("{application_id}: no local state under {}", dir.display())
                    }
                    Err(e) => {
                        eprintln!("error: {e}");
                        return ExitCode::FAILURE;
                    }
                }
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

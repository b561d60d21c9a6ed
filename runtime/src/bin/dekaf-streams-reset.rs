//! `dekaf-streams-reset`: deletes an application's streams group and internal topics, so a
//! changed topology can start under the same application id. Stop every instance first.
//!
//! ```text
//! dekaf-streams-reset --bootstrap-server 127.0.0.1:9092 --application-id word-count
//!                     [--property key=value]...
//! ```

use std::process::ExitCode;

use dekaf_streams::kafka::ClientSettings;
use dekaf_streams::streams::reset_application;

const USAGE: &str = "usage: dekaf-streams-reset --bootstrap-server HOST:PORT --application-id ID [--property KEY=VALUE]...";

fn parse(args: &[String]) -> Result<(ClientSettings, String), String> {
    let mut settings = ClientSettings::new("");
    let mut application_id = None;
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
    Ok((settings, application_id))
}

#[tokio::main]
async fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (settings, application_id) = match parse(&args) {
        Ok(p) => p,
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::from(2);
        }
    };
    match reset_application(&settings, &application_id).await {
        Ok(report) => {
            println!(
                "{application_id}: group {}; internal topics deleted: {}",
                if report.group_deleted {
                    "deleted"
                } else {
                    "did not exist"
                },
                if report.topics_deleted.is_empty() {
                    "none".to_owned()
                } else {
                    report.topics_deleted.join(", ")
                }
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

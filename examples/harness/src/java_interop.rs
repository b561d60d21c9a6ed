//! The Java side of the interoperability tests with a schema registry: a Maven project under
//! `runtime/tests/` (Apicurio's Kafka serdes) whose jars are resolved once with a settings file
//! that sends every repository to Maven Central (the serdes' parent POM names one that cannot be
//! reached), and one Java source file run as a program (`java -cp 'LIB/*' File.java ..`).
//!
//! Without `java` or `mvn` the tests are skipped with a message, except under `CI=true`, where
//! they fail.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The registry's Confluent API (`DEKAF_REGISTRY_URL`, `scripts/registry.sh env`).
pub fn registry_url() -> String {
    std::env::var("DEKAF_REGISTRY_URL")
        .unwrap_or_else(|_| "http://127.0.0.1:8480/apis/ccompat/v7".to_owned())
}

/// Apicurio's own API beside its Confluent API: what its Java serdes use.
pub fn native_registry_url() -> String {
    registry_url().replace("/apis/ccompat/v7", "/apis/registry/v3")
}

fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true" || v == "1")
}

fn runs(program: &str, arg: &str) -> bool {
    Command::new(program)
        .arg(arg)
        .output()
        .is_ok_and(|o| o.status.success())
}

/// A Java project of `runtime/tests/<name>`, with its jars resolved into `<jars>/<name>-lib`
/// (once): the project's and the jars' directories, or `None` (skipped) without Java or Maven.
pub fn java_side(name: &str, jars: &Path) -> Option<JavaSide> {
    if !(runs("java", "-version") && runs("mvn", "-v")) {
        let reason = format!("java and mvn are needed for the Java side of {name}");
        assert!(!in_ci(), "{reason} (CI=true: not skipping)");
        eprintln!("skipped: {reason}");
        return None;
    }
    let project = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../runtime/tests")
        .join(name);
    let lib = jars.join(format!("{name}-lib"));
    if !lib.join(".complete").exists() {
        let out = Command::new("mvn")
            .args(["-B", "-q", "-s"])
            .arg(project.join("settings.xml"))
            .arg("-f")
            .arg(project.join("pom.xml"))
            .arg("org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy-dependencies")
            .arg("-DincludeScope=runtime")
            .arg(format!("-DoutputDirectory={}", lib.display()))
            .output()
            .expect("run mvn");
        assert!(
            out.status.success(),
            "mvn could not resolve the jars of {name}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        std::fs::write(lib.join(".complete"), b"").expect("mark the jars resolved");
    }
    Some(JavaSide { project, lib })
}

/// A Java project and its resolved jars.
#[derive(Debug, Clone)]
pub struct JavaSide {
    project: PathBuf,
    lib: PathBuf,
}

impl JavaSide {
    /// Runs the source file `main` (relative to the project) with `args`: its standard output,
    /// or a panic with what it said. Blocking: call it off tokio's workers.
    pub fn run(&self, main: &str, args: &[&str]) -> String {
        let out = Command::new("java")
            .arg("-cp")
            .arg(format!("{}/*", self.lib.display()))
            .arg(self.project.join(main))
            .args(args)
            .output()
            .expect("run java");
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(
            out.status.success(),
            "{main} {args:?} failed: {stdout}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        stdout
    }
}

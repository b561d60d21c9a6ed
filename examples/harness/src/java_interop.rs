//! The Java side of the interoperability tests with a schema registry: a Maven project under
//! `runtime/tests/` or `examples/harness/java/` (Apicurio's Kafka serdes, Kafka Streams) whose
//! jars are resolved once with a settings file that sends every repository to Maven Central (the
//! serdes' parent POM names one that cannot be reached), and one Java source file run as a
//! program (`java -cp 'LIB/*' File.java ..`), to its end or as a child process.
//!
//! Without `java` or `mvn` the tests are skipped with a message, except under `CI=true`, where
//! they fail.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

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
    let project = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../runtime/tests")
        .join(name);
    java_project(name, project, jars)
}

/// A Java project of the harness, `examples/harness/java/<name>`, with its jars resolved into
/// `<jars>/<name>-lib` (once), or `None` (skipped) without Java or Maven, as [`java_side`].
pub fn harness_java_side(name: &str, jars: &Path) -> Option<JavaSide> {
    let project = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("java")
        .join(name);
    java_project(name, project, jars)
}

fn java_project(name: &str, project: PathBuf, jars: &Path) -> Option<JavaSide> {
    if !(runs("java", "-version") && runs("mvn", "-v")) {
        let reason = format!("java and mvn are needed for the Java side of {name}");
        assert!(!in_ci(), "{reason} (CI=true: not skipping)");
        eprintln!("skipped: {reason}");
        return None;
    }
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
        self.run_with_input(main, args, "")
    }

    /// Runs `main` with `args` and `input` on its standard input, as [`JavaSide::run`].
    pub fn run_with_input(&self, main: &str, args: &[&str], input: &str) -> String {
        let mut child = self
            .command(main, args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run java");
        let mut stdin = child.stdin.take().expect("java's stdin");
        let input = input.to_owned();
        // Written beside the wait: a large input would otherwise fill the pipe and block both.
        let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
        let out = child.wait_with_output().expect("wait for java");
        let written = writer.join().expect("the stdin writer does not panic");
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(
            out.status.success() && written.is_ok(),
            "{main} {args:?} failed ({}; writing its input: {written:?}): {stdout}{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        stdout
    }

    /// Starts `main` with `args` as a child process, its standard output and error appended to
    /// `log`; the caller waits for it or stops it.
    pub fn spawn(&self, main: &str, args: &[&str], log: &Path) -> Child {
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(log)
            .unwrap_or_else(|e| panic!("open {}: {e}", log.display()));
        self.command(main, args)
            .stdin(Stdio::null())
            .stdout(file.try_clone().expect("the log file"))
            .stderr(file)
            .spawn()
            .expect("start java")
    }

    fn command(&self, main: &str, args: &[&str]) -> Command {
        let mut command = Command::new("java");
        command
            .arg("-cp")
            .arg(format!("{}/*", self.lib.display()))
            .arg(self.project.join(main))
            .args(args);
        command
    }
}

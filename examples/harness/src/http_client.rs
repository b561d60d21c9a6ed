//! A minimal HTTP/1.1 client for the tests of the query server: one `GET` per connection,
//! the raw answer split into status, head and body (no client library, so a test sees exactly
//! what the server sent).

use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// An answer: its status, its head (status line and headers, lower-case names as hyper writes
/// them) and its body.
#[derive(Debug, Clone)]
pub struct Answer {
    /// The status code.
    pub status: u16,
    /// The status line and headers.
    pub head: String,
    /// The body, as text.
    pub body: String,
}

impl Answer {
    /// The body as JSON (`Null` when it is not JSON).
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).unwrap_or(serde_json::Value::Null)
    }

    /// The value of header `name` (lower-case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.head.lines().find_map(|l| {
            let (n, v) = l.split_once(':')?;
            n.eq_ignore_ascii_case(name).then(|| v.trim())
        })
    }
}

/// `GET path` from `127.0.0.1:port` with the extra header lines `headers` (each ending in
/// `\r\n`); `Err` when the server cannot be reached or its answer is not HTTP.
pub async fn get(port: u16, path: &str, headers: &str) -> std::io::Result<Answer> {
    let mut stream = tokio::net::TcpStream::connect(("127.0.0.1", port)).await?;
    let request =
        format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n{headers}Connection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await?;
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).await?;
    let text = String::from_utf8_lossy(&raw).into_owned();
    let bad = || std::io::Error::new(std::io::ErrorKind::InvalidData, "not an HTTP answer");
    let (head, body) = text.split_once("\r\n\r\n").ok_or_else(bad)?;
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(bad)?;
    Ok(Answer {
        status,
        head: head.to_owned(),
        body: body.to_owned(),
    })
}

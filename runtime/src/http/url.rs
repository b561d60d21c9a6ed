//! Percent-coding of paths and query strings (RFC 3986), for keys in URLs.

/// Decodes `%XX` escapes (and `+` in query strings is left to the caller); invalid escapes and
/// non-UTF-8 results are kept as they are.
pub(super) fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && let Some(hex) = text.get(i + 1..i + 3)
            && let Ok(b) = u8::from_str_radix(hex, 16)
        {
            out.push(b);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).unwrap_or_else(|_| text.to_owned())
}

/// Encodes everything but unreserved characters (RFC 3986).
pub(super) fn percent_encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// `a=1&b=x%20y` → pairs, decoded (`+` is a space).
pub(super) fn parse_query(query: &str) -> Vec<(String, String)> {
    query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|pair| {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            (
                percent_decode(&k.replace('+', " ")),
                percent_decode(&v.replace('+', " ")),
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percent_coding_round_trips_and_queries_parse() {
        for text in ["plain", "with space", "ünïcödé", "a/b?c&d=e%f"] {
            assert_eq!(percent_decode(&percent_encode(text)), text);
        }
        assert_eq!(percent_decode("%zz%4"), "%zz%4");
        assert_eq!(
            parse_query("from=a+b&to=c%26d&scope"),
            [
                ("from".to_owned(), "a b".to_owned()),
                ("to".to_owned(), "c&d".to_owned()),
                ("scope".to_owned(), String::new())
            ]
        );
    }
}

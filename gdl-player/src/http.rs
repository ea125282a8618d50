//! The little HTTP/1.0 that the GGP protocol uses, over std's TCP sockets with `httparse`
//! reading the heads: a player reads one POST (with a deadline and a size cap) and writes one
//! reply with ggp-base's headers and the CORS headers; a manager POSTs one message and reads
//! the reply before a deadline.

use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};

/// The largest request or reply head read.
pub const MAX_HEAD: usize = 16 * 1024;

/// The header by which a player's own front asks a backend for a reply within a time (in
/// milliseconds from the moment the request is read), shorter than the match's clock says.
pub const REPLY_WITHIN_HEADER: &str = "X-Gdlc-Reply-Within-Ms";

/// One request as a player sees it.
#[derive(Debug)]
pub struct Request {
    /// The HTTP method, as sent (`POST`, `OPTIONS`).
    pub method: String,
    /// The whole body, as text.
    pub body: String,
    /// The time the sender gives for the reply ([`REPLY_WITHIN_HEADER`]), if it says.
    pub reply_within: Option<Duration>,
}

/// Why a request could not be read: the HTTP status to answer with and a message.
#[derive(Debug)]
pub struct RequestError {
    /// The HTTP status of the error reply (400, 408, 411, 413 or 431).
    pub status: u16,
    /// What went wrong, in words, for the reply's body.
    pub message: String,
}

fn request_error(status: u16, message: impl Into<String>) -> RequestError {
    RequestError { status, message: message.into() }
}

/// The reason phrase of the statuses a player sends.
pub fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        411 => "Length Required",
        413 => "Content Too Large",
        431 => "Request Header Fields Too Large",
        503 => "Service Unavailable",
        _ => "Error",
    }
}

/// Reads bytes into `buffer` until `done(buffer)` says where the wanted part ends, the peer
/// closes, `limit` bytes are exceeded or `deadline` passes.
fn read_until(
    stream: &mut TcpStream,
    buffer: &mut Vec<u8>,
    limit: usize,
    deadline: Instant,
    done: &dyn Fn(&[u8]) -> bool,
) -> Result<bool, std::io::Error> {
    let mut chunk = [0u8; 8192];
    while !done(buffer) {
        if buffer.len() > limit {
            return Ok(false);
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(std::io::Error::new(std::io::ErrorKind::TimedOut, "the deadline passed"));
        }
        stream.set_read_timeout(Some(left))?;
        // Never more than one byte past the limit, so that the limit is exact.
        let room = (limit + 1 - buffer.len()).min(chunk.len());
        let n = stream.read(&mut chunk[..room])?;
        if n == 0 {
            return Ok(done(buffer));
        }
        buffer.extend_from_slice(&chunk[..n]);
    }
    Ok(true)
}

fn head_end(buffer: &[u8]) -> Option<usize> {
    buffer.windows(4).position(|w| w == b"\r\n\r\n").map(|p| p + 4)
}

fn timed_out(e: &std::io::Error) -> bool {
    matches!(e.kind(), std::io::ErrorKind::TimedOut | std::io::ErrorKind::WouldBlock)
}

/// The most header lines a request may have.
const MAX_HEADERS: usize = 64;

/// Reads one request whose whole body must arrive before `deadline` and be at most `max_body`
/// bytes of UTF-8. A POST must say its length, once, in digits (RFC 9112, section 6.3).
pub fn read_request(stream: &mut TcpStream, max_body: usize, deadline: Instant) -> Result<Request, RequestError> {
    read_request_at_rate(stream, max_body, deadline, usize::MAX)
}

/// [`read_request`] in which a body gets, past `deadline`, the time it takes to send at `rate`
/// bytes per second: a large START over a slow link arrives, a trickle does not hold the
/// connection for long.
pub fn read_request_at_rate(
    stream: &mut TcpStream,
    max_body: usize,
    deadline: Instant,
    rate: usize,
) -> Result<Request, RequestError> {
    let mut buffer = Vec::new();
    let complete = read_until(stream, &mut buffer, MAX_HEAD, deadline, &|b| head_end(b).is_some()).map_err(io_error)?;
    let head_len = match head_end(&buffer) {
        Some(len) if complete && len <= MAX_HEAD => len,
        _ if buffer.len() > MAX_HEAD => {
            return Err(request_error(431, format!("the request head is over {MAX_HEAD} bytes")))
        }
        _ => return Err(request_error(400, "the connection closed before the request was complete")),
    };
    let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
    let mut request = httparse::Request::new(&mut headers);
    match request.parse(&buffer[..head_len]) {
        Ok(httparse::Status::Complete(_)) => {}
        Ok(httparse::Status::Partial) => return Err(request_error(400, "incomplete request head")),
        Err(httparse::Error::TooManyHeaders) => {
            return Err(request_error(431, format!("the request has more than {MAX_HEADERS} header lines")))
        }
        Err(e) => return Err(request_error(400, format!("malformed request: {e}"))),
    }
    let method = request.method.unwrap_or_default().to_string();
    let length = match content_length(request.headers)? {
        None if method == "POST" => return Err(request_error(411, "a POST must have a Content-Length")),
        None => 0,
        Some(length) => length,
    };
    let reply_within = header(request.headers, REPLY_WITHIN_HEADER)
        .and_then(|v| digits(v).ok())
        .map(|ms| Duration::from_millis(ms.min(u64::MAX as usize) as u64));
    if length > max_body {
        drain(stream, length.saturating_sub(buffer.len() - head_len), deadline);
        return Err(request_error(413, format!("the body is {length} bytes; at most {max_body} are accepted")));
    }
    let total = head_len + length;
    let deadline = deadline + Duration::from_secs_f64(length as f64 / rate.max(1) as f64);
    let complete = read_until(stream, &mut buffer, total, deadline, &|b| b.len() >= total).map_err(io_error)?;
    if !complete {
        return Err(request_error(400, "the connection closed before the body was complete"));
    }
    let body = String::from_utf8(buffer[head_len..total].to_vec())
        .map_err(|_| request_error(400, "the body is not UTF-8 text"))?;
    Ok(Request { method, body, reply_within })
}

/// The error reply for a failed read: 408 when the client was too slow.
fn io_error(e: std::io::Error) -> RequestError {
    if timed_out(&e) {
        request_error(408, "the request did not arrive in time")
    } else {
        request_error(400, format!("cannot read the request: {e}"))
    }
}

/// The value of the header `name`, if the request has it (the first, if several).
fn header<'h>(headers: &'h [httparse::Header<'_>], name: &str) -> Option<&'h [u8]> {
    headers.iter().find(|h| h.name.eq_ignore_ascii_case(name)).map(|h| h.value)
}

/// A header value that is a decimal number, digits only, with optional spaces around.
fn digits(value: &[u8]) -> Result<usize, RequestError> {
    let text = std::str::from_utf8(value).map(str::trim).unwrap_or_default();
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(request_error(400, "the Content-Length is not a number"));
    }
    text.parse().map_err(|_| request_error(400, "the Content-Length is too large"))
}

/// The request's Content-Length: every such header must be a number, and all the same.
fn content_length(headers: &[httparse::Header<'_>]) -> Result<Option<usize>, RequestError> {
    let mut length = None;
    for h in headers.iter().filter(|h| h.name.eq_ignore_ascii_case("content-length")) {
        let value = digits(h.value)?;
        if length.is_some_and(|l| l != value) {
            return Err(request_error(400, "the request has two different Content-Lengths"));
        }
        length = Some(value);
    }
    Ok(length)
}

/// Reads and discards up to `bytes` bytes of a body the player refuses, for at most a second,
/// so that the client reads the refusal instead of a reset connection.
fn drain(stream: &mut TcpStream, bytes: usize, deadline: Instant) {
    let until = deadline.min(Instant::now() + Duration::from_secs(1));
    let mut left = bytes;
    let mut chunk = [0u8; 8192];
    while left > 0 {
        let time = until.saturating_duration_since(Instant::now());
        if time.is_zero() || stream.set_read_timeout(Some(time)).is_err() {
            return;
        }
        match stream.read(&mut chunk[..left.min(8192)]) {
            Ok(0) | Err(_) => return,
            Ok(n) => left -= n,
        }
    }
}

/// Writes a whole reply as ggp-base's players do, with the CORS headers that let browser-based
/// managers read it, and closes the sending side.
pub fn write_response(stream: &mut TcpStream, status: u16, body: &str) -> std::io::Result<()> {
    write_response_with(stream, status, body, "")
}

/// The header by which a player's backend tells its front the work behind a move
/// (`1234 iterations`), for the front's log.
pub const WORK_HEADER: &str = "X-Gdlc-Work";

/// [`write_response`] with extra header lines, each ending in CRLF.
pub fn write_response_with(stream: &mut TcpStream, status: u16, body: &str, extra: &str) -> std::io::Result<()> {
    let reply = format!(
        "HTTP/1.0 {status} {}\r\nContent-type: text/acl\r\nContent-length: {}\r\n{extra}\
         Access-Control-Allow-Origin: *\r\nAccess-Control-Allow-Methods: POST, GET, OPTIONS\r\n\
         Access-Control-Allow-Headers: Content-Type\r\nAccess-Control-Allow-Age: 86400\r\n\r\n{body}",
        reason(status),
        body.len()
    );
    stream.set_write_timeout(Some(Duration::from_secs(10)))?;
    stream.write_all(reply.as_bytes())?;
    stream.flush()?;
    stream.shutdown(std::net::Shutdown::Write)
}

/// A player's address: `http://host:port/` or `host:port`, without the path.
pub fn address_of(url: &str) -> Result<String, String> {
    let rest = url.strip_prefix("http://").unwrap_or(url);
    let authority = rest.split('/').next().unwrap_or_default();
    if authority.is_empty() || url.starts_with("https://") {
        return Err(format!("`{url}` is not a player's address; expected http://HOST:PORT/"));
    }
    Ok(if authority.contains(':') { authority.to_string() } else { format!("{authority}:80") })
}

/// Whether `buffer` holds a whole reply: a head and as many body bytes as it announces (a
/// reply without a length ends when the player closes the connection).
fn reply_complete(buffer: &[u8]) -> bool {
    let Some(head_len) = head_end(buffer) else { return false };
    let head = String::from_utf8_lossy(&buffer[..head_len]).to_ascii_lowercase();
    let length =
        head.lines().find_map(|l| l.strip_prefix("content-length:")).and_then(|v| v.trim().parse::<usize>().ok());
    length.is_some_and(|n| buffer.len() >= head_len + n)
}

/// Sends `body` to the player at `url` as ggp-base's manager does and returns the reply's body
/// (trimmed), or why there is none: an unreachable player, a reply that is not 200 OK, or one
/// that has not fully arrived by `deadline`.
pub fn post(url: &str, body: &str, deadline: Instant) -> Result<String, String> {
    post_with_headers(url, body, "", deadline).map(|reply| reply.body)
}

/// A reply to a POST: its body, trimmed, and the work its sender reports ([`WORK_HEADER`]).
#[derive(Clone, Debug)]
pub struct Reply {
    /// The body, trimmed.
    pub body: String,
    /// The value of [`WORK_HEADER`], if the reply has it.
    pub work: Option<String>,
}

/// [`post`] to one of this player's own backends, asking for a reply `reply_within` from the
/// moment it reads the message ([`REPLY_WITHIN_HEADER`]).
pub fn post_reply_within(url: &str, body: &str, reply_within: Duration, deadline: Instant) -> Result<Reply, String> {
    let header = format!("{REPLY_WITHIN_HEADER}: {}\r\n", reply_within.as_millis());
    post_with_headers(url, body, &header, deadline)
}

/// [`post`] with extra header lines, each ending in CRLF.
fn post_with_headers(url: &str, body: &str, extra: &str, deadline: Instant) -> Result<Reply, String> {
    let address = address_of(url)?;
    let addrs: Vec<_> = address.to_socket_addrs().map_err(|e| format!("cannot resolve {address}: {e}"))?.collect();
    let addr = addrs.first().ok_or_else(|| format!("cannot resolve {address}"))?;
    let left = deadline.saturating_duration_since(Instant::now()).max(Duration::from_millis(1));
    let mut stream = TcpStream::connect_timeout(addr, left).map_err(|e| format!("cannot connect to {address}: {e}"))?;
    let request = format!(
        "POST / HTTP/1.0\r\nHost: {address}\r\nAccept: text/delim\r\nSender: GAMEMASTER\r\nReceiver: GAMEPLAYER\r\n\
         Content-Type: text/acl\r\n{extra}Content-Length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.set_write_timeout(Some(left)).map_err(|e| e.to_string())?;
    stream.write_all(request.as_bytes()).map_err(|e| format!("cannot send to {address}: {e}"))?;
    let mut buffer = Vec::new();
    let limit = MAX_HEAD + crate::server::MAX_BODY;
    let read = read_until(&mut stream, &mut buffer, limit, deadline, &reply_complete);
    match read {
        Ok(_) => {}
        Err(e) if timed_out(&e) => return Err("no reply in time".to_string()),
        Err(e) => return Err(format!("cannot read the reply: {e}")),
    }
    let head_len = head_end(&buffer).ok_or("the reply has no complete HTTP head")?;
    let mut headers = [httparse::EMPTY_HEADER; 64];
    let mut response = httparse::Response::new(&mut headers);
    response.parse(&buffer[..head_len]).map_err(|e| format!("malformed reply: {e}"))?;
    let status = response.code.unwrap_or(0);
    let text = String::from_utf8_lossy(&buffer[head_len..]).trim().to_string();
    if status != 200 {
        return Err(format!("the reply is HTTP {status}: {text}"));
    }
    let work = header(response.headers, WORK_HEADER).map(|v| String::from_utf8_lossy(v).trim().to_string());
    Ok(Reply { body: text, work })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_of_player_urls() {
        assert_eq!(address_of("http://127.0.0.1:9147/").unwrap(), "127.0.0.1:9147");
        assert_eq!(address_of("localhost:9000").unwrap(), "localhost:9000");
        assert_eq!(address_of("http://player.example").unwrap(), "player.example:80");
        assert!(address_of("https://x:1/").is_err());
        assert!(address_of("http:///").is_err());
    }
}

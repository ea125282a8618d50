//! Headless Chromium driven through the DevTools protocol, for the test of `gdlc view`'s pages:
//! finding (or installing, through `.ci/chromium`) the browser, a WebSocket client small enough
//! to write here, and the few commands the test needs: open a page, evaluate JavaScript, click
//! an element as a mouse does, and take a screenshot.

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The names Chromium goes by.
const NAMES: [&str; 3] = ["chromium", "chromium-browser", "google-chrome"];

/// The first Chromium on the PATH.
fn on_path() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).flat_map(|dir| NAMES.map(|n| dir.join(n))).find(|p| p.is_file())
}

/// Chromium, installed by `.ci/chromium` when it is missing; `Err` says why there is none.
pub(crate) fn chromium() -> Result<PathBuf, String> {
    if let Some(found) = on_path() {
        return Ok(found);
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../.ci/chromium");
    let out = Command::new(&script).output().map_err(|e| format!("{}: {e}", script.display()))?;
    if !out.status.success() {
        return Err(format!("{} failed: {}", script.display(), String::from_utf8_lossy(&out.stderr).trim()));
    }
    on_path().ok_or_else(|| "no chromium on the PATH after .ci/chromium".to_string())
}

/// A headless Chromium, killed when dropped.
pub(crate) struct Browser {
    child: Child,
    port: u16,
    profile: PathBuf,
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.profile);
    }
}

impl Browser {
    /// Starts `binary` headless with a window of `width` by `height` pixels.
    pub(crate) fn launch(binary: &Path, width: u32, height: u32) -> Browser {
        let profile = std::env::temp_dir().join(format!("gdlc-view-chromium-{}", std::process::id()));
        let mut child = Command::new(binary)
            .args(["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--hide-scrollbars"])
            .arg("--remote-debugging-port=0")
            .arg(format!("--user-data-dir={}", profile.display()))
            .arg(format!("--window-size={width},{height}"))
            .arg("about:blank")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("chromium starts");
        let mut lines = BufReader::new(child.stderr.take().expect("stderr is piped")).lines();
        let port = loop {
            let line = lines.next().expect("chromium says where DevTools listen").expect("stderr reads");
            if let Some(rest) = line.split("ws://127.0.0.1:").nth(1) {
                break rest.split('/').next().and_then(|p| p.parse().ok()).expect("a port");
            }
        };
        // The rest of its log is read and dropped, so that the pipe never fills.
        std::thread::spawn(move || lines.for_each(drop));
        Browser { child, port, profile }
    }

    /// The first page's DevTools connection.
    pub(crate) fn page(&self) -> Page {
        let list = http_get(self.port, "/json/list");
        let targets: Value = serde_json::from_str(&list).expect("the target list is JSON");
        let page = targets.as_array().and_then(|t| t.iter().find(|t| t["type"] == "page")).expect("a page");
        let url = page["webSocketDebuggerUrl"].as_str().expect("a WebSocket URL");
        let path = url.splitn(4, '/').nth(3).expect("a path");
        Page { socket: WebSocket::connect(self.port, &format!("/{path}")), next_id: 0 }
    }
}

/// The body of a plain HTTP GET to the browser, read to its `Content-Length` (DevTools keep
/// the connection open).
fn http_get(port: u16, path: &str) -> String {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("DevTools accept connections");
    stream.set_read_timeout(Some(Duration::from_secs(30))).expect("a timeout");
    write!(stream, "GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n").expect("sent");
    let mut reader = BufReader::new(stream);
    let mut length = 0;
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).expect("a header");
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':') {
            if name.eq_ignore_ascii_case("content-length") {
                length = value.trim().parse().expect("a length");
            }
        }
    }
    let mut body = vec![0u8; length];
    reader.read_exact(&mut body).expect("the body");
    String::from_utf8(body).expect("text")
}

/// A client WebSocket: text frames out (masked, as a client must send them), whole messages in.
struct WebSocket {
    stream: TcpStream,
}

impl WebSocket {
    fn connect(port: u16, path: &str) -> WebSocket {
        let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("DevTools accept connections");
        stream.set_read_timeout(Some(Duration::from_secs(30))).expect("a timeout");
        write!(
            stream,
            "GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
             Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        )
        .expect("sent");
        let mut head = Vec::new();
        let mut byte = [0u8];
        while !head.ends_with(b"\r\n\r\n") {
            stream.read_exact(&mut byte).expect("the handshake's answer");
            head.push(byte[0]);
        }
        let head = String::from_utf8_lossy(&head);
        assert!(head.starts_with("HTTP/1.1 101"), "{head}");
        WebSocket { stream }
    }

    fn send(&mut self, text: &str) {
        let payload = text.as_bytes();
        let mut frame = vec![0x81u8];
        match payload.len() {
            n if n < 126 => frame.push(0x80 | n as u8),
            n if n <= 0xffff => {
                frame.push(0x80 | 126);
                frame.extend_from_slice(&(n as u16).to_be_bytes());
            }
            n => {
                frame.push(0x80 | 127);
                frame.extend_from_slice(&(n as u64).to_be_bytes());
            }
        }
        let mask = [0x37u8, 0xfa, 0x21, 0x3d];
        frame.extend_from_slice(&mask);
        frame.extend(payload.iter().enumerate().map(|(i, b)| b ^ mask[i % 4]));
        self.stream.write_all(&frame).expect("sent");
    }

    fn receive(&mut self) -> String {
        let mut message = Vec::new();
        loop {
            let mut head = [0u8; 2];
            self.stream.read_exact(&mut head).expect("a frame");
            let length = match head[1] & 0x7f {
                126 => {
                    let mut n = [0u8; 2];
                    self.stream.read_exact(&mut n).expect("a length");
                    u64::from(u16::from_be_bytes(n))
                }
                127 => {
                    let mut n = [0u8; 8];
                    self.stream.read_exact(&mut n).expect("a length");
                    u64::from_be_bytes(n)
                }
                n => u64::from(n),
            };
            let mut payload = vec![0u8; length as usize];
            self.stream.read_exact(&mut payload).expect("a payload");
            let opcode = head[0] & 0x0f;
            if opcode == 0x9 || opcode == 0xa {
                continue;
            }
            message.extend_from_slice(&payload);
            if head[0] & 0x80 != 0 {
                return String::from_utf8(message).expect("text");
            }
        }
    }
}

/// One page of the browser, under the DevTools protocol.
pub(crate) struct Page {
    socket: WebSocket,
    next_id: u64,
}

impl Page {
    /// Calls a DevTools method and returns its result; events that arrive meanwhile are
    /// dropped.
    pub(crate) fn call(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.socket.send(&json!({ "id": id, "method": method, "params": params }).to_string());
        loop {
            let reply: Value = serde_json::from_str(&self.socket.receive()).expect("DevTools answer JSON");
            if reply["id"] == id {
                assert!(reply.get("error").is_none(), "{method}: {reply}");
                return reply["result"].clone();
            }
        }
    }

    /// The value of a JavaScript expression in the page.
    pub(crate) fn eval(&mut self, expression: &str) -> Value {
        let result = self.call("Runtime.evaluate", json!({ "expression": expression, "returnByValue": true }));
        assert!(result.get("exceptionDetails").is_none(), "{expression}: {result}");
        result["result"]["value"].clone()
    }

    /// Opens `url` and waits until `ready` (a JavaScript expression) is true.
    pub(crate) fn open(&mut self, url: &str, ready: &str) {
        self.call("Page.navigate", json!({ "url": url }));
        let deadline = Instant::now() + Duration::from_secs(20);
        while self.eval(&format!("document.readyState === 'complete' && Boolean({ready})")) != json!(true) {
            assert!(Instant::now() < deadline, "{url}: not ready: {ready}");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Clicks the middle of the element `selector` with the mouse's left button.
    pub(crate) fn click(&mut self, selector: &str) {
        let rect = self.eval(&format!(
            "(() => {{ const r = document.querySelector({selector:?}).getBoundingClientRect(); \
             return [r.x + r.width / 2, r.y + r.height / 2]; }})()"
        ));
        let (x, y) = (rect[0].as_f64().expect("x"), rect[1].as_f64().expect("y"));
        for kind in ["mousePressed", "mouseReleased"] {
            let event = json!({ "type": kind, "x": x, "y": y, "button": "left", "clickCount": 1 });
            self.call("Input.dispatchMouseEvent", event);
        }
    }

    /// A PNG of the page as drawn.
    pub(crate) fn screenshot(&mut self) -> Vec<u8> {
        let shot = self.call("Page.captureScreenshot", json!({ "format": "png" }));
        base64(shot["data"].as_str().expect("base64 data"))
    }
}

/// Decodes standard base64.
fn base64(text: &str) -> Vec<u8> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        _ => 63,
    };
    let digits: Vec<u8> = text.bytes().filter(|&c| c != b'=' && !c.is_ascii_whitespace()).map(value).collect();
    let mut out = Vec::with_capacity(digits.len() * 3 / 4);
    for chunk in digits.chunks(4) {
        let n = chunk.iter().enumerate().fold(0u32, |n, (i, &d)| n | u32::from(d) << (18 - 6 * i));
        out.extend_from_slice(&n.to_be_bytes()[1..chunk.len()]);
    }
    out
}

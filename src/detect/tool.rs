//! Running one vendor tool under a deadline: its output read on threads as it comes, so a
//! tool that hangs, floods its pipe or leaves a process holding it open never stalls
//! detection. Apart from the parsers, which only see the text a tool printed.

use std::io::Read;
use std::process::{Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// What one vendor tool gave.
pub(super) enum ToolRun {
    /// Not installed: no news worth a note.
    Missing,
    /// It ran and failed: hung, exited with an error, could not start. Why, in words.
    Failed(String),
    /// It exited successfully; its standard output, and a note when something was odd.
    Answered { stdout: String, note: Option<String> },
}

/// The most a tool may print before the rest is ignored.
const OUTPUT_CAP: usize = 1 << 20;

/// Read `pipe` on a thread, chunk by chunk: the caller takes what arrives until its own
/// deadline, so a pipe held open by someone else (a process the tool left behind) never
/// blocks it. The thread ends when the pipe closes or the caller stops listening.
fn stream<R: Read + Send + 'static>(mut pipe: R) -> Receiver<Vec<u8>> {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut buf = [0u8; 8192];
        let mut total = 0;
        while total < OUTPUT_CAP {
            match pipe.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => {
                    total += n;
                    if tx.send(buf[..n].to_vec()).is_err() {
                        break;
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => break,
            }
        }
    });
    rx
}

/// Everything `rx` delivers until its writer closes (true) or `deadline` passes (false).
fn drain(rx: &Receiver<Vec<u8>>, out: &mut Vec<u8>, deadline: Instant) -> bool {
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok(chunk) => {
                let room = OUTPUT_CAP.saturating_sub(out.len());
                out.extend_from_slice(&chunk[..chunk.len().min(room)]);
            }
            Err(RecvTimeoutError::Disconnected) => return true,
            Err(RecvTimeoutError::Timeout) => return false,
        }
    }
}

/// Run `program args`; `timeout` bounds the whole run, the reading of its output included.
pub(super) fn run_tool(program: &str, args: &[&str], timeout: Duration) -> ToolRun {
    let start = Instant::now();
    let mut child = match Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
    {
        Ok(c) => c,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return ToolRun::Missing,
        Err(e) => return ToolRun::Failed(format!("{program}: {e}")),
    };
    // Read on threads, so a tool that writes a lot cannot block on a full pipe.
    let (Some(stdout), Some(stderr)) = (child.stdout.take(), child.stderr.take()) else {
        let _ = child.kill();
        let _ = child.wait();
        return ToolRun::Failed(format!("{program}: no output pipe"));
    };
    let (out_rx, err_rx) = (stream(stdout), stream(stderr));
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let deadline = start + timeout;
    let status = loop {
        // Take output as it comes: a tool that fills its pipe must not stall.
        drain(&out_rx, &mut out, Instant::now());
        drain(&err_rx, &mut err, Instant::now());
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() >= deadline => {
                let _ = child.kill();
                let _ = child.wait();
                return ToolRun::Failed(format!(
                    "{program} did not answer within {} s",
                    timeout.as_secs_f64()
                ));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(e) => return ToolRun::Failed(format!("{program}: {e}")),
        }
    };
    // The tool has exited; what it wrote is in the pipes. A process it left behind may
    // hold them open (`sleep 30 &`): read until they close or the time is up, with a
    // moment's grace for a tool that exited just before the deadline.
    let until = deadline.max(Instant::now() + Duration::from_millis(200));
    let closed = drain(&out_rx, &mut out, until) & drain(&err_rx, &mut err, until);
    let text = String::from_utf8_lossy(&out).into_owned();
    if !status.success() {
        let said = format!("{} {}", text.trim(), String::from_utf8_lossy(&err).trim());
        let said = said.split_whitespace().collect::<Vec<_>>().join(" ");
        return ToolRun::Failed(if said.is_empty() {
            format!("{program} failed ({status}) without a message")
        } else {
            format!(
                "{program} failed ({status}): {}",
                crate::text::clean_prefix(&said, 200)
            )
        });
    }
    let note = (!closed).then(|| {
        format!("{program} exited but left a process holding its output; read what it wrote before it exited")
    });
    ToolRun::Answered { stdout: text, note }
}

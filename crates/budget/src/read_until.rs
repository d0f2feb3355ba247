//! Reading an input that may never send another byte (a pipe whose writer is silent) without
//! outliving a deadline. `read()` on a pipe blocks until data comes; nothing polled between
//! events can interrupt it. So the input is read on a thread of its own, and the reader
//! waits for its chunks only until the deadline; then it answers an error of kind
//! [`io::ErrorKind::TimedOut`]: the trace readers report it as their input's timeout, which a
//! pass takes as its budget's, and `lin` as a history not read.

use std::io::{self, Read};
use std::sync::mpsc::{sync_channel, Receiver, RecvTimeoutError};
use std::time::Instant;

/// How much the reading thread reads at a time, and how many chunks may wait for the reader:
/// what is held beyond the reader's own buffer is at most their product.
const CHUNK: usize = 64 << 10;
const CHUNKS_WAITING: usize = 4;

/// An input read on its own thread, given up at a deadline.
pub struct ReadUntil {
    chunks: Receiver<io::Result<Vec<u8>>>,
    deadline: Instant,
    /// The chunk being handed out, and how much of it has been.
    current: Vec<u8>,
    at: usize,
    ended: bool,
}

impl ReadUntil {
    /// Starts reading `input` on a thread. The thread ends when the input does, or at its
    /// next chunk once this reader is dropped; one blocked forever on a silent writer ends
    /// with the process.
    pub fn new(mut input: impl Read + Send + 'static, deadline: Instant) -> io::Result<ReadUntil> {
        let (send, chunks) = sync_channel(CHUNKS_WAITING);
        std::thread::Builder::new()
            .name("hindsight-read".into())
            .spawn(move || loop {
                let mut chunk = vec![0u8; CHUNK];
                let sent = match input.read(&mut chunk) {
                    Ok(0) => break,
                    Ok(n) => {
                        chunk.truncate(n);
                        send.send(Ok(chunk))
                    }
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Err(e) => {
                        let _ = send.send(Err(e));
                        break;
                    }
                };
                if sent.is_err() {
                    break; // nobody reads what comes
                }
            })?;
        Ok(ReadUntil {
            chunks,
            deadline,
            current: Vec::new(),
            at: 0,
            ended: false,
        })
    }
}

impl Read for ReadUntil {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.at == self.current.len() {
            if self.ended {
                return Ok(0);
            }
            let wait = self.deadline.saturating_duration_since(Instant::now());
            match self.chunks.recv_timeout(wait) {
                Ok(chunk) => {
                    self.current = chunk?;
                    self.at = 0;
                }
                Err(RecvTimeoutError::Disconnected) => self.ended = true,
                Err(RecvTimeoutError::Timeout) => {
                    return Err(io::Error::new(
                        io::ErrorKind::TimedOut,
                        "the deadline passed while waiting for input",
                    ))
                }
            }
        }
        let n = buf.len().min(self.current.len() - self.at);
        buf[..n].copy_from_slice(&self.current[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// A writer that sends some bytes and then nothing, never closing.
    struct SilentAfter(Option<Vec<u8>>);

    impl Read for SilentAfter {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            match self.0.take() {
                Some(bytes) => {
                    buf[..bytes.len()].copy_from_slice(&bytes);
                    Ok(bytes.len())
                }
                None => {
                    std::thread::sleep(Duration::from_secs(3600));
                    Ok(0)
                }
            }
        }
    }

    #[test]
    fn what_came_before_the_deadline_is_read_then_it_times_out() {
        let deadline = Instant::now() + Duration::from_millis(200);
        let mut r = ReadUntil::new(SilentAfter(Some(b"T1|w(x)\n".to_vec())), deadline).unwrap();
        let mut got = Vec::new();
        let e = r.read_to_end(&mut got).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::TimedOut);
        assert_eq!(got, b"T1|w(x)\n");
        assert!(Instant::now() >= deadline);
    }

    #[test]
    fn an_input_that_ends_is_read_whole() {
        let deadline = Instant::now() + Duration::from_secs(3600);
        let input = io::Cursor::new(vec![7u8; 3 * CHUNK + 5]);
        let mut got = Vec::new();
        ReadUntil::new(input, deadline)
            .unwrap()
            .read_to_end(&mut got)
            .unwrap();
        assert_eq!(got.len(), 3 * CHUNK + 5);
    }
}

//! Recording channels: std's `mpsc` channels carrying each value with the id of its message,
//! so that every `rcv(m)` names the `snd(m)` of the very value it received (one message id
//! per send; a shared id would order a receive after later sends too).

use super::recorder::{active, with_local, ObjName};
use hindsight_trace::{MsgId, Op};
use std::fmt;
use std::panic::Location;
use std::sync::mpsc as std_mpsc;
use std::sync::Arc;
use std::time::{Duration, Instant};

pub use std::sync::mpsc::{RecvError, RecvTimeoutError, TryRecvError};

/// The message id a value travels with: its session's generation and id; `None` when it was
/// sent while nothing recorded.
type Tag = Option<(u32, MsgId)>;

/// Records `snd` for a value about to be sent on the channel named `label`.
#[inline]
fn send_tag(label: &ObjName, loc: &'static Location<'static>) -> Tag {
    if !active() {
        return None;
    }
    with_local(|l| {
        let m = l.message(&label.label());
        l.push(Op::Send(m), Some(loc));
        (l.gen(), m)
    })
}

#[inline]
fn receive_tag(tag: Tag, loc: &'static Location<'static>) {
    if let Some((gen, m)) = tag {
        with_local(|l| {
            if l.gen() == gen {
                l.push(Op::Receive(m), Some(loc));
            }
        });
    }
}

/// `SendError` of std: the value that could not be sent.
pub use std::sync::mpsc::SendError;
pub use std::sync::mpsc::TrySendError;

pub struct Sender<T> {
    inner: std_mpsc::Sender<(T, Tag)>,
    label: Arc<ObjName>,
}

pub struct SyncSender<T> {
    inner: std_mpsc::SyncSender<(T, Tag)>,
    label: Arc<ObjName>,
}

pub struct Receiver<T> {
    inner: std_mpsc::Receiver<(T, Tag)>,
}

#[track_caller]
pub fn channel<T>() -> (Sender<T>, Receiver<T>) {
    let (tx, rx) = std_mpsc::channel();
    let label = Arc::new(ObjName::site(Location::caller()));
    (Sender { inner: tx, label }, Receiver { inner: rx })
}

#[track_caller]
pub fn sync_channel<T>(bound: usize) -> (SyncSender<T>, Receiver<T>) {
    let (tx, rx) = std_mpsc::sync_channel(bound);
    let label = Arc::new(ObjName::site(Location::caller()));
    (SyncSender { inner: tx, label }, Receiver { inner: rx })
}

impl<T> Sender<T> {
    #[track_caller]
    pub fn send(&self, t: T) -> Result<(), SendError<T>> {
        let tag = send_tag(&self.label, Location::caller());
        self.inner
            .send((t, tag))
            .map_err(|SendError((t, _))| SendError(t))
    }
}

impl<T> Clone for Sender<T> {
    fn clone(&self) -> Sender<T> {
        Sender {
            inner: self.inner.clone(),
            label: self.label.clone(),
        }
    }
}

impl<T> fmt::Debug for Sender<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Sender { .. }")
    }
}

impl<T> SyncSender<T> {
    #[track_caller]
    pub fn send(&self, t: T) -> Result<(), SendError<T>> {
        let tag = send_tag(&self.label, Location::caller());
        self.inner
            .send((t, tag))
            .map_err(|SendError((t, _))| SendError(t))
    }

    /// A value that could not be sent leaves a `snd` with no `rcv`, which orders nothing.
    #[track_caller]
    pub fn try_send(&self, t: T) -> Result<(), TrySendError<T>> {
        let tag = send_tag(&self.label, Location::caller());
        self.inner.try_send((t, tag)).map_err(|e| match e {
            TrySendError::Full((t, _)) => TrySendError::Full(t),
            TrySendError::Disconnected((t, _)) => TrySendError::Disconnected(t),
        })
    }
}

impl<T> Clone for SyncSender<T> {
    fn clone(&self) -> SyncSender<T> {
        SyncSender {
            inner: self.inner.clone(),
            label: self.label.clone(),
        }
    }
}

impl<T> fmt::Debug for SyncSender<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SyncSender { .. }")
    }
}

impl<T> Receiver<T> {
    #[track_caller]
    pub fn recv(&self) -> Result<T, RecvError> {
        let loc = Location::caller();
        let (t, tag) = self.inner.recv()?;
        receive_tag(tag, loc);
        Ok(t)
    }

    #[track_caller]
    pub fn try_recv(&self) -> Result<T, TryRecvError> {
        let loc = Location::caller();
        let (t, tag) = self.inner.try_recv()?;
        receive_tag(tag, loc);
        Ok(t)
    }

    #[track_caller]
    pub fn recv_timeout(&self, timeout: Duration) -> Result<T, RecvTimeoutError> {
        let loc = Location::caller();
        let (t, tag) = self.inner.recv_timeout(timeout)?;
        receive_tag(tag, loc);
        Ok(t)
    }

    #[track_caller]
    pub fn recv_deadline(&self, deadline: Instant) -> Result<T, RecvTimeoutError> {
        self.recv_timeout(deadline.saturating_duration_since(Instant::now()))
    }

    #[track_caller]
    pub fn iter(&self) -> Iter<'_, T> {
        Iter {
            rx: self,
            loc: Location::caller(),
        }
    }

    #[track_caller]
    pub fn try_iter(&self) -> TryIter<'_, T> {
        TryIter {
            rx: self,
            loc: Location::caller(),
        }
    }
}

impl<T> fmt::Debug for Receiver<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Receiver { .. }")
    }
}

/// Receives until every sender is gone; each value's `rcv` is located at the `iter()` call.
pub struct Iter<'a, T> {
    rx: &'a Receiver<T>,
    loc: &'static Location<'static>,
}

impl<T> Iterator for Iter<'_, T> {
    type Item = T;
    fn next(&mut self) -> Option<T> {
        let (t, tag) = self.rx.inner.recv().ok()?;
        receive_tag(tag, self.loc);
        Some(t)
    }
}

pub struct TryIter<'a, T> {
    rx: &'a Receiver<T>,
    loc: &'static Location<'static>,
}

impl<T> Iterator for TryIter<'_, T> {
    type Item = T;
    fn next(&mut self) -> Option<T> {
        let (t, tag) = self.rx.inner.try_recv().ok()?;
        receive_tag(tag, self.loc);
        Some(t)
    }
}

pub struct IntoIter<T> {
    rx: Receiver<T>,
}

impl<T> Iterator for IntoIter<T> {
    type Item = T;
    fn next(&mut self) -> Option<T> {
        let (t, tag) = self.rx.inner.recv().ok()?;
        receive_tag(tag, Location::caller());
        Some(t)
    }
}

impl<T> IntoIterator for Receiver<T> {
    type Item = T;
    type IntoIter = IntoIter<T>;
    fn into_iter(self) -> IntoIter<T> {
        IntoIter { rx: self }
    }
}

impl<'a, T> IntoIterator for &'a Receiver<T> {
    type Item = T;
    type IntoIter = Iter<'a, T>;
    #[track_caller]
    fn into_iter(self) -> Iter<'a, T> {
        self.iter()
    }
}

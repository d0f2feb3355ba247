//! The budget of one run: a deadline and a memory limit that every search of hindsight polls,
//! and the meters (states counted, share of the work done, memory held) its progress is drawn
//! from.
//!
//! A [`Budget`] is made once per command from [`Limits`] (parsed by [`parse_timeout`] and
//! [`parse_size`], defaulting to [`default_memory_limit`]) and lent to the library entry point,
//! which hands it to every search it runs, on every thread: it is `Sync`, its counters atomic.
//! Hot loops poll it through a [`Meter`], which reads the clock once every [`CHECK_EVERY`]
//! steps; memory is not measured but accounted by the structures that grow (a BFS level, a
//! memo, the findings kept), each through an [`Account`] that charges the one shared total in
//! granules and gives its share back when dropped. Once any limit is reached the budget stays
//! spent, so every search sharing it stops at its next poll and the run reports *unknown*.
//!
//! This crate depends on nothing. It knows no search, no report and no command line: it is a
//! clock, some counters, the two parsers every command shares, and a reader that gives up at
//! a deadline ([`ReadUntil`]) for inputs that may never send another byte.

mod read_until;

pub use read_until::ReadUntil;

use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};
use std::time::{Duration, Instant};

/// The longest timeout an option may ask for: about 31 years, far beyond any run, and short
/// enough that adding it to the clock cannot overflow.
pub const MAX_TIMEOUT_SECONDS: f64 = 1e9;

/// How many steps a [`Meter`] counts between two polls of the clock: enough that reading the
/// clock costs nothing measurable, few enough that the slowest step of any search (a
/// composed-operation check, a reach decision) still polls many times a second.
pub const CHECK_EVERY: u64 = 1024;

/// The size by which an [`Account`] charges the shared total: shared counters are touched once
/// per granule of growth, not once per state.
pub const GRANULE: u64 = 64 << 10;

/// The share of the machine's memory a run may account for when no `--memory-limit` is given.
const DEFAULT_SHARE: u64 = 2;

/// The default limit where the machine's memory cannot be read.
const FALLBACK_MEMORY: u64 = 4 << 30;

/// What a run may spend.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Wall-clock time from the budget's start; `None`: no deadline.
    pub timeout: Option<Duration>,
    /// Bytes the growing structures of the run may account for together.
    pub memory: u64,
}

impl Limits {
    /// The limits of the options `--timeout` and `--memory-limit`, the memory limit defaulting
    /// to [`default_memory_limit`].
    pub fn new(timeout: Option<Duration>, memory: Option<u64>) -> Limits {
        Limits {
            timeout,
            memory: memory.unwrap_or_else(default_memory_limit),
        }
    }

    /// No deadline, no memory limit (tests, benches, library callers that bound nothing).
    pub fn unlimited() -> Limits {
        Limits {
            timeout: None,
            memory: u64::MAX,
        }
    }
}

/// Which limit was reached.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Spent {
    Time,
    Memory,
}

impl Spent {
    /// The name reports give it: the option that set the limit.
    pub fn name(self) -> &'static str {
        match self {
            Spent::Time => "timeout",
            Spent::Memory => "memory-limit",
        }
    }
}

const NOT_SPENT: u8 = 0;
const SPENT_TIME: u8 = 1;
const SPENT_MEMORY: u8 = 2;

/// The budget of one run, shared by every search and thread of it.
#[derive(Debug)]
pub struct Budget {
    limits: Limits,
    started: Instant,
    deadline: Option<Instant>,
    spent: AtomicU8,
    /// Bytes charged by the accounts alive.
    held: AtomicU64,
    /// The most ever held at once.
    peak: AtomicU64,
    /// Steps (states, in most searches) counted by meters.
    steps: AtomicU64,
    /// Units of work done, of `total` (intervals, parts, operations): the share done.
    done: AtomicU64,
    total: AtomicU64,
}

impl Budget {
    /// A budget of `limits`; its clock starts now.
    pub fn new(limits: Limits) -> Budget {
        let started = Instant::now();
        Budget {
            limits,
            started,
            deadline: limits.timeout.and_then(|t| started.checked_add(t)),
            spent: AtomicU8::new(NOT_SPENT),
            held: AtomicU64::new(0),
            peak: AtomicU64::new(0),
            steps: AtomicU64::new(0),
            done: AtomicU64::new(0),
            total: AtomicU64::new(0),
        }
    }

    /// A budget that never runs out.
    pub fn unlimited() -> Budget {
        Budget::new(Limits::unlimited())
    }

    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// When the timeout runs out, if there is one.
    pub fn deadline(&self) -> Option<Instant> {
        self.deadline
    }

    /// Time since the budget started.
    pub fn elapsed(&self) -> Duration {
        self.started.elapsed()
    }

    /// The limit reached, if one was.
    pub fn spent(&self) -> Option<Spent> {
        match self.spent.load(Ordering::Relaxed) {
            SPENT_TIME => Some(Spent::Time),
            SPENT_MEMORY => Some(Spent::Memory),
            _ => None,
        }
    }

    /// Marks the budget spent (the first limit reached is the one reported).
    fn mark(&self, spent: Spent) -> Spent {
        let code = match spent {
            Spent::Time => SPENT_TIME,
            Spent::Memory => SPENT_MEMORY,
        };
        match self
            .spent
            .compare_exchange(NOT_SPENT, code, Ordering::Relaxed, Ordering::Relaxed)
        {
            Ok(_) => spent,
            Err(_) => self.spent().unwrap_or(spent),
        }
    }

    /// Whether the run may go on: an error once a limit has been reached, by this poll or any
    /// other. Reads the clock: hot loops call it through a [`Meter`].
    pub fn check(&self) -> Result<(), Spent> {
        if let Some(spent) = self.spent() {
            return Err(spent);
        }
        match self.deadline {
            Some(d) if Instant::now() >= d => Err(self.mark(Spent::Time)),
            _ => Ok(()),
        }
    }

    /// [`Budget::check`] with the clock read already.
    fn check_at(&self, now: Instant) -> Result<(), Spent> {
        if let Some(spent) = self.spent() {
            return Err(spent);
        }
        match self.deadline {
            Some(d) if now >= d => Err(self.mark(Spent::Time)),
            _ => Ok(()),
        }
    }

    /// Charges `bytes` more to the shared total; an error (and the budget spent) if that goes
    /// past the limit. The bytes stay charged either way: the caller's [`Account`] gives them
    /// back.
    fn charge(&self, bytes: u64) -> Result<(), Spent> {
        let held = self.held.fetch_add(bytes, Ordering::Relaxed) + bytes;
        self.peak.fetch_max(held, Ordering::Relaxed);
        if held > self.limits.memory {
            return Err(self.mark(Spent::Memory));
        }
        match self.spent() {
            Some(spent) => Err(spent),
            None => Ok(()),
        }
    }

    fn release(&self, bytes: u64) {
        self.held.fetch_sub(bytes, Ordering::Relaxed);
    }

    /// Counts `n` more steps without polling (a search that polls otherwise).
    pub fn add_steps(&self, n: u64) {
        self.steps.fetch_add(n, Ordering::Relaxed);
    }

    /// Announces `n` more units of work to do (intervals, parts, operations).
    pub fn add_total(&self, n: u64) {
        self.total.fetch_add(n, Ordering::Relaxed);
    }

    /// Counts `n` units of work done.
    pub fn add_done(&self, n: u64) {
        self.done.fetch_add(n, Ordering::Relaxed);
    }

    /// What the meters read now.
    pub fn reading(&self) -> Reading {
        Reading {
            elapsed: self.elapsed(),
            steps: self.steps.load(Ordering::Relaxed),
            done: self.done.load(Ordering::Relaxed),
            total: self.total.load(Ordering::Relaxed),
            held: self.held.load(Ordering::Relaxed),
            peak: self.peak.load(Ordering::Relaxed),
        }
    }
}

/// The meters of a [`Budget`] at one moment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reading {
    pub elapsed: Duration,
    /// Steps counted so far (states, in most searches).
    pub steps: u64,
    /// Units of work done, of `total` (0: the search announced none).
    pub done: u64,
    pub total: u64,
    /// Bytes accounted now, and the most at once.
    pub held: u64,
    pub peak: u64,
}

impl Reading {
    /// The share of the announced work done, from 0 to 1, if any was announced.
    pub fn share_done(&self) -> Option<f64> {
        (self.total > 0).then(|| (self.done as f64 / self.total as f64).min(1.0))
    }
}

/// Counts the steps of one loop on one thread and polls the budget every [`CHECK_EVERY`]
/// of them, or sooner where steps are slow: when the steps between two polls took longer than
/// [`POLL_GAP`], the meter polls after fewer steps (down to every step), and back up to
/// [`CHECK_EVERY`] as they speed up again, so that a loop whose steps grow costly (an access
/// checked against a hundred thousand threads) still sees its deadline on time. The steps not
/// yet added to the budget are added when it is dropped.
#[derive(Debug)]
pub struct Meter<'a> {
    budget: &'a Budget,
    unpolled: u64,
    /// Steps between two polls.
    every: u64,
    last_poll: Option<Instant>,
}

/// The longest a [`Meter`] aims to go without reading the clock.
pub const POLL_GAP: Duration = Duration::from_millis(10);

impl<'a> Meter<'a> {
    pub fn new(budget: &'a Budget) -> Meter<'a> {
        Meter {
            budget,
            unpolled: 0,
            every: CHECK_EVERY,
            last_poll: None,
        }
    }

    /// One more step: an error once the budget is spent (seen at most [`CHECK_EVERY`] steps
    /// late, and about [`POLL_GAP`] late when steps are slow).
    #[inline(always)]
    pub fn step(&mut self) -> Result<(), Spent> {
        self.unpolled += 1;
        if self.unpolled >= self.every {
            return self.poll();
        }
        Ok(())
    }

    /// One step that costs as much as a thousand ordinary ones (a normalization of a loset, a
    /// decision with a search of its own): counted, and the budget polled at once.
    #[inline]
    pub fn heavy_step(&mut self) -> Result<(), Spent> {
        self.unpolled += 1;
        self.poll()
    }

    /// Adds the steps counted to the budget and polls it now.
    #[cold]
    #[inline(never)]
    pub fn poll(&mut self) -> Result<(), Spent> {
        self.budget.add_steps(self.unpolled);
        self.unpolled = 0;
        let now = Instant::now();
        if let Some(last) = self.last_poll {
            let gap = now.saturating_duration_since(last);
            if gap > POLL_GAP {
                self.every = (self.every / 8).max(1);
            } else if gap < POLL_GAP / 8 && self.every < CHECK_EVERY {
                self.every = (self.every * 2).min(CHECK_EVERY);
            }
        }
        self.last_poll = Some(now);
        self.budget.check_at(now)
    }

    /// Whether the last step polled the budget: the moment for the loop's rarer duties (saying
    /// how much memory it holds, say).
    #[inline(always)]
    pub fn polled(&self) -> bool {
        self.unpolled == 0
    }

    pub fn budget(&self) -> &'a Budget {
        self.budget
    }
}

impl Drop for Meter<'_> {
    fn drop(&mut self) {
        self.budget.add_steps(self.unpolled);
    }
}

/// The memory one growing structure accounts for in a [`Budget`]: it says how many bytes it
/// holds as it grows ([`Account::hold`]), and gives them all back when dropped.
#[derive(Debug)]
pub struct Account<'a> {
    budget: &'a Budget,
    /// Bytes charged to the budget: what is held, rounded up to a granule.
    charged: u64,
}

impl<'a> Account<'a> {
    pub fn new(budget: &'a Budget) -> Account<'a> {
        Account { budget, charged: 0 }
    }

    /// The structure now holds `bytes`: an error (and the budget spent) if the run's total
    /// goes past its limit. Cheap while `bytes` stays within the granule already charged.
    #[inline]
    pub fn hold(&mut self, bytes: u64) -> Result<(), Spent> {
        if bytes <= self.charged {
            return Ok(());
        }
        self.grow(bytes)
    }

    #[cold]
    #[inline(never)]
    fn grow(&mut self, bytes: u64) -> Result<(), Spent> {
        let target = bytes.div_ceil(GRANULE).saturating_mul(GRANULE);
        let more = target - self.charged;
        self.charged = target;
        self.budget.charge(more)
    }

    /// The structure shrank or was emptied: gives back what it no longer holds (whole
    /// granules).
    pub fn shrink(&mut self, bytes: u64) {
        let target = bytes.div_ceil(GRANULE).saturating_mul(GRANULE);
        if target < self.charged {
            self.budget.release(self.charged - target);
            self.charged = target;
        }
    }

    /// Bytes charged (held, rounded up to a granule).
    pub fn charged(&self) -> u64 {
        self.charged
    }

    /// The budget the account charges.
    pub fn budget(&self) -> &'a Budget {
        self.budget
    }

    /// Room for `more` elements in `v`, charged before it is allocated: when `v` lacks it, the
    /// vector grows to twice its capacity (or what `more` needs), `besides` (what the
    /// structure holds beside `v`) plus the grown vector's bytes are held, and only then is the
    /// memory reserved, fallibly. An error (and the budget spent) when the limit or the
    /// allocator refuses; `v` is then unchanged.
    pub fn reserve<T>(&mut self, v: &mut Vec<T>, more: usize, besides: u64) -> Result<(), Spent> {
        if v.capacity() - v.len() >= more {
            return Ok(());
        }
        let needed = v.len().saturating_add(more);
        let capacity = needed.max(v.capacity().saturating_mul(2)).max(4);
        let bytes = (capacity as u64)
            .saturating_mul(std::mem::size_of::<T>() as u64)
            .saturating_add(besides);
        self.hold_within(bytes)?;
        v.try_reserve_exact(capacity - v.len())
            .map_err(|_| self.out_of_memory())
    }

    /// [`Account::hold`] of a size that may be past any limit (computed from an input): an
    /// error without charging it when it alone is past the limit.
    pub fn hold_within(&mut self, bytes: u64) -> Result<(), Spent> {
        if bytes > self.budget.limits.memory {
            return Err(self.out_of_memory());
        }
        self.hold(bytes)
    }

    /// The allocator refused memory the account had charged (or a size alone is past the
    /// limit): the budget is spent as if its memory limit had been reached.
    #[cold]
    pub fn out_of_memory(&self) -> Spent {
        self.budget.mark(Spent::Memory)
    }
}

impl Drop for Account<'_> {
    fn drop(&mut self) {
        self.budget.release(self.charged);
    }
}

/// `--timeout S`: a finite number of seconds from 0 to [`MAX_TIMEOUT_SECONDS`].
pub fn parse_timeout(s: &str) -> Result<Duration, String> {
    match s.trim().parse::<f64>() {
        Ok(t) if (0.0..=MAX_TIMEOUT_SECONDS).contains(&t) => Ok(Duration::from_secs_f64(t)),
        _ => Err(format!(
            "a timeout is a number of seconds from 0 to 1e9, not `{s}`"
        )),
    }
}

/// `--memory-limit SIZE`: a number of bytes, optionally followed by `K`, `M`, `G` or `T`
/// (powers of 1024, with or without `B` or `iB`, any case): `512M`, `4G`, `1000000`. At least
/// one byte; at most what 64 bits count.
pub fn parse_size(s: &str) -> Result<u64, String> {
    let bad = || {
        format!("a memory size is a number of bytes with an optional K, M, G or T (e.g. 512M, 4G), not `{s}`")
    };
    let t = s.trim();
    let digits = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    if digits == 0 {
        return Err(bad());
    }
    let number: u64 = t[..digits].parse().map_err(|_| bad())?;
    let unit = t[digits..].trim().to_ascii_lowercase();
    let shift = match unit.as_str() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        "t" | "tb" | "tib" => 40,
        _ => return Err(bad()),
    };
    let bytes = number
        .checked_mul(1u64 << shift)
        .ok_or_else(|| format!("a memory size is at most 16 EiB, not `{s}`"))?;
    if bytes == 0 {
        return Err(format!("a memory limit is at least one byte, not `{s}`"));
    }
    Ok(bytes)
}

/// A size as people read it: `512 MiB`, `3.8 GiB`, `900 B`.
pub fn show_size(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 || value.fract() == 0.0 {
        format!("{value:.0} {}", UNITS[unit])
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

/// The memory a run may account for without `--memory-limit`: half of what the machine, the
/// control group the process runs in or its address-space limit allows, whichever is
/// smallest (half, since the account is not all the process holds: the input, thread stacks
/// and the allocator's arenas come on top); 4 GiB where none can be read.
pub fn default_memory_limit() -> u64 {
    match machine_memory() {
        Some(bytes) => bytes / DEFAULT_SHARE,
        None => FALLBACK_MEMORY,
    }
}

/// The memory this process can use at most: the machine's (Linux's `/proc/meminfo`), its
/// control group's limit (cgroup v2 `memory.max`, v1 `memory.limit_in_bytes`) or its
/// address-space limit (`ulimit -v`, `RLIMIT_AS`, read from `/proc/self/limits`), whichever is
/// smallest. `None` where none can be read (other systems).
pub fn machine_memory() -> Option<u64> {
    let total = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|text| mem_total(&text));
    let address_space = std::fs::read_to_string("/proc/self/limits")
        .ok()
        .and_then(|text| address_space_limit(&text));
    let total = match (total, address_space) {
        (Some(t), Some(a)) => Some(t.min(a)),
        (t, a) => t.or(a),
    };
    let group = [
        "/sys/fs/cgroup/memory.max",
        "/sys/fs/cgroup/memory/memory.limit_in_bytes",
    ]
    .iter()
    .filter_map(|path| std::fs::read_to_string(path).ok())
    .filter_map(|text| text.trim().parse::<u64>().ok())
    .min();
    match (total, group) {
        (Some(t), Some(g)) => Some(t.min(g)),
        (t, g) => t.or(g),
    }
}

/// The soft address-space limit of a `/proc/self/limits` text, in bytes; `None` when it is
/// `unlimited`. A process under `ulimit -v` fails to allocate past it, whatever the machine
/// has: the run must stop at its budget well before.
fn address_space_limit(limits: &str) -> Option<u64> {
    let line = limits
        .lines()
        .find(|l| l.starts_with("Max address space"))?;
    line["Max address space".len()..]
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// `MemTotal` of a `/proc/meminfo` text, in bytes.
fn mem_total(meminfo: &str) -> Option<u64> {
    let line = meminfo.lines().find(|l| l.starts_with("MemTotal:"))?;
    let mut words = line["MemTotal:".len()..].split_whitespace();
    let number: u64 = words.next()?.parse().ok()?;
    match words.next() {
        Some("kB") => number.checked_mul(1024),
        None => Some(number),
        Some(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_with_binary_units() {
        assert_eq!(parse_size("512M"), Ok(512 << 20));
        assert_eq!(parse_size("4G"), Ok(4 << 30));
        assert_eq!(parse_size("4g"), Ok(4 << 30));
        assert_eq!(parse_size("4GiB"), Ok(4 << 30));
        assert_eq!(parse_size("4GB"), Ok(4 << 30));
        assert_eq!(parse_size("1000000"), Ok(1_000_000));
        assert_eq!(parse_size("100B"), Ok(100));
        assert_eq!(parse_size("2 T"), Ok(2 << 40));
        assert_eq!(parse_size("64K"), Ok(64 << 10));
    }

    #[test]
    fn bad_sizes_are_refused() {
        for bad in [
            "", "M", "-1", "1.5G", "4X", "4GG", "4Gi B", "4 G B", "0", "0M", "4KiBB", "4ii", "1e9",
            "NaN", "inf",
        ] {
            assert!(parse_size(bad).is_err(), "{bad:?} parsed");
        }
        let huge = parse_size("16777216T").unwrap_err();
        assert!(huge.contains("at most"), "{huge}");
        let zero = parse_size("0").unwrap_err();
        assert!(zero.contains("at least one byte"), "{zero}");
    }

    #[test]
    fn timeouts_are_finite_and_in_range() {
        assert_eq!(parse_timeout("5"), Ok(Duration::from_secs(5)));
        assert_eq!(parse_timeout("0.001"), Ok(Duration::from_millis(1)));
        assert_eq!(parse_timeout("0"), Ok(Duration::ZERO));
        assert!(parse_timeout("1e9").is_ok());
        for bad in [
            "1e300",
            "NaN",
            "inf",
            "-inf",
            "-1",
            "",
            "5s",
            "1e9.5",
            "1.0000001e9",
        ] {
            assert!(parse_timeout(bad).is_err(), "{bad:?} parsed");
        }
    }

    #[test]
    fn meminfo_total_is_read_in_bytes() {
        let text = "MemTotal:       16303448 kB\nMemFree:         1234 kB\n";
        assert_eq!(mem_total(text), Some(16303448 * 1024));
        assert_eq!(mem_total("MemFree: 1 kB\n"), None);
        assert_eq!(mem_total("MemTotal: x kB\n"), None);
    }

    #[test]
    fn the_address_space_limit_is_read_in_bytes() {
        let text = "Limit                     Soft Limit           Hard Limit           Units     \n\
                    Max stack size            8388608              unlimited            bytes     \n\
                    Max address space         4096000000           unlimited            bytes     \n";
        assert_eq!(address_space_limit(text), Some(4_096_000_000));
        let text = "Max address space         unlimited            unlimited            bytes\n";
        assert_eq!(address_space_limit(text), None);
        assert_eq!(
            address_space_limit("Max open files 1024 1024 files\n"),
            None
        );
    }

    #[test]
    fn the_default_limit_is_a_share_of_the_machine() {
        let limit = default_memory_limit();
        match machine_memory() {
            Some(m) => assert_eq!(limit, m / DEFAULT_SHARE),
            None => assert_eq!(limit, FALLBACK_MEMORY),
        }
        assert!(limit > 0);
    }

    #[test]
    fn a_zero_timeout_is_spent_at_the_first_poll() {
        let b = Budget::new(Limits {
            timeout: Some(Duration::ZERO),
            memory: u64::MAX,
        });
        assert_eq!(b.check(), Err(Spent::Time));
        assert_eq!(b.spent(), Some(Spent::Time));
    }

    #[test]
    fn meters_poll_every_check_every_steps_and_count_them() {
        let b = Budget::new(Limits {
            timeout: Some(Duration::ZERO),
            memory: u64::MAX,
        });
        let mut m = Meter::new(&b);
        for _ in 1..CHECK_EVERY {
            assert_eq!(m.step(), Ok(()));
        }
        assert_eq!(m.step(), Err(Spent::Time));
        assert_eq!(b.reading().steps, CHECK_EVERY);
        m.step().ok();
        drop(m);
        assert_eq!(b.reading().steps, CHECK_EVERY + 1);
    }

    #[test]
    fn accounts_share_one_limit_and_give_back_on_drop() {
        let b = Budget::new(Limits {
            timeout: None,
            memory: 3 * GRANULE,
        });
        let mut x = Account::new(&b);
        let mut y = Account::new(&b);
        assert_eq!(x.hold(1), Ok(()));
        assert_eq!(x.charged(), GRANULE);
        assert_eq!(x.hold(GRANULE), Ok(()));
        assert_eq!(y.hold(2 * GRANULE), Ok(()));
        assert_eq!(b.reading().held, 3 * GRANULE);
        // Neither alone is past the limit; together they are.
        assert_eq!(x.hold(GRANULE + 1), Err(Spent::Memory));
        assert_eq!(b.spent(), Some(Spent::Memory));
        // Once spent, every account and poll sees it.
        assert_eq!(b.check(), Err(Spent::Memory));
        drop(x);
        drop(y);
        assert_eq!(b.reading().held, 0);
        assert_eq!(b.reading().peak, 4 * GRANULE);
    }

    #[test]
    fn the_first_limit_reached_is_the_one_reported() {
        let b = Budget::new(Limits {
            timeout: Some(Duration::ZERO),
            memory: 1,
        });
        let mut a = Account::new(&b);
        assert_eq!(a.hold(10), Err(Spent::Memory));
        assert_eq!(b.check(), Err(Spent::Memory));
    }

    #[test]
    fn reserving_charges_the_grown_vector_before_allocating_it() {
        let b = Budget::new(Limits {
            timeout: None,
            memory: 4 * GRANULE,
        });
        let mut a = Account::new(&b);
        let mut v: Vec<u64> = Vec::new();
        // Room for one: four at least, charged as one granule.
        assert_eq!(a.reserve(&mut v, 1, 0), Ok(()));
        assert!(v.capacity() >= 4);
        assert_eq!(a.charged(), GRANULE);
        // Grown by doubling until the next doubling would pass the limit.
        let mut refused = None;
        for i in 0..1_000_000u64 {
            if let Err(spent) = a.reserve(&mut v, 1, GRANULE) {
                refused = Some(spent);
                break;
            }
            v.push(i);
        }
        assert_eq!(refused, Some(Spent::Memory));
        assert_eq!(b.spent(), Some(Spent::Memory));
        // Never allocated past what was charged, and the refused growth left `v` as it was.
        assert!(v.capacity() as u64 * 8 + GRANULE <= 4 * GRANULE);
        assert_eq!(v.len(), v.capacity());
    }

    #[test]
    fn a_size_past_every_limit_is_refused_without_charging() {
        let b = Budget::new(Limits {
            timeout: None,
            memory: GRANULE,
        });
        let mut a = Account::new(&b);
        let mut v: Vec<[u8; 1024]> = Vec::new();
        assert_eq!(a.reserve(&mut v, usize::MAX / 2, 0), Err(Spent::Memory));
        assert_eq!(a.hold_within(u64::MAX), Err(Spent::Memory));
        assert_eq!(b.reading().held, 0);
        assert_eq!(v.capacity(), 0);
    }

    #[test]
    fn shrinking_gives_back_whole_granules() {
        let b = Budget::unlimited();
        let mut a = Account::new(&b);
        a.hold(5 * GRANULE).unwrap();
        a.shrink(GRANULE + 1);
        assert_eq!(b.reading().held, 2 * GRANULE);
        a.shrink(0);
        assert_eq!(b.reading().held, 0);
    }

    #[test]
    fn shares_done_follow_the_announced_work() {
        let b = Budget::unlimited();
        assert_eq!(b.reading().share_done(), None);
        b.add_total(4);
        b.add_done(1);
        assert_eq!(b.reading().share_done(), Some(0.25));
    }

    #[test]
    fn sizes_show_in_binary_units() {
        assert_eq!(show_size(512 << 20), "512 MiB");
        assert_eq!(show_size(900), "900 B");
        assert_eq!(show_size(3 << 29), "1.5 GiB");
    }
}

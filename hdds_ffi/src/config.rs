//! The settings a participant takes from its environment, read each time one is created:
//! `HDDS_CONFIG` (the path of a configuration file) and `HDDS_TRANSPORT` (which paths user data may
//! take; it overrides the file's `transport`). The engine itself reads no environment variable:
//! this module turns both into [`ParticipantConfig`] / [`NetworkConfig`] fields.
//!
//! The file holds one `key = value` per line; `#` starts a comment (to the end of the line), blank
//! lines are skipped, keys are the ones [`KEYS`] lists, each at most once. Numbers may contain `_`
//! and sizes may end in `KiB`, `MiB` or `GiB`. Anything else — an unknown key, a value out of
//! range, a line without `=`, a file that cannot be read — fails participant creation with a
//! message naming the file, the line and the key: a setting is never silently ignored.
//!
//! A value of `HDDS_CONFIG` that contains `=` is the configuration itself rather than a path, its
//! entries separated by `;` (`HDDS_CONFIG='wait.spin_us = busy; shm.slots = 256'`): handy for one
//! run; messages then name the entry.
//!
//! ```text
//! transport = intra,shm,udp
//! shm.segment_bytes = 128MiB
//! shm.slots = 64
//! limits.max_remote_participants = 4096
//! ```

use std::time::Duration;

use hdds_core::{Error, NetworkConfig, ParticipantConfig, Result};

/// The environment variable naming the configuration file.
pub const CONFIG_VARIABLE: &str = "HDDS_CONFIG";
/// The environment variable listing the transports.
pub const TRANSPORT_VARIABLE: &str = "HDDS_TRANSPORT";

/// The longest short spin (`wait.spin_us`): beyond it a waiting thread should sleep, or busy-poll
/// (`busy`: ParticipantConfig::busy_polling).
const MAX_SPIN_US: u64 = 1000;

/// Every key the file may hold, with what it sets (README.md's configuration section says more).
pub const KEYS: &[(&str, &str)] = &[
    ("transport", "comma-separated list of intra, shm, udp (HDDS_TRANSPORT overrides it)"),
    ("shm.segment_bytes", "payload bytes of each writer's ring: the largest sample shared memory carries"),
    ("shm.slots", "sample slots per writer ring"),
    ("shm.max_readers", "same-host readers one writer's ring can serve"),
    (
        "wait.spin_us",
        "microseconds a waiting thread spins before sleeping, while samples come often (0 to 1000), or busy",
    ),
    (
        "wait.yield_after_wake",
        "true or false: a write that woke a sleeping reader thread of this process yields the CPU to it",
    ),
    (
        "wait.wake_slice_us",
        "scheduler slice a thread waiting on the shared-memory doorbell asks for, so that a write's wake-up runs \
         it at once: 0 (off) or 100 to 100000",
    ),
    ("shm.handoff_us", "microseconds a sample may wait for the application thread that drains it (0 to 100000)"),
    ("limits.max_remote_participants", "remote participants kept; more are dropped and counted"),
    ("limits.max_remote_endpoints", "remote writers and readers kept; more are dropped and counted"),
    ("limits.keep_all_max_samples", "history cap of KEEP_ALL writers and readers"),
    ("limits.reassembly_max_sample_bytes", "largest sample a reader reassembles from fragments"),
    ("limits.reassembly_max_samples", "samples in reassembly at once, per reader"),
    ("limits.reassembly_max_samples_per_writer", "samples in reassembly at once, per reader and remote writer"),
    ("limits.reassembly_max_bytes", "bytes in reassembly at once, per reader"),
];

/// The paths user data may take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Transports {
    pub intra: bool,
    pub shm: bool,
    pub udp: bool,
}

impl Default for Transports {
    fn default() -> Self {
        Transports { intra: true, shm: true, udp: true }
    }
}

impl Transports {
    /// Parses a list such as `intra,udp`; `what` names its origin in the error.
    fn parse(v: &str, what: &str) -> Result<Transports> {
        let mut t = Transports { intra: false, shm: false, udp: false };
        for word in v.split(',').map(str::trim).filter(|w| !w.is_empty()) {
            match word.to_ascii_lowercase().as_str() {
                "intra" => t.intra = true,
                "shm" => t.shm = true,
                "udp" => t.udp = true,
                other => {
                    return Err(Error::bad_argument(format!(
                        "{what}: unknown transport {other:?}; use a comma-separated list of intra, shm, udp (or \
                         leave it unset for all three)"
                    )))
                }
            }
        }
        Ok(t)
    }

    /// Checks that a participant with (`network`) or without network can work with these paths.
    pub fn check(&self, network: bool, origin: &str) -> Result<()> {
        if network && !self.udp {
            return Err(Error::bad_argument(format!(
                "{origin} leaves out udp, which discovery and peers on other hosts need: add udp to the list"
            )));
        }
        if !network && !self.intra {
            return Err(Error::bad_argument(format!(
                "{origin} leaves out intra, the only path of a participant without network: add intra, or create \
                 the participant with config->network = true"
            )));
        }
        Ok(())
    }
}

/// What the file and `HDDS_TRANSPORT` say; `None`: not set, the engine's default stands.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Settings {
    pub transports: Transports,
    /// Where `transports` came from, for messages: `HDDS_TRANSPORT`, the file's line, or the default.
    pub transports_origin: String,
    pub shm_segment_bytes: Option<usize>,
    pub shm_slots: Option<usize>,
    pub shm_max_readers: Option<usize>,
    pub wait_spin: Option<Duration>,
    pub yield_after_wake: Option<bool>,
    pub wake_slice: Option<Duration>,
    pub shm_handoff: Option<Duration>,
    pub max_remote_participants: Option<usize>,
    pub max_remote_endpoints: Option<usize>,
    pub keep_all_max_samples: Option<usize>,
    pub reassembly_max_sample_bytes: Option<usize>,
    pub reassembly_max_samples: Option<usize>,
    pub reassembly_max_samples_per_writer: Option<usize>,
    pub reassembly_max_bytes: Option<usize>,
}

/// Reads `HDDS_CONFIG` (if set and not empty) and `HDDS_TRANSPORT` from the environment.
pub fn from_env() -> Result<Settings> {
    let path = env(CONFIG_VARIABLE)?;
    let mut s = match path.as_deref() {
        Some(inline) if inline.contains('=') => {
            parse_in(&inline.replace(';', "\n"), &format!("{CONFIG_VARIABLE} (inline)"), "entry")?
        }
        Some(p) => {
            let text = std::fs::read_to_string(p).map_err(|e| {
                Error::bad_argument(format!(
                    "{CONFIG_VARIABLE}={p}: cannot read the configuration file ({e}); fix the path or unset \
                     {CONFIG_VARIABLE}"
                ))
            })?;
            parse(&text, p)?
        }
        None => Settings::default(),
    };
    if let Some(v) = env(TRANSPORT_VARIABLE)? {
        s.transports_origin = format!("{TRANSPORT_VARIABLE}={v:?}");
        s.transports = Transports::parse(&v, &s.transports_origin)?;
    }
    if s.transports_origin.is_empty() {
        s.transports_origin = format!("the transports ({TRANSPORT_VARIABLE} unset)");
    }
    Ok(s)
}

/// A variable's value; `None` when unset or blank.
fn env(name: &str) -> Result<Option<String>> {
    match std::env::var(name) {
        Ok(v) if v.trim().is_empty() => Ok(None),
        Ok(v) => Ok(Some(v.trim().to_owned())),
        Err(std::env::VarError::NotPresent) => Ok(None),
        Err(std::env::VarError::NotUnicode(_)) => {
            Err(Error::bad_argument(format!("{name} is not valid UTF-8: fix its value or unset it")))
        }
    }
}

/// Parses the text of a configuration file; `file` names it in messages.
pub fn parse(text: &str, file: &str) -> Result<Settings> {
    parse_in(text, &format!("{CONFIG_VARIABLE}={file}"), "line")
}

/// Parses `text`; messages start with `origin` and number its lines as `unit`s.
fn parse_in(text: &str, origin: &str, unit: &str) -> Result<Settings> {
    let mut s = Settings::default();
    let mut seen: Vec<(&str, usize)> = Vec::new();
    for (n, raw) in text.lines().enumerate() {
        let line_no = n + 1;
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let at = |msg: String| Error::bad_argument(format!("{origin}, {unit} {line_no}: {msg}"));
        let Some((key, value)) = line.split_once('=') else {
            return Err(at(format!("{line:?} is not `key = value`")));
        };
        let (key, value) = (key.trim(), value.trim());
        let Some(&(key, _)) = KEYS.iter().find(|(k, _)| *k == key) else {
            let known: Vec<&str> = KEYS.iter().map(|(k, _)| *k).collect();
            return Err(at(format!("unknown key {key:?}; the keys are: {}", known.join(", "))));
        };
        if let Some((_, first)) = seen.iter().find(|(k, _)| *k == key) {
            return Err(at(format!("key {key} is set again (first on {unit} {first}); keep one")));
        }
        seen.push((key, line_no));
        let bad = |why: &str| at(format!("key {key}: {value:?} {why}"));
        if value.is_empty() {
            return Err(bad("is empty; give a value or remove the line"));
        }
        let count = |min: u64, max: u64| -> Result<usize> {
            match number(value, false) {
                Some(v) if (min..=max).contains(&v) => Ok(v as usize),
                Some(_) => Err(bad(&format!("is out of range: use {min} to {max}"))),
                None => Err(bad("is not a whole number")),
            }
        };
        let bytes = |min: u64, max: u64| -> Result<usize> {
            match number(value, true) {
                Some(v) if (min..=max).contains(&v) => Ok(v as usize),
                Some(_) => Err(bad(&format!("is out of range: use {min} to {max} bytes"))),
                None => Err(bad("is not a size (a whole number, optionally followed by KiB, MiB or GiB)")),
            }
        };
        const BIG: u64 = 1 << 40;
        match key {
            "transport" => {
                s.transports_origin = format!("{origin}, {unit} {line_no}: key transport");
                s.transports = Transports::parse(value, &s.transports_origin)?;
            }
            "shm.segment_bytes" => s.shm_segment_bytes = Some(bytes(4096, 1 << 36)?),
            "shm.slots" => s.shm_slots = Some(count(1, 1 << 20)?),
            "shm.max_readers" => s.shm_max_readers = Some(count(1, 4096)?),
            "wait.spin_us" => {
                s.wait_spin = Some(if value.eq_ignore_ascii_case("busy") {
                    // The engine's one busy-polling setting: poll up to 10 ms, so a stream of
                    // 100 Hz or more never sleeps and an idle reader stops burning its core.
                    ParticipantConfig::default().busy_polling().wait_spin
                } else {
                    Duration::from_micros(count(0, MAX_SPIN_US).map_err(|_| {
                        bad(&format!(
                            "is not a spin time: use 0 to {MAX_SPIN_US} (microseconds), or busy to poll up to 10 ms \
                             before sleeping (one core per waiting thread while samples flow)"
                        ))
                    })? as u64)
                })
            }
            "wait.yield_after_wake" => {
                s.yield_after_wake = Some(match value.to_ascii_lowercase().as_str() {
                    "true" => true,
                    "false" => false,
                    _ => return Err(bad("is not true or false")),
                })
            }
            "wait.wake_slice_us" => {
                let (least, most) = hdds_core::runtime::wake_slice::WAKE_SLICE_RANGE;
                let (least, most) = (least.as_micros() as u64, most.as_micros() as u64);
                s.wake_slice = Some(Duration::from_micros(match count(0, most) {
                    Ok(v) if v == 0 || v as u64 >= least => v as u64,
                    _ => {
                        return Err(bad(&format!(
                            "is not a slice: use 0 to leave waiting threads' scheduling alone, or {least} to {most} \
                             (microseconds, the slices the kernel accepts)"
                        )))
                    }
                }))
            }
            "shm.handoff_us" => s.shm_handoff = Some(Duration::from_micros(count(0, 100_000)? as u64)),
            "limits.max_remote_participants" => s.max_remote_participants = Some(count(1, 1 << 24)?),
            "limits.max_remote_endpoints" => s.max_remote_endpoints = Some(count(1, 1 << 28)?),
            "limits.keep_all_max_samples" => s.keep_all_max_samples = Some(count(1, 1 << 24)?),
            "limits.reassembly_max_sample_bytes" => s.reassembly_max_sample_bytes = Some(bytes(1, u32::MAX as u64)?),
            "limits.reassembly_max_samples" => s.reassembly_max_samples = Some(count(1, 1 << 16)?),
            "limits.reassembly_max_samples_per_writer" => {
                s.reassembly_max_samples_per_writer = Some(count(1, 1 << 16)?)
            }
            "limits.reassembly_max_bytes" => s.reassembly_max_bytes = Some(bytes(1, BIG)?),
            _ => unreachable!("every key of KEYS has a branch"),
        }
    }
    Ok(s)
}

/// A whole number with optional `_` separators and, for `sizes`, a KiB/MiB/GiB suffix.
fn number(v: &str, sizes: bool) -> Option<u64> {
    let (digits, unit) = match v.find(|c: char| c.is_ascii_alphabetic()) {
        Some(i) if sizes => (v[..i].trim(), &v[i..]),
        Some(_) => return None,
        None => (v, ""),
    };
    let scale: u64 = match unit {
        "" => 1,
        "KiB" => 1 << 10,
        "MiB" => 1 << 20,
        "GiB" => 1 << 30,
        _ => return None,
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_ascii_digit() || c == '_') || digits.starts_with('_') {
        return None;
    }
    digits.replace('_', "").parse::<u64>().ok()?.checked_mul(scale)
}

impl Settings {
    /// Applies what is set to a participant's configurations (`net`: `None` without network), and
    /// checks the transports against it.
    pub fn apply(&self, pc: &mut ParticipantConfig, net: Option<&mut NetworkConfig>) -> Result<()> {
        self.transports.check(net.is_some(), &self.transports_origin)?;
        if let Some(v) = self.keep_all_max_samples {
            pc.keep_all_max_samples = v;
        }
        set(&mut pc.wait_spin, self.wait_spin);
        set(&mut pc.yield_after_wake, self.yield_after_wake);
        set(&mut pc.wake_slice, self.wake_slice);
        let Some(net) = net else { return Ok(()) };
        net.intra_process = self.transports.intra;
        let shm = &mut net.shared_memory;
        shm.enabled = self.transports.shm;
        set(&mut shm.arena_bytes, self.shm_segment_bytes);
        set(&mut shm.slots, self.shm_slots);
        set(&mut shm.max_readers, self.shm_max_readers);
        set(&mut shm.handoff, self.shm_handoff);
        set(&mut net.max_remote_participants, self.max_remote_participants);
        set(&mut net.max_remote_endpoints, self.max_remote_endpoints);
        let r = &mut net.reassembly;
        set(&mut r.max_sample_size, self.reassembly_max_sample_bytes);
        set(&mut r.max_concurrent, self.reassembly_max_samples);
        set(&mut r.max_per_writer, self.reassembly_max_samples_per_writer);
        set(&mut r.max_total_bytes, self.reassembly_max_bytes);
        Ok(())
    }
}

fn set<T>(field: &mut T, v: Option<T>) {
    if let Some(v) = v {
        *field = v;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str) -> String {
        parse(text, "/etc/hdds.conf").unwrap_err().message().to_owned()
    }

    #[test]
    fn every_key_is_read_and_applied() {
        let text = "# comment\n\ntransport = shm , udp  # no intra\nshm.segment_bytes = 16MiB\nshm.slots = 8\n\
                    shm.max_readers=4\nwait.spin_us = 5\nwait.yield_after_wake = False\nwait.wake_slice_us = 250\nshm.handoff_us = 200\nlimits.max_remote_participants = 10\n\
                    limits.max_remote_endpoints = 1_000\nlimits.keep_all_max_samples = 50\n\
                    limits.reassembly_max_sample_bytes = 1GiB\nlimits.reassembly_max_samples = 3\n\
                    limits.reassembly_max_samples_per_writer = 2\nlimits.reassembly_max_bytes = 64KiB\n";
        let s = parse(text, "f").unwrap();
        assert_eq!(KEYS.len(), 15);
        let mut pc = ParticipantConfig::default();
        let mut net = NetworkConfig::default();
        s.apply(&mut pc, Some(&mut net)).unwrap();
        assert_eq!(pc.keep_all_max_samples, 50);
        assert!(!net.intra_process && net.shared_memory.enabled);
        assert_eq!(net.shared_memory.arena_bytes, 16 << 20);
        assert_eq!((net.shared_memory.slots, net.shared_memory.max_readers), (8, 4));
        assert_eq!(pc.wait_spin, Duration::from_micros(5));
        assert!(!pc.yield_after_wake && ParticipantConfig::default().yield_after_wake, "on by default, off as set");
        assert!(err("wait.yield_after_wake = 1").contains("key wait.yield_after_wake: \"1\" is not true or false"));
        assert_eq!(pc.wake_slice, Duration::from_micros(250));
        assert_eq!(parse("wait.wake_slice_us = 0", "f").unwrap().wake_slice, Some(Duration::ZERO));
        for refused in ["50", "100001", "fast"] {
            assert!(
                err(&format!("wait.wake_slice_us = {refused}")).contains("is not a slice: use 0"),
                "wait.wake_slice_us = {refused} was accepted"
            );
        }
        assert_eq!(net.shared_memory.handoff, Duration::from_micros(200));
        assert_eq!((net.max_remote_participants, net.max_remote_endpoints), (10, 1000));
        let r = net.reassembly;
        assert_eq!((r.max_sample_size, r.max_concurrent, r.max_per_writer, r.max_total_bytes), (1 << 30, 3, 2, 65536));
        let busy = ParticipantConfig::default().busy_polling().wait_spin;
        assert_eq!(parse("wait.spin_us = busy", "f").unwrap().wait_spin, Some(busy));
        assert!(busy >= Duration::from_millis(10) && busy < Duration::MAX, "busy polls a bounded time");
    }

    #[test]
    fn nothing_set_changes_nothing() {
        let s = parse("\n# only comments\n", "f").unwrap();
        let mut pc = ParticipantConfig::default();
        let mut net = NetworkConfig::default();
        s.apply(&mut pc, Some(&mut net)).unwrap();
        assert_eq!(net, NetworkConfig::default());
        assert_eq!(pc.keep_all_max_samples, ParticipantConfig::default().keep_all_max_samples);
    }

    #[test]
    fn mistakes_name_the_file_the_line_and_the_key() {
        let e = err("shm.slots = 4\n\nshm.slotz = 4\n");
        assert!(e.contains("HDDS_CONFIG=/etc/hdds.conf, line 3") && e.contains("\"shm.slotz\""), "{e}");
        let e = err("shm.slots = four");
        assert!(e.contains("line 1") && e.contains("key shm.slots") && e.contains("whole number"), "{e}");
        let e = err("shm.slots = 0");
        assert!(e.contains("key shm.slots") && e.contains("out of range"), "{e}");
        let e = err("wait.spin_us = 5000");
        assert!(e.contains("key wait.spin_us") && e.contains("0 to 1000"), "{e}");
        let e = err("shm.segment_bytes = 12 MB");
        assert!(e.contains("key shm.segment_bytes") && e.contains("KiB"), "{e}");
        let e = err("limits.max_remote_participants");
        assert!(e.contains("line 1") && e.contains("key = value"), "{e}");
        let e = err("shm.slots = 4\nshm.slots = 5");
        assert!(e.contains("line 2") && e.contains("first on line 1"), "{e}");
        let e = err("limits.keep_all_max_samples =");
        assert!(e.contains("is empty"), "{e}");
        let e = err("transport = udp,tcp");
        assert!(e.contains("line 1: key transport") && e.contains("\"tcp\""), "{e}");
        assert!(number("1_024", false) == Some(1024) && number("_1", false).is_none());
        assert!(number("99999999999GiB", true).is_none(), "overflow is refused, not wrapped");
        let e = parse_in("shm.slots = 4\nwait.spin_us = x", "HDDS_CONFIG (inline)", "entry").unwrap_err();
        assert!(e.message().starts_with("HDDS_CONFIG (inline), entry 2: key wait.spin_us"), "{e}");
    }

    #[test]
    fn transports_must_suit_the_participant() {
        let s = parse("transport = intra,shm", "f").unwrap();
        let e = s.apply(&mut ParticipantConfig::default(), Some(&mut NetworkConfig::default())).unwrap_err();
        assert!(e.message().contains("line 1: key transport leaves out udp"), "{e}");
        assert!(s.apply(&mut ParticipantConfig::default(), None).is_ok());
        let s = parse("transport = udp", "f").unwrap();
        assert!(s.apply(&mut ParticipantConfig::default(), None).unwrap_err().message().contains("add intra"));
    }
}

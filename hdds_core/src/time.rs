//! Time as the engine keeps it: signed nanoseconds since the UNIX epoch, which is what RTPS
//! timestamps (seconds + 2^-32 fractions) and rmw_time_point_value_t both convert to losslessly enough.
//!
//! [`now`] is on every sample's path twice (the writer's source timestamp, the reader's reception
//! timestamp), and `clock_gettime(CLOCK_REALTIME)` costs 24-45 ns on this project's VMs: a good
//! part of a 0.4 µs same-host hop. So where the kernel itself keeps time with the CPU's
//! time-stamp counter, each thread reads the counter (10 ns) and extrapolates from an anchor, a
//! pair (counter, system clock) it takes again every millisecond (the private module `tsc` has
//! the details).

use std::time::{SystemTime, UNIX_EPOCH};

/// Nanoseconds since 1970-01-01T00:00:00Z.
pub type Timestamp = i64;

/// The wall-clock time now, as DDS source timestamps use it: the system clock, or within about
/// 100 ns of it where the time-stamp counter serves.
pub fn now() -> Timestamp {
    // (Miri runs no RDTSC: the system clock there.)
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    {
        tsc::now()
    }
    #[cfg(not(all(target_arch = "x86_64", not(miri))))]
    {
        system_now()
    }
}

/// The system's wall clock (CLOCK_REALTIME), read through the vDSO.
pub fn system_now() -> Timestamp {
    match SystemTime::now().duration_since(UNIX_EPOCH) {
        Ok(d) => d.as_nanos() as i64,
        // A clock set before 1970 is a misconfigured host; negative time keeps ordering intact.
        Err(e) => -(e.duration().as_nanos() as i64),
    }
}

/// The wall clock from the time-stamp counter.
///
/// - **When.** Only where the kernel's clocksource is `tsc`: the kernel found the counter
///   invariant and in step across CPUs, and its own clock is that counter scaled. Elsewhere (or
///   if the file cannot be read) every reading is the system clock's.
/// - **How.** Each thread keeps an anchor: a counter value, the system clock read next to it, and
///   the counter's rate in ns per tick, measured between two anchors at least a millisecond
///   apart. A reading within a millisecond of the anchor is the anchor plus the ticks since,
///   scaled; a later one reads the system clock and takes a new anchor, unless that reading took
///   long (preempted between its two counter readings: its instant is unknown by half that time;
///   `MAX_READ_TICKS`). A thread's readings before its rate is known are the system clock's.
/// - **How close.** Measured here over 36 million readings (3 s): at most 106 ns outside the two
///   system-clock readings made around each, and more than 50 ns outside in 0.06 % of them (the
///   test allows 1 µs, for a loaded machine). A new anchor may put a thread's clock back by that
///   much; the wall clock is not monotonic anyway (it is stepped and slewed). A rate that changed
///   by more than 0.1 % since the last (the system clock was stepped between two anchors) is not
///   taken: the anchor is, with the old rate.
/// - **Gain.** The busy-polling 64 B ping-pong between two processes (two timestamps per hop):
///   0.370 against 0.418 µs one way, the median of 8 interleaved runs.
#[cfg(all(target_arch = "x86_64", not(miri)))]
mod tsc {
    use std::cell::Cell;
    use std::sync::OnceLock;

    use super::{system_now, Timestamp};

    /// How long a thread extrapolates from its anchor.
    const SPAN_NS: i64 = 1_000_000;
    /// The rate's fixed point: ns per tick, times 2^32.
    const RATE_SHIFT: u32 = 32;

    #[derive(Clone, Copy, Default)]
    struct Anchor {
        tsc: u64,
        ns: Timestamp,
        /// ns per tick << RATE_SHIFT; 0 while not measured.
        rate: u64,
        /// Ticks in SPAN_NS at `rate`.
        span: u64,
    }

    thread_local! {
        static ANCHOR: Cell<Anchor> = const { Cell::new(Anchor { tsc: 0, ns: 0, rate: 0, span: 0 }) };
    }

    fn counter() -> u64 {
        // SAFETY: RDTSC exists on every x86_64 CPU and has no side effect.
        unsafe { core::arch::x86_64::_rdtsc() }
    }

    /// Whether the kernel keeps time with the counter (read once per process).
    fn usable() -> bool {
        static USABLE: OnceLock<bool> = OnceLock::new();
        *USABLE.get_or_init(|| {
            std::fs::read_to_string("/sys/devices/system/clocksource/clocksource0/current_clocksource")
                .is_ok_and(|s| s.trim() == "tsc")
        })
    }

    #[link_section = ".text.hot.hdds"]
    pub(super) fn now() -> Timestamp {
        if !usable() {
            return system_now();
        }
        let t = counter();
        let a = ANCHOR.get();
        let ticks = t.wrapping_sub(a.tsc);
        if a.rate != 0 && ticks < a.span {
            return a.ns + ((u128::from(ticks) * u128::from(a.rate)) >> RATE_SHIFT) as i64;
        }
        reanchor(a)
    }

    /// Reads the system clock, between two counter readings, and takes it as the thread's anchor
    /// when it is a millisecond or more past the last (measuring the rate between the two).
    #[cold]
    #[link_section = ".text.hot.hdds"]
    fn reanchor(a: Anchor) -> Timestamp {
        let t0 = counter();
        let ns = system_now();
        let t1 = counter();
        if let Some(next) = next_anchor(a, t0, ns, t1) {
            ANCHOR.set(next);
        }
        ns
    }

    /// The longest a system-clock reading may take, in counter ticks, for an anchor: the reading's
    /// instant is taken as the middle of the two counter readings around it, so one that was
    /// preempted or interrupted meanwhile would put the anchor (and the rate measured from it) off
    /// by up to half its length. About 0.4 µs on a 2.5 GHz counter; a reading takes 25-45 ns here.
    const MAX_READ_TICKS: u64 = 1_000;

    /// The anchor to take after the system clock read `ns` between counter readings `t0` and
    /// `t1`, the last anchor being `a`; `None` keeps `a` (the reading is the system clock's
    /// anyway, and the next one tries again).
    fn next_anchor(a: Anchor, t0: u64, ns: Timestamp, t1: u64) -> Option<Anchor> {
        let read = t1.wrapping_sub(t0);
        if read > MAX_READ_TICKS {
            return None;
        }
        let t = t0.wrapping_add(read / 2);
        let elapsed = ns - a.ns;
        if a.tsc != 0 && (0..SPAN_NS).contains(&elapsed) {
            // The first anchor is young: keep it for the rate (the system clock serves till then).
            return None;
        }
        let ticks = t.wrapping_sub(a.tsc);
        // (A clock stepped back gives no rate: a new anchor, the old rate.)
        let measured = (a.tsc != 0 && elapsed > 0 && ticks > 0 && ticks < u64::MAX / 2)
            .then(|| ((elapsed as u128) << RATE_SHIFT) / u128::from(ticks))
            .and_then(|r| u64::try_from(r).ok())
            .filter(|&r| r > 0);
        let rate = match (measured, a.rate) {
            (Some(r), 0) => r,
            // Within 0.1 % of the last: a slewed clock or a better measure. Beyond: a step.
            (Some(r), old) if r.abs_diff(old) <= old / 1000 => r,
            (_, old) => old,
        };
        let span = if rate == 0 {
            0
        } else {
            u64::try_from((i128::from(SPAN_NS) << RATE_SHIFT) / i128::from(rate)).unwrap_or(0)
        };
        Some(Anchor { tsc: t, ns, rate, span })
    }

    #[cfg(test)]
    mod tests {
        use super::*;
        use std::time::{Duration, Instant};

        /// Readings extrapolated from the counter stay within 1 µs of the system clock read
        /// around them (when those two readings are close: not preempted in between), over
        /// 30 ms, so across several anchors; and extrapolation is really used.
        ///
        /// "Close" is 1 µs, or twice the usual bracket where the clock itself is slower: under
        /// ThreadSanitizer, whose clock_gettime interceptor made every bracket longer than 1 µs
        /// on one host (session 33), the same check then runs on the readings not preempted, and
        /// extrapolation is required only where a system-clock reading is quick enough to anchor.
        #[test]
        fn the_counter_clock_follows_the_system_clock() {
            let bracket = median_of_101(|| {
                let s1 = system_now();
                let _ = now();
                system_now() - s1
            });
            let close = bracket.saturating_mul(2).max(1_000);
            let end = Instant::now() + Duration::from_millis(30);
            let (mut checked, mut extrapolated) = (0, 0);
            while Instant::now() < end {
                let s1 = system_now();
                let n = now();
                let s2 = system_now();
                if s2 - s1 < close {
                    assert!(n >= s1 - 1_000 && n <= s2 + 1_000, "{n} is not within 1 µs of [{s1}, {s2}]");
                    checked += 1;
                }
                extrapolated += usize::from(ANCHOR.get().rate != 0);
            }
            assert!(checked > 1000, "only {checked} readings were not preempted (closer than {close} ns)");
            // The rate is measured from readings of the system clock that take under
            // MAX_READ_TICKS; where most take longer (under ThreadSanitizer) none anchors and
            // `now` is the system clock's, as it should be.
            let read = median_of_101(|| {
                let t0 = counter();
                let _ = system_now();
                counter().wrapping_sub(t0)
            });
            if usable() && read < MAX_READ_TICKS / 2 {
                assert!(extrapolated > 0, "the counter's rate was never measured");
            }
        }

        /// The median of 101 runs of `f`.
        fn median_of_101<T: Ord>(f: impl FnMut() -> T) -> T {
            let mut v: Vec<T> = std::iter::repeat_with(f).take(101).collect();
            v.sort_unstable();
            v.swap_remove(50)
        }

        /// A system-clock reading that took long (preempted between its two counter readings)
        /// anchors nothing: its instant is uncertain by half its length. One that took a normal
        /// time anchors, and measures the rate against the last anchor.
        #[test]
        fn a_slow_clock_reading_is_not_an_anchor() {
            let a = Anchor { tsc: 1_000_000, ns: 5_000_000, rate: 0, span: 0 };
            // 2.5 ticks per ns: 1 ms later is 2.5 million ticks later.
            let t0 = a.tsc + 2_500_000;
            assert!(next_anchor(a, t0, a.ns + 1_000_000, t0 + MAX_READ_TICKS + 1).is_none());
            let b = next_anchor(a, t0, a.ns + 1_000_000, t0 + 100).expect("a quick reading anchors");
            assert_eq!((b.tsc, b.ns), (t0 + 50, a.ns + 1_000_000));
            // ns per tick 0.4 (<< 32), measured from the anchor's middle; within 0.01 %.
            let want = (0.4 * (1u64 << RATE_SHIFT) as f64) as u64;
            assert!(b.rate.abs_diff(want) <= want / 10_000, "rate {} against {want}", b.rate);
            // Younger than a millisecond: the old anchor stays (for the rate).
            assert!(next_anchor(b, t0 + 1_000, b.ns + 500, t0 + 1_050).is_none());
        }
    }
}

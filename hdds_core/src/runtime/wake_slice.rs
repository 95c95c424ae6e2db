//! Asking the kernel to run a waiting thread as soon as a writer of another process wakes it
//! ([`crate::ParticipantConfig::wake_slice`]): the sleeping side of the hand-over
//! (`super::handoff` is the writing side).
//!
//! Why: a write that rings the shared-memory doorbell of a thread sleeping for one of its readers
//! in another process (an rclcpp executor in `rmw_wait`) gets that thread queued on the writer's
//! own CPU, where it runs only once the writer yields at the end of its write. Since Linux 6.12
//! the fair scheduler (EEVDF) lets a thread choose its slice (`sched_attr.sched_runtime` of a
//! SCHED_OTHER thread), and a waking thread whose slice is shorter than the running one's
//! preempts it at the wake-up (`PREEMPT_SHORT`). With a short slice the woken executor runs inside
//! the writer's futex wake: before the rest of the write, its lock releases and its
//! `sched_yield`. Measured on this project's 2-vCPU VMs (kernel 6.18): a bare futex ping between
//! two processes at 1 kHz, wake to running 4.2-5.5 µs against 6.2-7.2 µs with the yield alone;
//! perf_test Array1k at 1 kHz in two processes, best effort, 5 interleaved repeats: 18.7 against
//! 22.6 µs, and 25.9 against 29.5 µs with the setting off in the other arm (results notes,
//! session 28).
//!
//! Only doorbell waits ask. A same-process wait (a wait set's or `wait_for_data`'s condition
//! variable) is woken from inside the write, and there the early run measured worse: perf_test
//! Array1k at 1 kHz in one process, 22.2 against 20.8 µs and 7.5 against 6.6 % CPU with the
//! setting off in the other arm (5 interleaved repeats); the writer's yield already hands the CPU
//! over at the end of the write.
//!
//! Model: a thread asks once, the first time it goes to sleep on a participant's doorbell for
//! readers whose participant asks for a slice (`WaitSet`'s doorbell mode, which `rmw_wait` and
//! `Reader::wait_for_data` use when a same-host writer feeds the reader); a thread-local flag
//! remembers that it asked. It asks only when its policy is SCHED_OTHER (a real-time executor is
//! left alone) and its slice is longer than the one asked (a thread that chose a shorter slice
//! keeps it; kernels before 6.12 report no slice, so nothing is asked there). Nice value and
//! policy stay as they were. The thread keeps the slice after the wait: a slice is a latency
//! hint, not a share; on a busy CPU the thread runs as much, in shorter turns. A refusal (a
//! container's seccomp filter) is not retried and changes nothing but latency.
//!
//! The engine's own shared-memory reader thread does not ask: a participant whose application
//! thread waits drains the rings itself (`super::net::shm`), so that thread is off the sample's
//! path.

use std::cell::Cell;
use std::time::Duration;

/// The slices the kernel accepts (it clamps anything else into this range).
pub const WAKE_SLICE_RANGE: (Duration, Duration) = (Duration::from_micros(100), Duration::from_millis(100));
/// [`crate::ParticipantConfig::wake_slice`]'s default: the kernel's shortest slice.
pub const WAKE_SLICE: Duration = WAKE_SLICE_RANGE.0;

thread_local! {
    /// Whether this thread asked for a slice already (whatever the answer).
    static ASKED: Cell<bool> = const { Cell::new(false) };
}

/// Called before this thread sleeps for entries whose participants ask for `slice()` (zero: none
/// asks). Asks the kernel once per thread; costs a thread-local read afterwards.
#[link_section = ".text.hot.hdds"]
pub(crate) fn before_sleep(slice: impl FnOnce() -> Duration) {
    if ASKED.with(Cell::get) {
        return;
    }
    let slice = slice();
    if !slice.is_zero() {
        ASKED.with(|a| a.set(true));
        ask(slice);
    }
}

/// The slice of several entries: the shortest any of them asks for (zero when none asks).
pub(crate) fn shortest(slices: impl Iterator<Item = Duration>) -> Duration {
    slices.filter(|s| !s.is_zero()).min().unwrap_or(Duration::ZERO)
}

#[cfg(target_os = "linux")]
mod sys {
    use std::time::Duration;

    /// `struct sched_attr` as of its first version (SCHED_ATTR_SIZE_VER0, 48 bytes).
    #[repr(C)]
    #[derive(Default)]
    struct SchedAttr {
        size: u32,
        policy: u32,
        flags: u64,
        nice: i32,
        priority: u32,
        runtime: u64,
        deadline: u64,
        period: u64,
    }

    /// The calling thread's attributes, when it is a SCHED_OTHER thread on a kernel that reports
    /// its slice (`runtime`; zero before Linux 6.12).
    fn fair_attr() -> Option<SchedAttr> {
        let mut a = SchedAttr::default();
        // SAFETY: `a` is a writable sched_attr of the size passed; pid 0 is the calling thread.
        let r = unsafe {
            libc::syscall(libc::SYS_sched_getattr, 0, &mut a as *mut SchedAttr, std::mem::size_of::<SchedAttr>(), 0)
        };
        (r == 0 && a.policy == libc::SCHED_OTHER as u32 && a.runtime > 0).then_some(a)
    }

    /// The calling thread's slice, when it is a SCHED_OTHER thread on a kernel that reports one.
    #[cfg(test)]
    pub(crate) fn slice() -> Option<Duration> {
        fair_attr().map(|a| Duration::from_nanos(a.runtime))
    }

    pub(super) fn ask(slice: Duration) {
        let Some(mut a) = fair_attr().filter(|a| a.runtime > slice.as_nanos() as u64) else { return };
        a.size = std::mem::size_of::<SchedAttr>() as u32;
        a.flags = 0;
        a.runtime = slice.as_nanos() as u64;
        // SAFETY: `a` is an initialized sched_attr whose size field matches; pid 0 is the calling
        // thread; the kernel only reads it. Policy and nice are the ones just read.
        let _ = unsafe { libc::syscall(libc::SYS_sched_setattr, 0, &a as *const SchedAttr, 0) };
    }
}

#[cfg(target_os = "linux")]
use sys::ask;
#[cfg(all(target_os = "linux", test))]
pub(crate) use sys::slice as current_slice;

#[cfg(not(target_os = "linux"))]
fn ask(_slice: Duration) {}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use std::time::Duration;

    use crate::runtime::handoff::tests::shm_pair;
    use crate::runtime::waitset::{Target, WaitEntry, WaitSet};
    use crate::{Participant, ParticipantConfig, Reader, Writer};

    /// A fresh thread's slice before and after it slept once in a wait set for `r`, woken by
    /// `w`'s write from here. `None` on kernels that report no slice (before 6.12): nothing is
    /// asked there, nothing to check.
    fn slices_around_a_wait(w: &Writer, r: &Reader) -> Option<(Duration, Duration)> {
        std::thread::scope(|s| {
            let waiter = s.spawn(|| {
                let before = super::current_slice();
                let woke = WaitSet::new()
                    .wait(&mut [WaitEntry::new(Target::ReaderData(r))][..], Some(Duration::from_secs(10)));
                assert!(woke, "the waiter was not woken");
                (before, super::current_slice())
            });
            std::thread::sleep(Duration::from_millis(100));
            w.write(&[5u8; 8]).unwrap();
            let (before, after) = waiter.join().unwrap();
            assert!(r.take().is_some());
            before.map(|b| {
                assert!(b > super::WAKE_SLICE, "a fresh thread's slice is {b:?}, not the kernel's default");
                (b, after.unwrap())
            })
        })
    }

    /// A thread that slept on the doorbell for a reader of a participant asking for a slice has
    /// it afterwards; with the setting off its slice stays the kernel's default.
    #[test]
    fn a_thread_waiting_on_the_doorbell_takes_the_participants_slice_only_when_asked() {
        for (slice, topic) in [(super::WAKE_SLICE, "slice-on"), (Duration::ZERO, "slice-off")] {
            let (_remote, _local, over_shm, _own, r) = shm_pair(topic, false, slice);
            let Some((before, after)) = slices_around_a_wait(&over_shm, &r) else {
                eprintln!("this kernel reports no scheduler slice (before Linux 6.12): nothing is asked");
                return;
            };
            let expected = if slice.is_zero() { before } else { slice };
            assert_eq!(after, expected, "asked for {slice:?}");
        }
    }

    /// A same-process wait does not ask: there the writer's yield hands the CPU over.
    #[test]
    fn a_same_process_wait_leaves_the_slice_alone() {
        let p = Participant::new(ParticipantConfig::default()).unwrap();
        let qos = crate::Qos::default();
        let (w, r) =
            (p.create_writer("slice-intra", "T", qos).unwrap(), p.create_reader("slice-intra", "T", qos).unwrap());
        if let Some((before, after)) = slices_around_a_wait(&w, &r) {
            assert_eq!(after, before, "a same-process wait changed the thread's slice");
        }
    }

    /// A thread that chose a shorter slice than the participant's keeps its own.
    #[test]
    fn a_thread_keeps_a_shorter_slice_of_its_own() {
        std::thread::spawn(|| {
            super::ask(super::WAKE_SLICE);
            let Some(own) = super::current_slice() else { return };
            super::ask(Duration::from_millis(1));
            assert_eq!(super::current_slice(), Some(own), "the slice was raised");
        })
        .join()
        .unwrap();
    }

    #[test]
    fn several_entries_ask_for_the_shortest_nonzero_slice() {
        let us = Duration::from_micros;
        assert_eq!(super::shortest([us(0), us(300), us(100)].into_iter()), us(100));
        assert_eq!(super::shortest([us(0)].into_iter()), Duration::ZERO);
    }
}

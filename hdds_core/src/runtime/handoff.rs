//! Handing the CPU to a reader thread that a write woke ([`crate::ParticipantConfig::yield_after_wake`]).
//!
//! Why: when a write wakes a thread that sleeps for one of the writer's readers (an rclcpp
//! executor in `rmw_wait`, a `Reader::wait_for_data`), the kernel mostly queues that
//! thread on the writer's own CPU and lets the writer run on: the rest of the write, the
//! application's code after `publish`, until it sleeps. The sample waits that long. Traced with
//! `perf sched` on this 2-vCPU VM (perf_test, Array1k at 1 kHz, one process): the executor waited
//! a median 12 µs between its wake-up and running, queued behind the publisher on the same CPU
//! in every sample. A `sched_yield` once the write is done lets it run at once; the writer
//! resumes after the callback (at 1 kHz its next write is a millisecond away).
//!
//! The same holds across processes. A shared-memory doorbell ring that wakes a thread of the
//! reader's process (an executor asleep on the doorbell, or that participant's reader thread) gets
//! it queued on the writer's CPU too: in perf_test, Array1k at 1 kHz, two processes, the woken
//! executor ran on the publisher's CPU for 99.5-99.7 % of the samples (a preloaded probe comparing
//! `sched_getcpu()` on both sides), and the publisher went on for 2-3 µs of its own before the
//! sample could be taken. The first version of this module left ring wake-ups out after a
//! two-process A/B on another VM of this kind showed no gain; a paired A/B on this one
//! (`results/ros_compare_2p_yield_ab.md`) took the cell from 25.9 to 16.1 µs.
//!
//! Model: a thread-local flag. The wake-ups that reach a sleeping thread (`WaitCore::signal`'s
//! condition variable and same-process doorbell wake, `ReaderShared`'s `wait_for_data` condition
//! variable, and a shared-memory ring's doorbell when its futex wake woke someone:
//! `ShmWriter::announce_sample`) raise it on the writing thread; `Writer::write_core` clears it
//! before it delivers and, once every lock of the write is released, yields if it was raised and
//! the participant asks for it. A write that woke nobody (the reader was awake, spinning or busy)
//! never yields, so a stream faster than the reader pays nothing. A SCHED_FIFO writer yields only
//! to threads of its own priority: nothing changes for it but a system call.
//!
//! The sleeping side does its part too (`super::wake_slice`): a thread waiting on the
//! shared-memory doorbell asks for a short scheduler slice, and on Linux 6.12 and later a wake-up
//! by a writer of another process then preempts that writer inside the futex wake. The yield
//! stays for kernels and threads where that does not hold; where it does, it comes after the
//! sample was taken and costs the writer a system call, not the sample time.
//!
//! Cost: one `sched_yield` per write that woke a sleeper (under a microsecond), and on a loaded
//! CPU the writer may wait behind other threads there for up to a scheduler slice before its
//! `write` returns: the setting turns it off (`wait.yield_after_wake = false` in HDDS_CONFIG).

use std::cell::Cell;

thread_local! {
    /// Whether this thread woke a sleeping reader thread (of this process, or of another one
    /// through a shared-memory doorbell) since the last [`forget`].
    static WOKE: Cell<bool> = const { Cell::new(false) };
    /// Yields made by this thread (tests).
    #[cfg(test)]
    static YIELDS: Cell<u64> = const { Cell::new(0) };
}

/// This thread just woke a sleeping reader thread (of this process, or of another one through a
/// shared-memory doorbell).
pub(crate) fn woke_a_sleeper() {
    WOKE.with(|w| w.set(true));
}

/// A write starts: wake-ups made before it (by other calls of this thread) do not count.
pub(crate) fn forget() {
    WOKE.with(|w| w.set(false));
}

/// A write is done and holds no lock: yields the CPU if it woke a sleeper and `enabled`.
pub(crate) fn hand_over(enabled: bool) {
    if WOKE.with(|w| w.replace(false)) && enabled {
        #[cfg(test)]
        YIELDS.with(|y| y.set(y.get() + 1));
        std::thread::yield_now();
    }
}

/// How many times this thread yielded in [`hand_over`].
#[cfg(test)]
pub(crate) fn yields() -> u64 {
    YIELDS.with(Cell::get)
}

#[cfg(test)]
pub(crate) mod tests {
    use std::time::Duration;

    use crate::qos::Qos;
    use crate::runtime::waitset::{Target, WaitEntry, WaitSet};
    use crate::{Participant, ParticipantConfig};

    /// Runs `wait` on a thread of its own, lets it fall asleep, then runs `act` here: the yields
    /// `act` made. The waiter must have been woken (`wait` returned true).
    fn yields_waking(wait: impl FnOnce() -> bool + Send, act: impl FnOnce()) -> u64 {
        std::thread::scope(|s| {
            let waiter = s.spawn(wait);
            // Asleep by then (a wait spins 5 µs at most, and only while samples come often).
            std::thread::sleep(Duration::from_millis(200));
            let before = super::yields();
            act();
            let made = super::yields() - before;
            assert!(waiter.join().unwrap(), "the waiter was not woken");
            made
        })
    }

    /// A wait set's wait on one target, for 10 s at most.
    fn wait_on(target: Target<'_>) -> bool {
        WaitSet::new().wait(&mut [WaitEntry::new(target)][..], Some(Duration::from_secs(10)))
    }

    /// A write yields exactly when it woke a thread sleeping for the reader and the participant
    /// asks for it; one whose reader was awake, or a participant that turned it off, does not.
    #[test]
    fn a_write_yields_only_after_waking_a_sleeper_and_only_when_asked() {
        for enabled in [true, false] {
            let p = Participant::new(ParticipantConfig { yield_after_wake: enabled, ..Default::default() }).unwrap();
            let qos = Qos::default();
            let w = p.create_writer("handoff", "T", qos).unwrap();
            let r = p.create_reader("handoff", "T", qos).unwrap();
            // Nobody waits: no yield.
            let before = super::yields();
            w.write(&[1u8; 8]).unwrap();
            assert_eq!(super::yields(), before, "a write that woke nobody yielded");
            assert!(r.take().is_some());
            // A thread sleeps in wait_for_data: the write wakes it.
            let made =
                yields_waking(|| r.wait_for_data(Duration::from_secs(10)), || w.write(&[2u8; 8]).map(drop).unwrap());
            assert_eq!(made, u64::from(enabled), "enabled {enabled}: the write that woke the waiter");
        }
    }

    /// Two participants on loopback with shared memory, domain 198: `remote` stays out of this
    /// process's same-process routing (its writers reach `local`'s readers through shared memory,
    /// as one in another process would) and yields after waking as `remote_yields` says; `local`
    /// asks for `local_slice` (`super::super::wake_slice`). A writer of each on `topic`, and a
    /// reader of `local` that both have matched, the remote one over shared memory.
    pub(crate) fn shm_pair(
        topic: &str,
        remote_yields: bool,
        local_slice: Duration,
    ) -> (crate::Participant, crate::Participant, crate::Writer, crate::Writer, crate::Reader) {
        use std::time::Instant;

        use crate::{NetworkConfig, SharedMemoryConfig};
        let participant = |intra_process, yield_after_wake, wake_slice| {
            let net = NetworkConfig {
                intra_process,
                spdp_period: Duration::from_millis(200),
                domain_tag: format!("hdds-handoff-{}", std::process::id()),
                shared_memory: SharedMemoryConfig::default(),
                ..NetworkConfig::localhost()
            };
            let config = ParticipantConfig { domain_id: 198, yield_after_wake, wake_slice, ..Default::default() };
            Participant::with_network(config, net).unwrap()
        };
        let (remote, local) = (participant(false, remote_yields, Duration::ZERO), participant(true, true, local_slice));
        assert!(local.network_stats().unwrap().shm_active, "this test needs a usable /dev/shm");
        let qos = Qos::default();
        let remote_w = remote.create_writer(topic, "T", qos).unwrap();
        let local_w = local.create_writer(topic, "T", qos).unwrap();
        let r = local.create_reader(topic, "T", qos).unwrap();
        let end = Instant::now() + Duration::from_secs(10);
        while r.shm_port().is_none() || r.matched_writer_count() < 2 {
            assert!(Instant::now() < end, "the other participant's writer never matched over shared memory");
            std::thread::sleep(Duration::from_millis(20));
        }
        (remote, local, remote_w, local_w, r)
    }

    /// A wait set on a reader that a writer of another participant feeds through shared memory
    /// sleeps on the participant's doorbell, not on its condition variable (doorbell mode,
    /// `WaitCore::sleep_on_bell`). A write of the reader's own participant then wakes it through
    /// the doorbell (`Doorbell::wake_drainers`), and must yield just the same.
    #[test]
    fn a_write_yields_after_waking_a_wait_set_asleep_on_the_doorbell() {
        let (_remote, _local, _over_shm, w, r) = shm_pair("handoff-bell", true, Duration::ZERO);
        let made = yields_waking(|| wait_on(Target::ReaderData(&r)), || w.write(&[3u8; 8]).map(drop).unwrap());
        assert_eq!(made, 1, "the write that rang the doorbell did not yield");
        assert_eq!(r.take().map(|s| s.data.to_vec()), Some(vec![3u8; 8]));
    }

    /// A write through shared memory whose doorbell ring woke the other side's sleeping wait set
    /// (a thread of another process: `Doorbell::ring_sample` woke a drainer) yields too, unless
    /// its participant turned it off.
    #[test]
    fn a_write_yields_after_its_ring_woke_another_participants_wait_set() {
        for enabled in [true, false] {
            let (_remote, _local, w, _own, r) = shm_pair(&format!("handoff-ring-{enabled}"), enabled, Duration::ZERO);
            let made = yields_waking(|| wait_on(Target::ReaderData(&r)), || w.write(&[4u8; 8]).map(drop).unwrap());
            assert_eq!(made, u64::from(enabled), "enabled {enabled}: the write whose ring woke the wait set");
            assert_eq!(r.take().map(|s| s.data.to_vec()), Some(vec![4u8; 8]));
        }
    }

    /// A participant's guard condition yields after waking a wait set's sleeping thread, as its
    /// writes do (rclcpp's intra-process delivery and the floor program wake executors this way);
    /// one of no participant never does.
    #[test]
    fn a_participants_guard_condition_yields_after_waking_a_sleeper() {
        let p = Participant::new(ParticipantConfig::default()).unwrap();
        for (g, yields) in [(p.create_guard_condition(), 1), (crate::GuardCondition::new(), 0)] {
            assert_eq!(yields_waking(|| wait_on(Target::Guard(&g)), || g.trigger()), yields);
        }
    }
}

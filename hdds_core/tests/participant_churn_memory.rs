//! Memory of a long-lived participant while remote participants come and go: after a warm-up,
//! the heap in use (counted by a global allocator over every thread of this process) must not grow
//! with the number of participants that joined and left. The 30-minute endurance run showed ~50
//! bytes per departed participant in its subscriber processes; this is the deterministic version.
//!
//! Each cycle a "remote" participant (same process, `intra_process: false`, so it meets the
//! long-lived one as another process's would: over UDP, or over shared memory in the shm
//! variant) matches reliable KEEP_ALL readers and a writer with it, exchanges a few samples and
//! leaves: by its goodbye (dispose) or silently (the long-lived participant drops it when its
//! lease runs out). The measured window starts after warm-up cycles, and each checkpoint is taken
//! once the long-lived side has removed every departed participant, so only what a departure
//! leaves behind is counted. Run with `--nocapture` to see the numbers.

mod net_support;

use std::time::{Duration, Instant};

use hdds_core::{NetworkConfig, Participant, Reader, SharedMemoryConfig, Writer};
use net_support::{count_taken, counter_payload, keep_all, net_participant, wait_until};

#[path = "support/counting_alloc.rs"]
mod counting_alloc;

const T: &str = "hdds::test::Bytes_";
const TOPICS: [&str; 3] = ["churn/a", "churn/b", "churn/c"];
/// Where the joiner writes to the host.
const UP: &str = "churn/up";
/// Short, so that the lease-expiry variant is quick; the joiner announces itself every 100 ms
/// during its short life.
const JOINER_LEASE: Duration = Duration::from_millis(300);
/// Allowed growth per departed participant, the median over the measured intervals (the leak this
/// guards against was ~50 B per participant).
const MAX_BYTES_PER_CYCLE: f64 = 8.0;
/// Measured cycles are split into this many intervals (see `churn`).
const INTERVALS: usize = 5;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Leave {
    Dispose,
    LeaseExpiry,
}

fn net(shm: bool, lease: Duration) -> impl FnOnce(&mut NetworkConfig) {
    move |c| {
        c.shared_memory = if shm { SharedMemoryConfig::default() } else { SharedMemoryConfig::disabled() };
        c.lease_duration = lease;
        // Goodbyes are remembered this long (10 s by default): the measured window then holds a
        // steady number of them, not all of its departures.
        c.disposed_participant_memory = Duration::from_millis(200);
    }
}

/// The long-lived participant: a reliable KEEP_ALL writer on each topic, a reader of the joiners'.
struct Host {
    p: Participant,
    readers: Vec<Reader>,
    writers: Vec<Writer>,
}

/// One remote participant joins, matches, exchanges samples both ways and leaves.
fn cycle(domain: u32, host: &Host, shm: bool, leave: Leave, i: u32) {
    let joiner = net_participant(domain, net(shm, JOINER_LEASE));
    let readers: Vec<Reader> = TOPICS.iter().map(|t| joiner.create_reader(t, T, keep_all()).unwrap()).collect();
    let writer = joiner.create_writer(UP, T, keep_all()).unwrap();
    let matched = wait_until(Duration::from_secs(5), || {
        host.writers.iter().all(|w| w.matched_reader_count() == 1)
            && host.readers[0].matched_writer_count() == 1
            && readers.iter().all(|r| r.matched_writer_count() == 1)
            && writer.matched_reader_count() == 1
    });
    assert!(matched, "cycle {i}: the joiner did not match");
    for (w, r) in host.writers.iter().zip(&readers) {
        for k in 0..3 {
            w.write(&counter_payload(i * 10 + k)).unwrap();
        }
        assert_eq!(count_taken(r, 3, Duration::from_secs(5)), 3, "cycle {i}: samples to the joiner");
    }
    for k in 0..3 {
        writer.write(&counter_payload(k)).unwrap();
    }
    assert_eq!(count_taken(&host.readers[0], 3, Duration::from_secs(5)), 3, "cycle {i}: samples from the joiner");
    for w in &host.writers {
        assert!(w.wait_for_acknowledgments(Duration::from_secs(5)), "cycle {i}: acknowledgments");
    }
    let guid = joiner.guid();
    if leave == Leave::LeaseExpiry {
        joiner.set_network_silenced(true);
    }
    drop((readers, writer));
    // Dropped while still known (dispose), or known until its lease runs out (silenced).
    if leave == Leave::Dispose {
        drop(joiner);
        let gone = wait_until(Duration::from_secs(5), || !host.p.discovered_participants().contains(&guid));
        assert!(gone, "cycle {i}: the joiner's goodbye was not seen");
    } else {
        let gone = wait_until(Duration::from_secs(5), || !host.p.discovered_participants().contains(&guid));
        assert!(gone, "cycle {i}: the joiner was not dropped after its lease");
        drop(joiner);
    }
    let idle = wait_until(Duration::from_secs(5), || {
        host.writers.iter().all(|w| w.matched_reader_count() == 0) && host.readers[0].matched_writer_count() == 0
    });
    assert!(idle, "cycle {i}: the host still matches the departed joiner's endpoints");
}

/// The live bytes once the goodbyes of the last departures are forgotten (the host's timer drops
/// them after `disposed_participant_memory`, and the map with them when it empties).
fn settled() -> isize {
    std::thread::sleep(Duration::from_millis(400));
    counting_alloc::live()
}

fn churn(domain: u32, shm: bool, leave: Leave, warm_up: usize, measured: usize) {
    let host = {
        let p = net_participant(domain, net(shm, Duration::from_secs(10)));
        let readers = vec![p.create_reader(UP, T, keep_all()).unwrap()];
        let writers = TOPICS.iter().map(|t| p.create_writer(t, T, keep_all()).unwrap()).collect();
        Host { p, readers, writers }
    };
    let t = Instant::now();
    for i in 0..warm_up {
        cycle(domain, &host, shm, leave, i as u32);
    }
    // Settled checkpoints at every fifth of the measured cycles. A leak grows in every interval;
    // a one-time step (a table that keeps the capacity of a moment when several departures
    // overlapped on a loaded machine) shows in one interval only. The median interval says which.
    let mut marks = vec![settled()];
    let interval = measured / INTERVALS;
    for i in 0..measured {
        cycle(domain, &host, shm, leave, (warm_up + i) as u32);
        if (i + 1) % interval == 0 {
            marks.push(settled());
        }
    }
    let mut slopes: Vec<f64> = marks.windows(2).map(|w| (w[1] - w[0]) as f64 / interval as f64).collect();
    slopes.sort_by(f64::total_cmp);
    let per_cycle = slopes[slopes.len() / 2];
    let growth: Vec<isize> = marks.iter().map(|m| m - marks[0]).collect();
    let stats = host.p.network_stats().unwrap();
    println!(
        "{leave:?} shm={shm}: {} cycles in {:?}; live bytes from {}: {growth:?} every {interval} cycles (median {per_cycle:+.1} B/cycle); discovered {}, disposed {}, by lease {}",
        warm_up + measured,
        t.elapsed(),
        marks[0],
        stats.participants_discovered,
        stats.participants_disposed,
        stats.participants_lost_by_lease,
    );
    assert!(
        per_cycle < MAX_BYTES_PER_CYCLE,
        "{leave:?} shm={shm}: the heap grew by {per_cycle:.1} B per departed participant (limit {MAX_BYTES_PER_CYCLE})"
    );
}

// One test function: the counter is process-wide, so the variants must not run side by side.
#[test]
fn departed_participants_leave_no_memory_behind() {
    churn(214, false, Leave::Dispose, 30, 150);
    churn(214, true, Leave::Dispose, 30, 150);
    // Each cycle waits for a lease to run out: fewer of them.
    churn(214, false, Leave::LeaseExpiry, 20, 50);
}

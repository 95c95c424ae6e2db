//! A safe wrapper over the Linux futex syscall, on 32-bit words that may live in memory shared
//! between processes (so the non-private operations: the kernel keys the wait on the physical page,
//! and a wake from another process that maps the same page finds the sleeper).

use std::sync::atomic::AtomicU32;
use std::time::Duration;

/// Why [`wait`] returned. Callers re-check their condition in every case (a futex wait may also
/// return spuriously).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Woken {
    /// Woken by [`wake`], by a signal, or spuriously.
    Woken,
    /// The word did not hold `expected` when the kernel looked: no sleep happened.
    Changed,
    /// The timeout passed.
    TimedOut,
}

/// Sleeps while `word` holds `expected`, at most `timeout` (`None`: until woken). The kernel
/// compares and enqueues atomically, so a [`wake`] after the caller's last look is never lost.
pub fn wait(word: &AtomicU32, expected: u32, timeout: Option<Duration>) -> Woken {
    let ts = timeout.map(|t| libc::timespec {
        tv_sec: t.as_secs().min(i64::MAX as u64) as libc::time_t,
        tv_nsec: t.subsec_nanos() as libc::c_long,
    });
    let ts_ptr = ts.as_ref().map_or(std::ptr::null(), |t| t as *const libc::timespec);
    // SAFETY: `word` is a valid, aligned 32-bit atomic for the duration of the call (the borrow
    // keeps it, and the mapping that holds it, alive); the kernel only reads it. `ts_ptr` is null
    // or points at a timespec that outlives the call. FUTEX_WAIT takes no other pointer.
    let r = unsafe {
        libc::syscall(libc::SYS_futex, word.as_ptr(), libc::FUTEX_WAIT, expected, ts_ptr, std::ptr::null::<u32>(), 0)
    };
    if r == 0 {
        return Woken::Woken;
    }
    match std::io::Error::last_os_error().raw_os_error() {
        Some(libc::EAGAIN) => Woken::Changed,
        Some(libc::ETIMEDOUT) => Woken::TimedOut,
        // EINTR, or anything unexpected: the caller re-checks and waits again if it must.
        _ => Woken::Woken,
    }
}

/// Wakes up to `n` sleepers on `word` (in any process that maps it); returns how many woke.
pub fn wake(word: &AtomicU32, n: u32) -> usize {
    let n = n.min(i32::MAX as u32) as libc::c_int;
    // SAFETY: `word` is a valid, aligned 32-bit atomic for the duration of the call; FUTEX_WAKE
    // does not dereference the other arguments.
    let r = unsafe {
        libc::syscall(
            libc::SYS_futex,
            word.as_ptr(),
            libc::FUTEX_WAKE,
            n,
            std::ptr::null::<libc::timespec>(),
            std::ptr::null::<u32>(),
            0,
        )
    };
    usize::try_from(r).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::Ordering;
    use std::sync::Arc;
    use std::time::Instant;

    #[test]
    fn wait_returns_at_once_when_the_word_changed() {
        let w = AtomicU32::new(1);
        assert_eq!(wait(&w, 0, Some(Duration::from_secs(5))), Woken::Changed);
    }

    #[test]
    fn wait_times_out() {
        let w = AtomicU32::new(0);
        let t = Instant::now();
        assert_eq!(wait(&w, 0, Some(Duration::from_millis(20))), Woken::TimedOut);
        assert!(t.elapsed() >= Duration::from_millis(15));
    }

    #[test]
    fn wake_reaches_a_sleeper() {
        let w = Arc::new(AtomicU32::new(0));
        let w2 = Arc::clone(&w);
        let t = std::thread::spawn(move || {
            let start = Instant::now();
            while w2.load(Ordering::Acquire) == 0 {
                if start.elapsed() > Duration::from_secs(5) {
                    return false;
                }
                wait(&w2, 0, Some(Duration::from_secs(5)));
            }
            true
        });
        std::thread::sleep(Duration::from_millis(20));
        w.store(1, Ordering::Release);
        wake(&w, u32::MAX);
        assert!(t.join().unwrap());
    }
}

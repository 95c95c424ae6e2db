//! Stopping a tool cleanly on SIGINT/SIGTERM: the handler only raises a flag that the tool's loops
//! read, so participants are dropped normally (goodbyes sent, shared-memory segments removed).

use std::sync::atomic::{AtomicBool, Ordering};

static STOP: AtomicBool = AtomicBool::new(false);

extern "C" fn on_stop_signal(_: libc::c_int) {
    STOP.store(true, Ordering::SeqCst);
}

/// Makes SIGINT and SIGTERM raise the stop flag instead of killing the process.
pub fn install_stop_handlers() {
    for sig in [libc::SIGINT, libc::SIGTERM] {
        // SAFETY: the handler only stores to an atomic (async-signal-safe); the sigaction struct is
        // fully initialised (zeroed, then the handler and an empty mask set) before the call.
        unsafe {
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = on_stop_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
            libc::sigemptyset(&mut sa.sa_mask);
            libc::sigaction(sig, &sa, std::ptr::null_mut());
        }
    }
}

/// Whether a stop was asked for (by a signal or by [`request_stop`]).
pub fn stopped() -> bool {
    STOP.load(Ordering::SeqCst)
}

/// Raises the stop flag from the tool itself.
pub fn request_stop() {
    STOP.store(true, Ordering::SeqCst);
}

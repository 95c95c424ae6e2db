//! Time as the engine keeps it: signed nanoseconds since the UNIX epoch, which is what RTPS
//! timestamps (seconds + 2^-32 fractions) and rmw_time_point_value_t both convert to losslessly enough.

use std::time::{SystemTime, UNIX_EPOCH};

/// Nanoseconds since 1970-01-01T00:00:00Z.
pub type Timestamp = i64;

/// The wall-clock time now, as DDS source timestamps use it.
pub fn now() -> Timestamp {
    match SystemTime::now().duration_since(UNIX_EPOCH) {
        Ok(d) => d.as_nanos() as i64,
        // A clock set before 1970 is a misconfigured host; negative time keeps ordering intact.
        Err(e) => -(e.duration().as_nanos() as i64),
    }
}

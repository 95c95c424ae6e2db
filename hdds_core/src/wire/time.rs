//! RTPS Time_t and Duration_t (RTPS 2.5 section 9.3.2): seconds and 2^-32 fractions of a second.
//!
//! Both vendors put Duration_t on the wire in this form (Fast DDS converts its nanoseconds to
//! fractions when it serializes), so one type serves timestamps (INFO_TS) and durations (leases,
//! deadlines, blocking times).

use crate::cdr::{CdrReader, CdrSink, CdrWriter, DecodeError, EncodeError};
use crate::time::Timestamp;

const NANOS: i128 = 1_000_000_000;

/// A point in time or a duration as RTPS encodes it.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Default)]
pub struct Time {
    pub seconds: i32,
    pub fraction: u32,
}

/// Durations share the wire layout.
pub type Duration = Time;

impl Time {
    pub const ZERO: Time = Time { seconds: 0, fraction: 0 };
    /// TIME_INVALID.
    pub const INVALID: Time = Time { seconds: -1, fraction: 0xffff_ffff };
    /// TIME_INFINITE / DURATION_INFINITE.
    pub const INFINITE: Time = Time { seconds: 0x7fff_ffff, fraction: 0xffff_ffff };

    pub const fn is_infinite(self) -> bool {
        self.seconds == Self::INFINITE.seconds && self.fraction == Self::INFINITE.fraction
    }

    /// Nanoseconds, rounded to nearest. `None` for INFINITE and INVALID, which are not times.
    pub fn to_nanos(self) -> Option<i64> {
        if self.is_infinite() || self == Self::INVALID {
            return None;
        }
        let frac_ns = (self.fraction as i128 * NANOS + (1 << 31)) >> 32;
        Some((self.seconds as i128 * NANOS + frac_ns) as i64)
    }

    /// From nanoseconds, rounded to the nearest fraction; saturates to INFINITE past i32 seconds.
    pub fn from_nanos(ns: i64) -> Time {
        let secs = ns.div_euclid(1_000_000_000);
        let rem = ns.rem_euclid(1_000_000_000) as i128;
        let mut frac = ((rem << 32) + NANOS / 2) / NANOS;
        let mut secs = secs;
        if frac >= 1 << 32 {
            frac -= 1 << 32;
            secs += 1;
        }
        match i32::try_from(secs) {
            Ok(s) if s != i32::MAX => Time { seconds: s, fraction: frac as u32 },
            _ if secs < 0 => Time { seconds: i32::MIN, fraction: 0 },
            _ => Time::INFINITE,
        }
    }

    /// From the engine's timestamp (nanoseconds since the UNIX epoch, as RTPS also counts).
    pub fn from_timestamp(t: Timestamp) -> Time {
        Time::from_nanos(t)
    }

    pub fn read(r: &mut CdrReader<'_>) -> Result<Self, DecodeError> {
        Ok(Time { seconds: r.read_i32()?, fraction: r.read_u32()? })
    }

    pub fn write<S: CdrSink>(self, w: &mut CdrWriter<S>) -> Result<(), EncodeError> {
        w.write_i32(self.seconds)?;
        w.write_u32(self.fraction)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversions() {
        assert_eq!(Time { seconds: 1, fraction: 0x8000_0000 }.to_nanos(), Some(1_500_000_000));
        assert_eq!(Time::from_nanos(1_500_000_000), Time { seconds: 1, fraction: 0x8000_0000 });
        assert_eq!(Time::INFINITE.to_nanos(), None);
        assert_eq!(Time::from_nanos(i64::MAX), Time::INFINITE);
        for ns in [0i64, 1, 999_999_999, 1_700_000_000_123_456_789, -5] {
            let back = Time::from_nanos(ns).to_nanos().unwrap();
            assert!((back - ns).abs() <= 1, "{ns} -> {back}");
        }
    }
}

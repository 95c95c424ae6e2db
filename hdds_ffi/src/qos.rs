//! QoS as C sees it: a plain struct of integers, validated on the way in.

use std::time::Duration;

use hdds_core::error::Error;
use hdds_core::qos::{Durability, History, Liveliness, LivelinessKind, Qos, Reliability, INFINITE};

pub const HDDS_RELIABILITY_BEST_EFFORT: u32 = 0;
pub const HDDS_RELIABILITY_RELIABLE: u32 = 1;
pub const HDDS_DURABILITY_VOLATILE: u32 = 0;
pub const HDDS_DURABILITY_TRANSIENT_LOCAL: u32 = 1;
pub const HDDS_HISTORY_KEEP_LAST: u32 = 0;
pub const HDDS_HISTORY_KEEP_ALL: u32 = 1;
pub const HDDS_LIVELINESS_AUTOMATIC: u32 = 0;
pub const HDDS_LIVELINESS_MANUAL_BY_PARTICIPANT: u32 = 1;
pub const HDDS_LIVELINESS_MANUAL_BY_TOPIC: u32 = 2;
/// A duration that never ends (DDS's DURATION_INFINITE), in nanoseconds.
pub const HDDS_DURATION_INFINITE: i64 = i64::MAX;

/// The QoS of a writer or reader. Fill it with hdds_qos_default() and change what differs.
/// Durations are nanoseconds; HDDS_DURATION_INFINITE means infinite.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct HddsQos {
    /// HDDS_RELIABILITY_*
    pub reliability: u32,
    /// HDDS_DURABILITY_*
    pub durability: u32,
    /// HDDS_HISTORY_*
    pub history: u32,
    /// The depth of a KEEP_LAST history (at least 1).
    pub depth: u32,
    pub max_blocking_time_ns: i64,
    pub deadline_ns: i64,
    pub lifespan_ns: i64,
    /// HDDS_LIVELINESS_*
    pub liveliness: u32,
    pub liveliness_lease_duration_ns: i64,
}

fn duration_in(ns: i64, what: &str) -> Result<Duration, Error> {
    match ns {
        HDDS_DURATION_INFINITE => Ok(INFINITE),
        n if n >= 0 => Ok(Duration::from_nanos(n as u64)),
        n => Err(Error::bad_argument(format!("{what} is negative ({n} ns)"))),
    }
}

fn duration_out(d: Duration) -> i64 {
    if d == INFINITE {
        HDDS_DURATION_INFINITE
    } else {
        i64::try_from(d.as_nanos()).unwrap_or(HDDS_DURATION_INFINITE)
    }
}

impl HddsQos {
    pub(crate) fn to_core(self) -> Result<Qos, Error> {
        let reliability = match self.reliability {
            HDDS_RELIABILITY_BEST_EFFORT => Reliability::BestEffort,
            HDDS_RELIABILITY_RELIABLE => Reliability::Reliable,
            v => return Err(Error::bad_argument(format!("reliability {v} is not an HDDS_RELIABILITY_* value"))),
        };
        let durability = match self.durability {
            HDDS_DURABILITY_VOLATILE => Durability::Volatile,
            HDDS_DURABILITY_TRANSIENT_LOCAL => Durability::TransientLocal,
            v => return Err(Error::bad_argument(format!("durability {v} is not an HDDS_DURABILITY_* value"))),
        };
        let history = match (self.history, self.depth) {
            (HDDS_HISTORY_KEEP_LAST, 0) => {
                return Err(Error::bad_argument("a KEEP_LAST history needs a depth of at least 1"))
            }
            (HDDS_HISTORY_KEEP_LAST, d) => History::KeepLast(d),
            (HDDS_HISTORY_KEEP_ALL, _) => History::KeepAll,
            (v, _) => return Err(Error::bad_argument(format!("history {v} is not an HDDS_HISTORY_* value"))),
        };
        let kind = match self.liveliness {
            HDDS_LIVELINESS_AUTOMATIC => LivelinessKind::Automatic,
            HDDS_LIVELINESS_MANUAL_BY_PARTICIPANT => LivelinessKind::ManualByParticipant,
            HDDS_LIVELINESS_MANUAL_BY_TOPIC => LivelinessKind::ManualByTopic,
            v => return Err(Error::bad_argument(format!("liveliness {v} is not an HDDS_LIVELINESS_* value"))),
        };
        Ok(Qos {
            reliability,
            max_blocking_time: duration_in(self.max_blocking_time_ns, "max_blocking_time_ns")?,
            durability,
            history,
            deadline: duration_in(self.deadline_ns, "deadline_ns")?,
            lifespan: duration_in(self.lifespan_ns, "lifespan_ns")?,
            liveliness: Liveliness {
                kind,
                lease_duration: duration_in(self.liveliness_lease_duration_ns, "liveliness_lease_duration_ns")?,
            },
        })
    }

    pub(crate) fn from_core(q: &Qos) -> HddsQos {
        let (history, depth) = match q.history {
            History::KeepLast(d) => (HDDS_HISTORY_KEEP_LAST, d),
            History::KeepAll => (HDDS_HISTORY_KEEP_ALL, 0),
        };
        HddsQos {
            reliability: match q.reliability {
                Reliability::BestEffort => HDDS_RELIABILITY_BEST_EFFORT,
                Reliability::Reliable => HDDS_RELIABILITY_RELIABLE,
            },
            durability: match q.durability {
                Durability::Volatile => HDDS_DURABILITY_VOLATILE,
                Durability::TransientLocal => HDDS_DURABILITY_TRANSIENT_LOCAL,
            },
            history,
            depth,
            max_blocking_time_ns: duration_out(q.max_blocking_time),
            deadline_ns: duration_out(q.deadline),
            lifespan_ns: duration_out(q.lifespan),
            liveliness: match q.liveliness.kind {
                LivelinessKind::Automatic => HDDS_LIVELINESS_AUTOMATIC,
                LivelinessKind::ManualByParticipant => HDDS_LIVELINESS_MANUAL_BY_PARTICIPANT,
                LivelinessKind::ManualByTopic => HDDS_LIVELINESS_MANUAL_BY_TOPIC,
            },
            liveliness_lease_duration_ns: duration_out(q.liveliness.lease_duration),
        }
    }
}

/// Fills *qos with the engine's defaults (ROS 2's default profile: reliable, volatile, keep last 10).
/// Returns HDDS_RET_BAD_ARGUMENT if qos is NULL. Thread-safe.
#[no_mangle]
pub extern "C" fn hdds_qos_default(qos: *mut HddsQos) -> crate::HddsRet {
    crate::ret::guard("hdds_qos_default", || crate::ret::out(qos, "qos", HddsQos::from_core(&Qos::default())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_rejects_bad_values() {
        let q = HddsQos::from_core(&Qos::default());
        assert_eq!(q.to_core().unwrap(), Qos::default());
        assert!(HddsQos { reliability: 7, ..q }.to_core().unwrap_err().message().contains("reliability 7"));
        assert!(HddsQos { depth: 0, ..q }.to_core().is_err());
        assert!(HddsQos { deadline_ns: -1, ..q }.to_core().is_err());
        let keep_all = HddsQos { history: HDDS_HISTORY_KEEP_ALL, depth: 0, ..q };
        assert_eq!(keep_all.to_core().unwrap().history, History::KeepAll);
    }
}

//! DDS QoS policies as the engine uses them, and the request/offered compatibility rules
//! (DDS 1.4 section 2.2.3) that decide whether a writer and a reader match.
//!
//! Durations use [`INFINITE`] (`Duration::MAX`) for "infinite", as DDS does.

use std::time::Duration;

/// DDS's infinite duration.
pub const INFINITE: Duration = Duration::MAX;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Reliability {
    BestEffort,
    Reliable,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Durability {
    Volatile,
    TransientLocal,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum History {
    /// Keep the newest `depth` samples (per instance); depth is at least 1.
    KeepLast(u32),
    /// Keep every sample until it is taken (readers) or acknowledged (writers), up to resource limits.
    KeepAll,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum LivelinessKind {
    Automatic,
    ManualByParticipant,
    ManualByTopic,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Liveliness {
    pub kind: LivelinessKind,
    pub lease_duration: Duration,
}

/// The policies of one writer or reader.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Qos {
    pub reliability: Reliability,
    /// How long a reliable writer may block when its history is full (DDS default 100 ms).
    pub max_blocking_time: Duration,
    pub durability: Durability,
    pub history: History,
    pub deadline: Duration,
    pub lifespan: Duration,
    pub liveliness: Liveliness,
}

impl Default for Qos {
    /// ROS 2's default profile: reliable, volatile, keep last 10.
    fn default() -> Self {
        Qos {
            reliability: Reliability::Reliable,
            max_blocking_time: Duration::from_millis(100),
            durability: Durability::Volatile,
            history: History::KeepLast(10),
            deadline: INFINITE,
            lifespan: INFINITE,
            liveliness: Liveliness { kind: LivelinessKind::Automatic, lease_duration: INFINITE },
        }
    }
}

/// The policy that made an offered (writer) QoS fail a requested (reader) QoS.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IncompatiblePolicy {
    Reliability,
    Durability,
    Deadline,
    Liveliness,
}

impl IncompatiblePolicy {
    pub fn name(self) -> &'static str {
        match self {
            IncompatiblePolicy::Reliability => "RELIABILITY",
            IncompatiblePolicy::Durability => "DURABILITY",
            IncompatiblePolicy::Deadline => "DEADLINE",
            IncompatiblePolicy::Liveliness => "LIVELINESS",
        }
    }
}

impl Qos {
    /// Checks the request/offered rules. The first failing policy is returned, in the DDS
    /// specification's order, so that status reports name the same policy other vendors name.
    pub fn offered_satisfies(writer: &Qos, reader: &Qos) -> Result<(), IncompatiblePolicy> {
        if writer.reliability < reader.reliability {
            return Err(IncompatiblePolicy::Reliability);
        }
        if writer.durability < reader.durability {
            return Err(IncompatiblePolicy::Durability);
        }
        if writer.deadline > reader.deadline {
            return Err(IncompatiblePolicy::Deadline);
        }
        if writer.liveliness.kind < reader.liveliness.kind
            || writer.liveliness.lease_duration > reader.liveliness.lease_duration
        {
            return Err(IncompatiblePolicy::Liveliness);
        }
        Ok(())
    }

    /// The number of samples a KEEP_LAST history keeps, or `None` for KEEP_ALL.
    pub fn depth(&self) -> Option<usize> {
        match self.history {
            History::KeepLast(d) => Some(d.max(1) as usize),
            History::KeepAll => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_match() {
        assert_eq!(Qos::offered_satisfies(&Qos::default(), &Qos::default()), Ok(()));
    }

    #[test]
    fn best_effort_writer_fails_reliable_reader() {
        let w = Qos { reliability: Reliability::BestEffort, ..Qos::default() };
        assert_eq!(Qos::offered_satisfies(&w, &Qos::default()), Err(IncompatiblePolicy::Reliability));
        let r = Qos { reliability: Reliability::BestEffort, ..Qos::default() };
        assert_eq!(Qos::offered_satisfies(&Qos::default(), &r), Ok(()));
    }

    #[test]
    fn volatile_writer_fails_transient_local_reader() {
        let r = Qos { durability: Durability::TransientLocal, ..Qos::default() };
        assert_eq!(Qos::offered_satisfies(&Qos::default(), &r), Err(IncompatiblePolicy::Durability));
    }

    #[test]
    fn deadline_and_liveliness() {
        let r = Qos { deadline: Duration::from_millis(10), ..Qos::default() };
        assert_eq!(Qos::offered_satisfies(&Qos::default(), &r), Err(IncompatiblePolicy::Deadline));
        let w = Qos { deadline: Duration::from_millis(5), ..Qos::default() };
        assert_eq!(Qos::offered_satisfies(&w, &r), Ok(()));
        let r = Qos {
            liveliness: Liveliness { kind: LivelinessKind::ManualByTopic, lease_duration: INFINITE },
            ..Qos::default()
        };
        assert_eq!(Qos::offered_satisfies(&Qos::default(), &r), Err(IncompatiblePolicy::Liveliness));
    }

    #[test]
    fn depth_is_at_least_one() {
        let q = Qos { history: History::KeepLast(0), ..Qos::default() };
        assert_eq!(q.depth(), Some(1));
        assert_eq!(Qos { history: History::KeepAll, ..Qos::default() }.depth(), None);
    }
}

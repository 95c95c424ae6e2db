//! Whether a writer and a reader match, and if not, why (DDS 1.4 section 2.2.3, DDS-XTypes 1.3
//! section 7.6.3, and what Cyclone 0.10 / Fast DDS 2.9 check).
//!
//! In order: topic name; type (names compared, since we exchange no type objects; a reader that
//! forces type validation needs type information from both sides); keyed-ness (Fast DDS refuses a
//! keyed/keyless pair); the request/offered policies (the engine's [`Qos::offered_satisfies`] for
//! reliability, durability, deadline and liveliness, then what the engine's `Qos` does not carry:
//! TRANSIENT/PERSISTENT durability, presentation, latency budget, ownership, destination order,
//! data representation, Fast DDS's disable-positive-acks); and last the partitions.
//!
//! The same function serves discovered and local endpoints: build a local one with
//! [`DiscoveredWriterData::new`] / [`DiscoveredReaderData::new`].

use std::fmt;

use super::sedp::{DiscoveredReaderData, DiscoveredWriterData};
use crate::qos::{IncompatiblePolicy, Qos};

/// A request/offered policy that failed, named as DDS names it in status reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum QosPolicy {
    Reliability,
    Durability,
    Presentation,
    Deadline,
    LatencyBudget,
    Ownership,
    Liveliness,
    DestinationOrder,
    DataRepresentation,
    TypeConsistencyEnforcement,
    /// Fast DDS's vendor policy: a reader without positive acks needs a writer without them.
    DisablePositiveAcks,
}

impl QosPolicy {
    pub fn name(self) -> &'static str {
        match self {
            QosPolicy::Reliability => IncompatiblePolicy::Reliability.name(),
            QosPolicy::Durability => IncompatiblePolicy::Durability.name(),
            QosPolicy::Deadline => IncompatiblePolicy::Deadline.name(),
            QosPolicy::Liveliness => IncompatiblePolicy::Liveliness.name(),
            QosPolicy::Presentation => "PRESENTATION",
            QosPolicy::LatencyBudget => "LATENCY_BUDGET",
            QosPolicy::Ownership => "OWNERSHIP",
            QosPolicy::DestinationOrder => "DESTINATION_ORDER",
            QosPolicy::DataRepresentation => "DATA_REPRESENTATION",
            QosPolicy::TypeConsistencyEnforcement => "TYPE_CONSISTENCY_ENFORCEMENT",
            QosPolicy::DisablePositiveAcks => "DISABLE_POSITIVE_ACKS",
        }
    }
}

impl From<IncompatiblePolicy> for QosPolicy {
    fn from(p: IncompatiblePolicy) -> Self {
        match p {
            IncompatiblePolicy::Reliability => QosPolicy::Reliability,
            IncompatiblePolicy::Durability => QosPolicy::Durability,
            IncompatiblePolicy::Deadline => QosPolicy::Deadline,
            IncompatiblePolicy::Liveliness => QosPolicy::Liveliness,
        }
    }
}

/// Why a writer and a reader do not match.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MatchError {
    /// Different topics: not a candidate pair at all.
    TopicName,
    /// Same topic, different type names (DDS's INCONSISTENT_TOPIC).
    TypeName,
    /// One side is keyed, the other keyless.
    TopicKind,
    /// The writer's offer does not satisfy the reader's request (OFFERED/REQUESTED_INCOMPATIBLE_QOS).
    IncompatibleQos(QosPolicy),
    /// No partition in common (not an incompatible-QoS status in DDS).
    Partition,
}

impl MatchError {
    /// The failing policy, for incompatible-QoS status counts.
    pub fn policy(self) -> Option<QosPolicy> {
        match self {
            MatchError::IncompatibleQos(p) => Some(p),
            _ => None,
        }
    }

    /// A short name: the policy's name, or TOPIC_NAME / TYPE_NAME / TOPIC_KIND / PARTITION.
    pub fn name(self) -> &'static str {
        match self {
            MatchError::TopicName => "TOPIC_NAME",
            MatchError::TypeName => "TYPE_NAME",
            MatchError::TopicKind => "TOPIC_KIND",
            MatchError::IncompatibleQos(p) => p.name(),
            MatchError::Partition => "PARTITION",
        }
    }
}

impl fmt::Display for MatchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MatchError::TopicName => f.write_str("different topic names"),
            MatchError::TypeName => f.write_str("same topic but different type names"),
            MatchError::TopicKind => f.write_str("one side is keyed and the other keyless"),
            MatchError::IncompatibleQos(p) => {
                write!(f, "incompatible QoS: the writer's {} does not satisfy the reader's request", p.name())
            }
            MatchError::Partition => f.write_str("no partition in common"),
        }
    }
}

impl std::error::Error for MatchError {}

/// Whether `writer` and `reader` match; the first reason they do not.
pub fn check_match(writer: &DiscoveredWriterData, reader: &DiscoveredReaderData) -> Result<(), MatchError> {
    if writer.topic_name != reader.topic_name {
        return Err(MatchError::TopicName);
    }
    let (w, r) = (&writer.qos, &reader.qos);
    if r.type_consistency.force_type_validation
        && (writer.type_information.is_none() || reader.type_information.is_none())
    {
        return Err(MatchError::IncompatibleQos(QosPolicy::TypeConsistencyEnforcement));
    }
    if writer.type_name != reader.type_name {
        return Err(MatchError::TypeName);
    }
    if writer.keyed() != reader.keyed() {
        return Err(MatchError::TopicKind);
    }
    Qos::offered_satisfies(&w.to_qos(), &r.to_qos()).map_err(|p| MatchError::IncompatibleQos(p.into()))?;
    let incompatible = |p| Err(MatchError::IncompatibleQos(p));
    // The engine's Qos folds TRANSIENT and PERSISTENT into TRANSIENT_LOCAL: compare the full order.
    if w.durability < r.durability {
        return incompatible(QosPolicy::Durability);
    }
    if w.presentation.access_scope < r.presentation.access_scope
        || (!w.presentation.coherent_access && r.presentation.coherent_access)
        || (!w.presentation.ordered_access && r.presentation.ordered_access)
    {
        return incompatible(QosPolicy::Presentation);
    }
    if w.latency_budget > r.latency_budget {
        return incompatible(QosPolicy::LatencyBudget);
    }
    if w.ownership != r.ownership {
        return incompatible(QosPolicy::Ownership);
    }
    if w.destination_order < r.destination_order {
        return incompatible(QosPolicy::DestinationOrder);
    }
    // XTypes 7.6.3.1.1: the writer's first representation must be one the reader accepts. We do not
    // follow Fast DDS 2.9 in letting an XCDR1 writer match an XCDR2-only reader.
    if !r.accepts_representation(w.offered_representation()) {
        return incompatible(QosPolicy::DataRepresentation);
    }
    if r.disable_positive_acks && !w.disable_positive_acks {
        return incompatible(QosPolicy::DisablePositiveAcks);
    }
    if !partitions_match(&w.partition, &r.partition) {
        return Err(MatchError::Partition);
    }
    Ok(())
}

/// Whether two PARTITION lists share a partition. An empty list is the default partition "". A
/// name with `*` or `?` is a pattern that matches the other side's plain names; two patterns never
/// match each other (DDS 1.4 2.2.3.13; Cyclone does the same).
pub fn partitions_match(a: &[String], b: &[String]) -> bool {
    const DEFAULT: &[String] = &[String::new()];
    let a = if a.is_empty() { DEFAULT } else { a };
    let b = if b.is_empty() { DEFAULT } else { b };
    a.iter().any(|x| b.iter().any(|y| partition_pair_matches(x, y)))
}

fn is_pattern(s: &str) -> bool {
    s.contains(['*', '?'])
}

fn partition_pair_matches(x: &str, y: &str) -> bool {
    match (is_pattern(x), is_pattern(y)) {
        (false, false) => x == y,
        (true, false) => glob(x.as_bytes(), y.as_bytes()),
        (false, true) => glob(y.as_bytes(), x.as_bytes()),
        (true, true) => false,
    }
}

/// fnmatch-style `*` and `?` matching (no character classes), linear backtracking on the last `*`.
fn glob(pat: &[u8], s: &[u8]) -> bool {
    let (mut p, mut i) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while i < s.len() {
        if p < pat.len() && (pat[p] == b'?' || pat[p] == s[i]) {
            p += 1;
            i += 1;
        } else if p < pat.len() && pat[p] == b'*' {
            star = Some((p, i));
            p += 1;
        } else if let Some((sp, si)) = star {
            p = sp + 1;
            i = si + 1;
            star = Some((sp, si + 1));
        } else {
            return false;
        }
    }
    pat[p..].iter().all(|&c| c == b'*')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(xs: &[&str]) -> Vec<String> {
        xs.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn globbing() {
        assert!(glob(b"*", b""));
        assert!(glob(b"a*c", b"abbbc"));
        assert!(glob(b"a?c", b"abc"));
        assert!(!glob(b"a?c", b"ac"));
        assert!(glob(b"*b*", b"abc"));
        assert!(!glob(b"a*d", b"abc"));
        assert!(glob(b"**", b"x"));
    }

    #[test]
    fn partitions() {
        assert!(partitions_match(&[], &[]));
        assert!(partitions_match(&[], &v(&[""])));
        assert!(partitions_match(&v(&["*"]), &[]), "'*' matches the default partition");
        assert!(!partitions_match(&v(&["a"]), &[]));
        assert!(partitions_match(&v(&["a", "b"]), &v(&["c", "b"])));
        assert!(partitions_match(&v(&["ros*"]), &v(&["ros2"])));
        assert!(partitions_match(&v(&["ros2"]), &v(&["r?s2"])));
        assert!(!partitions_match(&v(&["ros*"]), &v(&["r*"])), "two patterns never match");
        assert!(!partitions_match(&v(&["a"]), &v(&["b"])));
    }
}

//! Statuses an endpoint reports: why remote endpoints did not match ([`MatchStatus`]) and the DDS
//! communication statuses ([`Status`], one per [`StatusMask`] bit) that wait sets and listeners see.

use crate::discovery::{MatchError, QosPolicy};

/// Remote endpoints on the same topic that did not match this one, and why. The RMW layer reports
/// the QoS part as OFFERED/REQUESTED_INCOMPATIBLE_QOS events.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MatchStatus {
    /// Remote endpoints whose QoS was incompatible with ours (DDS's total_count).
    pub incompatible_qos_count: u32,
    /// The policy that failed last (DDS's last_policy_id).
    pub last_incompatible_policy: Option<QosPolicy>,
    /// Every mismatch on the same topic, QoS or not (type name, keyed-ness, partition).
    pub mismatch_count: u32,
    pub last_mismatch: Option<MatchError>,
}

impl MatchStatus {
    pub(crate) fn record(&mut self, e: MatchError) {
        self.mismatch_count = self.mismatch_count.saturating_add(1);
        self.last_mismatch = Some(e);
        if let Some(p) = e.policy() {
            self.incompatible_qos_count = self.incompatible_qos_count.saturating_add(1);
            self.last_incompatible_policy = Some(p);
        }
    }
}

/// The statuses an endpoint reports, as bits of a mask (DDS's StatusKind, renumbered densely).
/// Reader statuses: [`REQUESTED_DEADLINE_MISSED`], [`LIVELINESS_CHANGED`],
/// [`REQUESTED_INCOMPATIBLE_QOS`], [`SAMPLE_LOST`], [`SUBSCRIPTION_MATCHED`]. Writer statuses:
/// [`OFFERED_DEADLINE_MISSED`], [`LIVELINESS_LOST`], [`OFFERED_INCOMPATIBLE_QOS`],
/// [`PUBLICATION_MATCHED`].
pub type StatusMask = u32;

pub const REQUESTED_DEADLINE_MISSED: StatusMask = 1 << 0;
pub const LIVELINESS_CHANGED: StatusMask = 1 << 1;
pub const REQUESTED_INCOMPATIBLE_QOS: StatusMask = 1 << 2;
pub const SAMPLE_LOST: StatusMask = 1 << 3;
pub const OFFERED_DEADLINE_MISSED: StatusMask = 1 << 4;
pub const LIVELINESS_LOST: StatusMask = 1 << 5;
pub const OFFERED_INCOMPATIBLE_QOS: StatusMask = 1 << 6;
pub const SUBSCRIPTION_MATCHED: StatusMask = 1 << 7;
pub const PUBLICATION_MATCHED: StatusMask = 1 << 8;

/// Every status a reader reports.
pub const READER_STATUSES: StatusMask =
    REQUESTED_DEADLINE_MISSED | LIVELINESS_CHANGED | REQUESTED_INCOMPATIBLE_QOS | SAMPLE_LOST | SUBSCRIPTION_MATCHED;
/// Every status a writer reports.
pub const WRITER_STATUSES: StatusMask =
    OFFERED_DEADLINE_MISSED | LIVELINESS_LOST | OFFERED_INCOMPATIBLE_QOS | PUBLICATION_MATCHED;

/// One status's counters, in one shape for all of them (the C ABI's HddsStatus):
/// - deadline missed, sample lost, liveliness lost: `total_count` (+ `total_count_change`);
/// - incompatible QoS: `total_count` and `last_policy_id` (DDS's QosPolicyId_t);
/// - liveliness changed: `current_count` is DDS's alive_count and `total_count` its
///   not_alive_count (each with its change);
/// - matched: `total_count` is every match so far, `current_count` the matches now.
///
/// The `*_change` fields count since the status was last read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Status {
    pub total_count: i32,
    pub total_count_change: i32,
    pub current_count: i32,
    pub current_count_change: i32,
    pub last_policy_id: i32,
}

impl Status {
    /// One more occurrence (a deadline missed, a sample lost, liveliness lost).
    pub(crate) fn add_total(&mut self, n: i32) {
        self.total_count = self.total_count.saturating_add(n);
        self.total_count_change = self.total_count_change.saturating_add(n);
    }

    pub(crate) fn add_current(&mut self, n: i32) {
        self.current_count = self.current_count.saturating_add(n);
        self.current_count_change = self.current_count_change.saturating_add(n);
    }
}

/// The exactly-one status bit of `kind` that `allowed` contains, or a message saying what is wrong.
pub(crate) fn single_status(kind: StatusMask, allowed: StatusMask, who: &str) -> crate::Result<usize> {
    if kind.count_ones() != 1 || kind & allowed == 0 {
        return Err(crate::Error::bad_argument(format!(
            "status {kind:#x} is not exactly one of the {who} statuses (mask {allowed:#x})"
        )));
    }
    Ok(kind.trailing_zeros() as usize)
}

/// DDS's QosPolicyId_t of a policy (DDS 1.4 section 2.3.3; Fast DDS numbers its vendor policy 25).
pub fn qos_policy_id(p: QosPolicy) -> i32 {
    match p {
        QosPolicy::Durability => 2,
        QosPolicy::Presentation => 3,
        QosPolicy::Deadline => 4,
        QosPolicy::LatencyBudget => 5,
        QosPolicy::Ownership => 6,
        QosPolicy::Liveliness => 8,
        QosPolicy::Reliability => 11,
        QosPolicy::DestinationOrder => 12,
        QosPolicy::DataRepresentation => 23,
        QosPolicy::TypeConsistencyEnforcement => 24,
        QosPolicy::DisablePositiveAcks => 25,
    }
}

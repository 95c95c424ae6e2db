//! A domain participant: the owner of writers and readers and of the GUID prefix they share.
//!
//! [`Participant::new`] makes a same-process participant (the TopicMerger serves its endpoints,
//! no socket, no thread). [`Participant::with_network`] adds the network runtime: sockets, one
//! receive thread and one timer thread, SPDP/SEDP discovery and RTPS over UDP ([`super::net`]).

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::Duration;

use super::discovery_events::{DiscoveryListener, EndpointInfo, Graph, ParticipantInfo};
use super::guid_gen;
use super::instances::ReaderKeys;
use super::net::{NetStats, Network, NetworkConfig};
use super::reader::Reader;
use super::writer::Writer;
use crate::error::{Error, Result};
use crate::qos::Qos;
use crate::transport::intra::TopicKey;
use crate::wire::{EntityId, EntityKind, Guid, GuidPrefix, VENDOR_ID_HDDS};

/// What every participant needs. The network side is a separate [`NetworkConfig`], given to
/// [`Participant::with_network`]: hdds_ffi builds this struct by its fields, and a participant
/// without network needs none of those settings.
#[derive(Debug, Clone)]
pub struct ParticipantConfig {
    pub domain_id: u32,
    /// USER_DATA: announced in SPDP (PID_USER_DATA) and reported in discovery events. ROS puts
    /// `enclave=<path>;` there.
    pub user_data: Vec<u8>,
    /// The history cap of KEEP_ALL endpoints (DDS's RESOURCE_LIMITS max_samples, which the QoS
    /// does not carry): a reliable KEEP_ALL writer holds at most this many samples not yet
    /// acknowledged (one more write blocks up to max_blocking_time, then times out), a
    /// TRANSIENT_LOCAL KEEP_ALL writer replays at most this many to late joiners, and a KEEP_ALL
    /// reader served through shared memory leaves samples in the writer's ring (so that the writer
    /// blocks) once it holds this many untaken. Past it, a reliable KEEP_ALL reader fed over UDP
    /// stops acknowledging (its writer resends, then blocks) and a best-effort KEEP_ALL reader
    /// drops the newest sample; both count it ([`crate::Reader::history_refusals`]).
    pub keep_all_max_samples: usize,
    /// How long a thread waiting on this participant's readers looks for the next sample before
    /// it sleeps: `Reader::wait_for_data`, a wait set with one of them among its entries (the
    /// RMW's `rmw_wait`), a shared-memory doorbell, the shared-memory reader thread. It spins for
    /// at most this long, only while samples come often (its previous wait was shorter than 20
    /// times the bound): a sample that comes within it costs no sleep and no wake-up on either
    /// side, and a reader fed at 1 kHz never spins (`crate::spin` has the model).
    /// [`crate::spin::WAIT_SPIN`] (5 µs) by default; `Duration::ZERO` sleeps at once;
    /// [`ParticipantConfig::busy_polling`] polls 10 ms; `Duration::MAX` never sleeps (a core per
    /// waiting thread).
    pub wait_spin: Duration,
    /// Whether a write that woke a thread of this process sleeping for one of its readers (an
    /// executor in `rmw_wait`, a `Reader::wait_for_data`) yields the CPU once it is done, so that
    /// the woken thread, which the kernel mostly queues on the writer's CPU, runs at once instead
    /// of after the writer's next steps (`crate::runtime::handoff` has the model and the
    /// measurements). True by default; false keeps the writer on its CPU (no `sched_yield`).
    pub yield_after_wake: bool,
    /// The scheduler slice a thread asks the kernel for, once, when it first sleeps on the
    /// shared-memory doorbell for one of this participant's readers (an executor in `rmw_wait`, a
    /// `Reader::wait_for_data`, waiting for a writer of another process on the host): on Linux
    /// 6.12 and later a woken thread with a shorter slice than the running one preempts it at the
    /// wake-up, so the writer hands the CPU to the thread it woke inside its futex wake rather
    /// than at its yield (`crate::runtime::wake_slice` has the model, the conditions and the
    /// measurements; same-process waits do not ask, measured slower). [`crate::runtime::wake_slice::WAKE_SLICE`]
    /// (100 µs, the kernel's shortest) by default; `Duration::ZERO` leaves threads as they are.
    pub wake_slice: Duration,
}

impl Default for ParticipantConfig {
    fn default() -> Self {
        ParticipantConfig {
            domain_id: 0,
            user_data: Vec::new(),
            keep_all_max_samples: crate::runtime::writer::KEEP_ALL_MAX_SAMPLES,
            wait_spin: crate::spin::WAIT_SPIN,
            yield_after_wake: true,
            wake_slice: crate::runtime::wake_slice::WAKE_SLICE,
        }
    }
}

impl ParticipantConfig {
    /// Busy-polling waits (opt-in): waiting threads poll for up to [`crate::spin::BUSY_POLL_SPIN`]
    /// (10 ms) before sleeping, so a reader fed at 100 Hz or faster never sleeps and never pays a
    /// wake-up, at the price of a core per waiting thread while samples flow; an idle reader goes
    /// back to sleeping after 10 ms.
    pub fn busy_polling(self) -> Self {
        ParticipantConfig { wait_spin: crate::spin::BUSY_POLL_SPIN, ..self }
    }

    fn check(&self) -> Result<()> {
        // The domain's ports must exist even before the network path uses them.
        crate::discovery::ports::spdp_multicast_port(self.domain_id)?;
        if self.keep_all_max_samples == 0 {
            return Err(Error::bad_argument(
                "keep_all_max_samples is 0: a KEEP_ALL writer could never write; use at least 1",
            ));
        }
        let (least, most) = crate::runtime::wake_slice::WAKE_SLICE_RANGE;
        if !self.wake_slice.is_zero() && !(least..=most).contains(&self.wake_slice) {
            return Err(Error::bad_argument(format!(
                "wake_slice is {:?}: use zero (off) or {least:?} to {most:?}, the slices the kernel accepts",
                self.wake_slice
            )));
        }
        Ok(())
    }
}

/// What a writer or reader has besides its topic, type and QoS.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EndpointOptions {
    /// USER_DATA, announced in SEDP and reported in discovery events (rmw_cyclonedds_cpp's service
    /// endpoints carry `clientid=...;` / `serviceid=...;`).
    pub user_data: Vec<u8>,
    /// Readers: no sample from a writer of the same participant (ros_discovery_info readers).
    /// Such writers are not matched at all, as DDS's ignore_participant does.
    pub ignore_local_participant: bool,
    /// PARTITION (DDS's publisher/subscriber partition, per endpoint here): a writer and a reader
    /// match only when they share a partition; empty is the default partition. Names may hold
    /// `*` and `?` wildcards. Announced in SEDP (PID_PARTITION).
    pub partition: Vec<String>,
}

/// A DDS domain participant; clones share it. When the last clone goes, a participant on the
/// network waits up to 1 s for remote readers to acknowledge its open writers' last samples and
/// its endpoints' disposals, then says goodbye and stops its threads (see `Network::shutdown`).
#[derive(Clone)]
pub struct Participant {
    inner: Arc<ParticipantInner>,
}

pub(crate) struct ParticipantInner {
    pub(crate) domain_id: u32,
    pub(crate) prefix: GuidPrefix,
    next_entity_key: AtomicU32,
    net: Option<Arc<Network>>,
    intra_process: bool,
    graph: Arc<Graph>,
    pub(crate) keep_all_max_samples: usize,
    wait_spin: Duration,
    yield_after_wake: bool,
    wake_slice: Duration,
}

impl Drop for ParticipantInner {
    fn drop(&mut self) {
        // No callback after the participant is gone; the process's other participants learn it left.
        self.graph.close();
        if let Some(net) = &self.net {
            net.shutdown();
        }
    }
}

impl Participant {
    /// A participant that reaches the other participants of this process only.
    pub fn new(config: ParticipantConfig) -> Result<Participant> {
        config.check()?;
        let prefix = guid_gen::new_prefix();
        Ok(Participant {
            inner: Arc::new(ParticipantInner {
                domain_id: config.domain_id,
                prefix,
                next_entity_key: AtomicU32::new(1),
                net: None,
                intra_process: true,
                graph: new_graph(&config, prefix, true),
                keep_all_max_samples: config.keep_all_max_samples,
                wait_spin: config.wait_spin,
                yield_after_wake: config.yield_after_wake,
                wake_slice: config.wake_slice,
            }),
        })
    }

    /// A participant on the network as well: it opens its sockets, starts its receive and timer
    /// threads and announces itself. Dropping the last handle says goodbye (SEDP and SPDP
    /// disposals) and stops the threads.
    pub fn with_network(config: ParticipantConfig, network: NetworkConfig) -> Result<Participant> {
        config.check()?;
        let prefix = guid_gen::new_prefix();
        let graph = new_graph(&config, prefix, network.intra_process);
        let net = match Network::start(config.domain_id, prefix, &network, config.wait_spin, Arc::clone(&graph)) {
            Ok(n) => n,
            Err(e) => {
                graph.close();
                return Err(e);
            }
        };
        Ok(Participant {
            inner: Arc::new(ParticipantInner {
                domain_id: config.domain_id,
                prefix,
                next_entity_key: AtomicU32::new(1),
                net: Some(net),
                intra_process: network.intra_process,
                graph,
                keep_all_max_samples: config.keep_all_max_samples,
                wait_spin: config.wait_spin,
                yield_after_wake: config.yield_after_wake,
                wake_slice: config.wake_slice,
            }),
        })
    }

    pub(crate) fn graph(&self) -> &Arc<Graph> {
        &self.inner.graph
    }

    /// Sets (or with `None` clears) the discovery listener. Before this returns, a new listener
    /// gets every entity known alive (this participant first); afterwards every change, on the
    /// threads [`super::discovery_events`] describes. The previous listener is not called once
    /// this returns (unless this runs inside one of its callbacks).
    pub fn set_discovery_listener(&self, listener: Option<DiscoveryListener>) {
        self.inner.graph.set_listener(listener);
    }

    /// The participants (this one first) and endpoints this participant knows alive.
    pub fn discovered_graph(&self) -> (Vec<Arc<ParticipantInfo>>, Vec<Arc<EndpointInfo>>) {
        self.inner.graph.snapshot()
    }

    pub(crate) fn network(&self) -> Option<&Arc<Network>> {
        self.inner.net.as_ref()
    }

    /// Where this participant's endpoints meet same-process endpoints: the process-wide routes,
    /// or its own only when it opted out of same-process routing with the others.
    /// The participant's KEEP_ALL history cap ([`ParticipantConfig::keep_all_max_samples`]).
    pub(crate) fn keep_all_max_samples(&self) -> usize {
        self.inner.keep_all_max_samples
    }

    /// [`ParticipantConfig::wait_spin`].
    pub(crate) fn wait_spin(&self) -> Duration {
        self.inner.wait_spin
    }

    /// [`ParticipantConfig::yield_after_wake`].
    pub(crate) fn yield_after_wake(&self) -> bool {
        self.inner.yield_after_wake
    }

    /// [`ParticipantConfig::wake_slice`].
    pub(crate) fn wake_slice(&self) -> Duration {
        self.inner.wake_slice
    }

    /// A guard condition whose trigger hands the CPU to a thread it woke when the participant's
    /// [`ParticipantConfig::yield_after_wake`] asks for it (as its writes do). Thread-safe.
    pub fn create_guard_condition(&self) -> crate::GuardCondition {
        crate::GuardCondition::with_yield_after_wake(self.inner.yield_after_wake)
    }

    pub(crate) fn topic_key(&self, topic_name: &str) -> TopicKey {
        TopicKey {
            domain_id: self.inner.domain_id,
            name: topic_name.to_owned(),
            scope: (!self.inner.intra_process).then_some(self.inner.prefix),
        }
    }

    /// Counters of the network side (`None` without network).
    pub fn network_stats(&self) -> Option<NetStats> {
        self.inner.net.as_ref().map(|n| n.stats())
    }

    /// The remote participants discovered and not yet gone.
    pub fn discovered_participants(&self) -> Vec<Guid> {
        self.inner.net.as_ref().map(|n| n.discovered_participants()).unwrap_or_default()
    }

    /// Test aid: while silenced the participant sends nothing at all, as if its process had been
    /// killed (peers then drop it when its lease runs out). Receiving goes on.
    #[doc(hidden)]
    pub fn set_network_silenced(&self, silenced: bool) {
        if let Some(n) = &self.inner.net {
            n.set_silenced(silenced);
        }
    }

    pub fn guid(&self) -> Guid {
        Guid::new(self.inner.prefix, EntityId::PARTICIPANT)
    }

    pub fn domain_id(&self) -> u32 {
        self.inner.domain_id
    }

    pub(crate) fn new_entity_guid(&self, kind: EntityKind) -> Result<Guid> {
        let key = self.inner.next_entity_key.fetch_add(1, Ordering::Relaxed);
        if key > 0x00ff_ffff {
            return Err(Error::new(
                crate::error::ErrorKind::OutOfResources,
                "this participant has created 2^24 entities, the most an RTPS entity key can number",
            ));
        }
        Ok(Guid::new(self.inner.prefix, EntityId::user(key, kind)))
    }

    /// Creates a writer of serialized samples of `type_name` on `topic_name` (keyless; keyed topics:
    /// [`Participant::create_keyed_writer`]).
    pub fn create_writer(&self, topic_name: &str, type_name: &str, qos: Qos) -> Result<Writer> {
        self.create_writer_with(topic_name, type_name, qos, &EndpointOptions::default())
    }

    /// Creates a writer with USER_DATA (`ignore_local_participant` means nothing for a writer).
    pub fn create_writer_with(
        &self,
        topic_name: &str,
        type_name: &str,
        qos: Qos,
        options: &EndpointOptions,
    ) -> Result<Writer> {
        self.new_writer(topic_name, type_name, qos, options, false)
    }

    /// Every writer is made here, keyed ones too ([`Participant::create_keyed_writer`]).
    pub(crate) fn new_writer(
        &self,
        topic_name: &str,
        type_name: &str,
        qos: Qos,
        options: &EndpointOptions,
        keyed: bool,
    ) -> Result<Writer> {
        check_names(topic_name, type_name)?;
        let w = Writer::new(self, topic_name, type_name, qos, options, keyed)?;
        self.inner.graph.local_endpoint(w.endpoint_info(), true);
        Ok(w)
    }

    /// Creates a reader of serialized samples of `type_name` on `topic_name` (keyless; keyed topics:
    /// [`Participant::create_keyed_reader`]).
    pub fn create_reader(&self, topic_name: &str, type_name: &str, qos: Qos) -> Result<Reader> {
        self.create_reader_with(topic_name, type_name, qos, &EndpointOptions::default())
    }

    /// Creates a reader with USER_DATA and, optionally, deaf to this participant's own writers.
    pub fn create_reader_with(
        &self,
        topic_name: &str,
        type_name: &str,
        qos: Qos,
        options: &EndpointOptions,
    ) -> Result<Reader> {
        self.new_reader(topic_name, type_name, qos, options, None)
    }

    /// Every reader is made here; `keys` is `Some` for keyed ones ([`Participant::create_keyed_reader`]).
    pub(crate) fn new_reader(
        &self,
        topic_name: &str,
        type_name: &str,
        qos: Qos,
        options: &EndpointOptions,
        keys: Option<ReaderKeys>,
    ) -> Result<Reader> {
        check_names(topic_name, type_name)?;
        let r = Reader::new(self, topic_name, type_name, qos, options, keys)?;
        self.inner.graph.local_endpoint(r.endpoint_info(), true);
        Ok(r)
    }
}

fn new_graph(config: &ParticipantConfig, prefix: GuidPrefix, intra: bool) -> Arc<Graph> {
    let me = ParticipantInfo {
        guid: Guid::new(prefix, EntityId::PARTICIPANT),
        vendor_id: VENDOR_ID_HDDS,
        user_data: Arc::from(&config.user_data[..]),
    };
    Graph::new(config.domain_id, intra, me)
}

/// RTPS carries names as CDR strings (no interior NUL) and DDS forbids empty ones.
fn check_names(topic_name: &str, type_name: &str) -> Result<()> {
    for (what, name) in [("topic name", topic_name), ("type name", type_name)] {
        if name.is_empty() {
            return Err(Error::bad_argument(format!("the {what} is empty")));
        }
        if name.contains('\0') {
            return Err(Error::bad_argument(format!("the {what} {name:?} contains a NUL character")));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn domain_id_range() {
        assert!(Participant::new(ParticipantConfig { domain_id: 232, ..Default::default() }).is_ok());
        let e = Participant::new(ParticipantConfig { domain_id: 233, ..Default::default() }).err().unwrap();
        assert_eq!(e.kind(), crate::error::ErrorKind::BadArgument);
        assert!(e.message().contains("ROS_DOMAIN_ID"));
    }

    #[test]
    fn names_are_checked() {
        let p = Participant::new(ParticipantConfig::default()).unwrap();
        assert!(p.create_writer("", "T", Qos::default()).is_err());
        assert!(p.create_reader("t", "", Qos::default()).is_err());
        assert!(p.create_reader("t\0x", "T", Qos::default()).is_err());
    }
}

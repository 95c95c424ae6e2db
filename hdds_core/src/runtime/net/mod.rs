//! The network runtime of a participant: RTPS over UDP with SPDP/SEDP discovery, so that
//! participants in other processes (and other vendors) find ours and exchange samples with it.
//!
//! Threads (docs/engine.md has the whole model):
//! - the **receive threads** parse each datagram in place and hand its submessages to the
//!   endpoints' machines (`receive.rs`), delivering samples straight into the readers' histories:
//!   one for the discovery sockets ([`crate::transport::udp::UdpReceiver::run`], mio) and one
//!   blocking on the user-data unicast socket ([`crate::transport::udp::UserReceiver::run`]), so
//!   that a sample costs one system call to receive;
//! - the **timer thread** ([`timer::Timer`]) sleeps until the earliest deadline of any machine and
//!   runs SPDP announcements, lease expiry, HEARTBEATs, ACKNACK responses and paced repairs;
//! - **writes** run on the caller's thread and send from it.
//!
//! Every path follows the same pattern: lock an endpoint, drive its machine, route the actions into
//! an [`send::Outbox`], unlock, then encode and send. No lock is held across a send.
//!
//! Lock order: `discovery` (the SEDP database), then the `participants` / `writers` / `readers` /
//! `routes` maps, then one endpoint's state (a writer's state, a reader's port, a built-in port),
//! then a reader's sample queue. The receive and timer threads never take `discovery` while holding
//! an endpoint lock: built-in readers hand their deliveries out before discovery processes them.

mod config;
pub(crate) mod endpoint;
mod participant_message;
mod receive;
pub(crate) mod sedp;
pub(crate) mod send;
pub(crate) mod shm;
mod shm_fallback;
pub(crate) mod spdp;
pub(crate) mod timer;
pub(crate) mod writer_leases;

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr, SocketAddrV4};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::guid_hash::GuidHash;
pub use config::NetworkConfig;
use config::Resolved;
use send::Outbox;
use spdp::RemoteParticipant;
use timer::Timer;
use writer_leases::WriterLeases;

use super::discovery_events::Graph;
use super::reader::ReaderShared;
use super::writer::WriterShared;
use crate::discovery::ports;
use crate::error::{Error, ErrorKind, Result};
use crate::transport::udp::{StopHandle, UdpConfig, UdpSender, UdpSockets};
use crate::wire::{EntityId, Guid, GuidPrefix, Locator};

/// How often a reliable writer whose readers acknowledged everything still sends a HEARTBEAT.
/// While something is unacknowledged the writer's fast period applies (10 ms, backing off to
/// 100 ms): this one only keeps an idle writer's readers informed, so it can be slow (idle ROS
/// nodes with many publishers would otherwise send ten datagrams a second per writer and reader).
pub(crate) const IDLE_HEARTBEAT_PERIOD: std::time::Duration = std::time::Duration::from_secs(1);

/// A best-effort write sends at most this many bytes back to back before pausing
/// ([`Network::flush_paced`]).
pub(crate) const PACE_BURST_BYTES: usize = 128 * 1024;
/// The pause between two bursts of one write: 128 KiB per 500 µs caps a large best-effort sample's
/// transmission near 250 MB/s. Measured on loopback: unpaced, Cyclone DDS 0.10 and 11 readers got
/// 0 to 3 of 4 samples of 4 MiB; 256 KiB per 250 µs, 3 of 4; this pacing, 4 of 4 every time.
pub(crate) const PACE_PAUSE: std::time::Duration = std::time::Duration::from_micros(500);

/// Counters of a participant's network activity, for tests, statistics and diagnosis.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NetStats {
    /// The participant index whose well-known unicast ports we bound.
    pub participant_index: u32,
    pub metatraffic_unicast_port: u16,
    pub user_unicast_port: u16,
    /// Whether we joined the SPDP multicast group (false if disabled or joining failed).
    pub multicast_active: bool,
    pub datagrams_received: u64,
    pub bytes_received: u64,
    pub datagrams_sent: u64,
    pub bytes_sent: u64,
    pub send_errors: u64,
    /// Receives (or polls) that failed other than by interruption; the receive threads retry.
    pub receive_errors: u64,
    /// Datagrams that are not RTPS 2.x or whose header is broken: dropped.
    pub malformed_datagrams: u64,
    /// Submessages that failed to parse (the rest of their datagram is dropped).
    pub malformed_submessages: u64,
    /// Submessage ids we do not know (skipped, as the spec requires).
    pub unknown_submessages: u64,
    /// Discovery data that did not decode.
    pub malformed_discovery: u64,
    /// Our own announcements coming back (multicast loopback): ignored.
    pub own_datagrams: u64,
    /// Submessages for an endpoint we do not have or a writer no reader is matched with.
    pub unroutable_submessages: u64,
    /// Datagrams not sent because the participant is silenced (test hook).
    pub silenced_datagrams: u64,
    /// Datagrams refused because their destination is outside what the mode allows.
    pub refused_destinations: u64,
    /// Participants ignored: other domain or tag, in this process (served without sockets), or an
    /// announcement of one that has just said goodbye (still in flight when it left).
    pub ignored_participants: u64,
    pub participants_discovered: u64,
    /// Our announcement sent by unicast to one participant in answer to its own.
    pub spdp_answers: u64,
    pub participants_lost_by_lease: u64,
    pub participants_disposed: u64,
    /// Announcements of a new participant dropped because `max_remote_participants` were known.
    pub participants_over_limit: u64,
    /// SEDP data of a new writer or reader dropped because `max_remote_endpoints` were known.
    pub endpoints_over_limit: u64,
    /// Samples our readers' fragment reassembly gave up for [`NetworkConfig::reassembly`]: too
    /// large, no room, or evicted for another (a reliable writer sends them again).
    pub fragments_over_limit: u64,
    /// Samples from the network our KEEP_ALL readers refused because they held
    /// `keep_all_max_samples` untaken: best-effort ones dropped, reliable ones left unacknowledged
    /// (sent again; each refused arrival counts). Per reader: [`crate::Reader::history_refusals`].
    pub history_over_limit: u64,
    /// Shared memory is in use: enabled, and /dev/shm was usable when the participant started.
    pub shm_active: bool,
    /// Samples our writers published into their shared-memory rings.
    pub shm_samples_written: u64,
    /// Samples our readers took out of other processes' rings.
    pub shm_samples_read: u64,
    /// Of those, the samples a waiting thread took straight from the ring
    /// ([`crate::Reader::take_timeout`] while it spins): no history, no wake-up on their path.
    pub shm_direct_takes: u64,
    /// Samples a writer replaced before our reader read them (KEEP_LAST rings).
    pub shm_samples_lost: u64,
    /// Same-host endpoints we could not attach to (their segment could not be opened, or a ring
    /// serves too many readers already).
    pub shm_attach_failures: u64,
    /// Same-host reader-writer pairs that use UDP because the reader could not attach to the
    /// writer's ring: counted by the reader's participant when its attach fails, and by the
    /// writer's when it moves that reader from its ring to UDP.
    pub shm_udp_fallbacks: u64,
    /// ACKNACKs over UDP from same-host hdds readers that their writer did not serve over UDP,
    /// looked up in the discovery database for a shared-memory fallback (shm_fallback.rs): a few
    /// per fallback; those of a reader already matched over UDP do not come there.
    pub shm_fallback_lookups: u64,
    /// Segments of dead processes removed.
    pub shm_segments_reclaimed: u64,
    /// Times the participant's shared-memory reader thread woke up (a ring while no application
    /// thread waited, a kick, or its 1 s timeout): samples for a waiting thread should not.
    pub shm_reader_thread_wakeups: u64,
}

#[derive(Default)]
pub(crate) struct Counters {
    datagrams_received: AtomicU64,
    bytes_received: AtomicU64,
    datagrams_sent: AtomicU64,
    bytes_sent: AtomicU64,
    send_errors: AtomicU64,
    receive_errors: AtomicU64,
    malformed_datagrams: AtomicU64,
    malformed_submessages: AtomicU64,
    unknown_submessages: AtomicU64,
    malformed_discovery: AtomicU64,
    own_datagrams: AtomicU64,
    unroutable_submessages: AtomicU64,
    silenced_datagrams: AtomicU64,
    refused_destinations: AtomicU64,
    ignored_participants: AtomicU64,
    participants_discovered: AtomicU64,
    spdp_answers: AtomicU64,
    participants_lost_by_lease: AtomicU64,
    participants_disposed: AtomicU64,
    participants_over_limit: AtomicU64,
    endpoints_over_limit: AtomicU64,
    pub(crate) fragments_over_limit: AtomicU64,
    pub(crate) history_over_limit: AtomicU64,
    shm_udp_fallbacks: AtomicU64,
    shm_fallback_lookups: AtomicU64,
}

pub(crate) fn bump(c: &AtomicU64) {
    c.fetch_add(1, Ordering::Relaxed);
}

/// The network side of one participant.
pub(crate) struct Network {
    pub(crate) prefix: GuidPrefix,
    pub(crate) domain_id: u32,
    pub(crate) cfg: Resolved,
    udp: UdpSender,
    pub(crate) timer: Timer,
    pub(crate) counters: Counters,
    participant_index: u32,
    meta_port: u16,
    user_port: u16,
    multicast_active: bool,
    /// Where our endpoints receive user data (advertised in SPDP and SEDP).
    pub(crate) default_locators: Vec<Locator>,
    pub(crate) spdp: Mutex<spdp::Spdp>,
    pub(crate) participants: RwLock<HashMap<GuidPrefix, Arc<RemoteParticipant>, GuidHash>>,
    /// Participants that said goodbye, with when (ns since the timer epoch): an announcement of
    /// theirs still in flight must not bring them back (see `spdp::DISPOSED_MEMORY`).
    pub(crate) disposed: Mutex<HashMap<GuidPrefix, u64>>,
    pub(crate) builtin: sedp::Builtin,
    /// Our user writers and readers by entity id: where ACKNACKs and directed submessages go, and
    /// what the timer sweeps.
    pub(crate) writers: RwLock<HashMap<EntityId, Arc<WriterShared>>>,
    pub(crate) readers: RwLock<HashMap<EntityId, Arc<ReaderShared>>>,
    /// For each matched remote writer, the local readers matched with it.
    pub(crate) routes: RwLock<HashMap<Guid, Vec<Arc<ReaderShared>>, GuidHash>>,
    /// The LIVELINESS leases of matched remote writers with a manual lease, for our readers on
    /// every path (UDP and shared memory).
    pub(crate) writer_leases: Arc<WriterLeases>,
    /// When our participant next asserts its AUTOMATIC writers (participant_message.rs).
    assertions: participant_message::Assertions,
    pub(crate) discovery: Mutex<sedp::Db>,
    /// Where remote participants and endpoints are reported (delivered at the end of each datagram
    /// and each timer sweep, with no lock held).
    pub(crate) graph: Arc<Graph>,
    /// Shared memory with same-host peers (`None` when off or unavailable).
    pub(crate) shm: Option<Arc<shm::ShmPort>>,
    /// Our readers' requests for UDP to same-host writers whose ring they could not open, sent
    /// again a few times (shm_fallback.rs). Taken before the `readers` map, never with an
    /// endpoint lock held.
    pub(crate) udp_asks: Mutex<Vec<shm_fallback::UdpAsk>>,
    silenced: AtomicBool,
    /// Set once the goodbye (disposals) is sent: nothing more goes out.
    closed: AtomicBool,
    recv_stop: StopHandle,
    threads: Mutex<Vec<JoinHandle<()>>>,
}

pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic while holding an engine lock leaves counters and queues behind; keep serving.
    m.lock().unwrap_or_else(|p| p.into_inner())
}

pub(crate) fn read<T>(m: &RwLock<T>) -> RwLockReadGuard<'_, T> {
    m.read().unwrap_or_else(|p| p.into_inner())
}

pub(crate) fn write<T>(m: &RwLock<T>) -> RwLockWriteGuard<'_, T> {
    m.write().unwrap_or_else(|p| p.into_inner())
}

/// The endpoints a timer sweep visits, copied out of the maps so that no map lock is held while
/// an endpoint sends. The timer thread keeps the lists from one sweep to the next, empty in
/// between (an endpoint deleted meanwhile is not kept alive), so that a sweep allocates nothing:
/// a reliable writer's heartbeats make a sweep every few milliseconds under traffic.
#[derive(Default)]
struct SweepLists {
    writers: Vec<Arc<WriterShared>>,
    readers: Vec<Arc<ReaderShared>>,
}

fn min_deadline(a: Option<Instant>, b: Option<Instant>) -> Option<Instant> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

impl Network {
    /// Opens the sockets, starts the receive and timer threads and announces the participant.
    /// `wait_spin`: the participant's bound on a wait's spin (the shared-memory reader thread's).
    pub(crate) fn start(
        domain_id: u32,
        prefix: GuidPrefix,
        config: &NetworkConfig,
        wait_spin: Duration,
        graph: Arc<Graph>,
    ) -> Result<Arc<Network>> {
        let cfg = config.resolve()?;
        let ports_for_index = |i: u32| {
            Some((ports::metatraffic_unicast_port(domain_id, i).ok()?, ports::user_unicast_port(domain_id, i).ok()?))
        };
        let mut udp_cfg = UdpConfig {
            interfaces: cfg.interfaces.clone(),
            multicast: cfg.multicast,
            multicast_group: ports::SPDP_MULTICAST_ADDRESS,
            spdp_multicast_port: ports::spdp_multicast_port(domain_id)?,
            max_participant_index: ports::max_participant_index(domain_id)?,
            socket_buffer_bytes: cfg.socket_buffer_bytes,
        };
        let sockets = match UdpSockets::open(&udp_cfg, &ports_for_index) {
            Ok(s) => s,
            // Multicast may be unavailable (no route, interface without multicast): discovery by
            // unicast still works with peers that announce to us or that we probe.
            Err(e) if cfg.multicast && e.kind() == ErrorKind::Io => {
                udp_cfg.multicast = false;
                UdpSockets::open(&udp_cfg, &ports_for_index)?
            }
            Err(e) => return Err(e),
        };
        let multicast_active = udp_cfg.multicast;
        let locators = |port: u16| cfg.interfaces.iter().map(|ip| Locator::udpv4(*ip, port)).collect::<Vec<_>>();
        let meta_locators = locators(sockets.meta_unicast_port);
        let default_locators = locators(sockets.user_unicast_port);
        let name = |what: &str| format!("hdds-{what}-{}-{}", domain_id, sockets.participant_index);
        // Without a usable /dev/shm the participant goes on over UDP (NetStats::shm_active says so).
        let writer_leases = Arc::new(WriterLeases::default());
        let shm = cfg
            .shared_memory
            .enabled
            .then(|| {
                let me = Guid::new(prefix, EntityId::PARTICIPANT);
                shm::ShmPort::start(me, cfg.shared_memory, wait_spin, name("shm"), Arc::clone(&writer_leases)).ok()
            })
            .flatten();
        // Same-host hdds peers learn from this extra locator that we share memory with them.
        let mut announced = default_locators.clone();
        announced.extend(shm.as_ref().map(|_| crate::transport::shm::locator()));
        let spdp = spdp::Spdp::new(
            graph.me(),
            domain_id,
            &cfg,
            meta_locators,
            announced,
            multicast_active.then_some(SocketAddr::V4(SocketAddrV4::new(
                ports::SPDP_MULTICAST_ADDRESS,
                udp_cfg.spdp_multicast_port,
            ))),
            sockets.meta_unicast_port,
        )?;
        let (receiver, user_receiver) = sockets
            .receiver
            .split()
            .map_err(|e| Error::new(ErrorKind::Io, format!("splitting the receive sockets: {e}")))?;
        let now = Instant::now();
        let net = Arc::new(Network {
            prefix,
            domain_id,
            cfg,
            udp: sockets.sender.clone(),
            timer: Timer::new(),
            counters: Counters::default(),
            participant_index: sockets.participant_index,
            meta_port: sockets.meta_unicast_port,
            user_port: sockets.user_unicast_port,
            multicast_active,
            default_locators,
            spdp: Mutex::new(spdp),
            participants: RwLock::new(HashMap::default()),
            disposed: Mutex::new(HashMap::new()),
            builtin: sedp::Builtin::new(prefix, now),
            writers: RwLock::new(HashMap::new()),
            readers: RwLock::new(HashMap::new()),
            routes: RwLock::new(HashMap::default()),
            writer_leases,
            assertions: participant_message::Assertions::default(),
            discovery: Mutex::new(sedp::Db::default()),
            graph,
            shm,
            udp_asks: Mutex::new(Vec::new()),
            silenced: AtomicBool::new(false),
            closed: AtomicBool::new(false),
            recv_stop: receiver.stop_handle(),
            threads: Mutex::new(Vec::new()),
        });
        cfg_register(&net);

        let n = Arc::clone(&net);
        let recv = std::thread::Builder::new().name(name("recv")).spawn(move || {
            let mut ctx = receive::Context::default();
            receiver.run(|d, _channel, from| n.on_datagram(d, from, &mut ctx), |e| n.receive_failed(e));
        });
        let n = Arc::clone(&net);
        let recv_user = std::thread::Builder::new().name(name("recvuc")).spawn(move || {
            let mut ctx = receive::Context::default();
            user_receiver.run(|d, _channel, from| n.on_datagram(d, from, &mut ctx), |e| n.receive_failed(e));
        });
        let n = Arc::clone(&net);
        let timer = std::thread::Builder::new().name(name("timer")).spawn(move || {
            let mut lists = SweepLists::default();
            n.timer.run(|now| n.sweep(now, &mut lists))
        });
        match (recv, recv_user, timer) {
            (Ok(r), Ok(u), Ok(t)) => lock(&net.threads).extend([r, u, t]),
            (r, u, t) => {
                net.stop_threads();
                if let Some(shm) = &net.shm {
                    shm.stop();
                }
                for h in [r, u, t].into_iter().flatten() {
                    let _ = h.join();
                }
                return Err(Error::new(ErrorKind::Io, "could not start the participant's network threads"));
            }
        }
        net.announce_participant();
        Ok(net)
    }

    /// Where our writers' datagrams leave from: the one send socket every endpoint shares.
    pub(crate) fn send_locators(&self) -> Vec<Locator> {
        match self.udp.local_addr() {
            Ok(SocketAddr::V4(a)) => vec![Locator::udpv4(*a.ip(), a.port())],
            Ok(SocketAddr::V6(a)) => vec![Locator::udpv6(*a.ip(), a.port())],
            Err(_) => Vec::new(),
        }
    }

    pub(crate) fn stats(&self) -> NetStats {
        let c = &self.counters;
        let g = |a: &AtomicU64| a.load(Ordering::Relaxed);
        let sc = self.shm.as_ref().map(|s| &s.counters);
        let s = |f: fn(&crate::transport::shm::writer::Counters) -> &AtomicU64| sc.map_or(0, |c| g(f(c)));
        NetStats {
            participant_index: self.participant_index,
            metatraffic_unicast_port: self.meta_port,
            user_unicast_port: self.user_port,
            multicast_active: self.multicast_active,
            datagrams_received: g(&c.datagrams_received),
            bytes_received: g(&c.bytes_received),
            datagrams_sent: g(&c.datagrams_sent),
            bytes_sent: g(&c.bytes_sent),
            send_errors: g(&c.send_errors),
            receive_errors: g(&c.receive_errors),
            malformed_datagrams: g(&c.malformed_datagrams),
            malformed_submessages: g(&c.malformed_submessages),
            unknown_submessages: g(&c.unknown_submessages),
            malformed_discovery: g(&c.malformed_discovery),
            own_datagrams: g(&c.own_datagrams),
            unroutable_submessages: g(&c.unroutable_submessages),
            silenced_datagrams: g(&c.silenced_datagrams),
            refused_destinations: g(&c.refused_destinations),
            ignored_participants: g(&c.ignored_participants),
            participants_discovered: g(&c.participants_discovered),
            spdp_answers: g(&c.spdp_answers),
            participants_lost_by_lease: g(&c.participants_lost_by_lease),
            participants_disposed: g(&c.participants_disposed),
            participants_over_limit: g(&c.participants_over_limit),
            endpoints_over_limit: g(&c.endpoints_over_limit),
            fragments_over_limit: g(&c.fragments_over_limit),
            history_over_limit: g(&c.history_over_limit),
            shm_active: self.shm.is_some(),
            shm_samples_written: s(|c| &c.samples_written),
            shm_samples_read: s(|c| &c.samples_read),
            shm_direct_takes: s(|c| &c.direct_takes),
            shm_samples_lost: s(|c| &c.samples_lost),
            shm_attach_failures: s(|c| &c.attach_failures),
            shm_udp_fallbacks: g(&c.shm_udp_fallbacks),
            shm_fallback_lookups: g(&c.shm_fallback_lookups),
            shm_segments_reclaimed: s(|c| &c.segments_reclaimed),
            shm_reader_thread_wakeups: s(|c| &c.reader_thread_wakeups),
        }
    }

    /// Test hook: while silenced nothing is sent, as if the process had been killed.
    pub(crate) fn set_silenced(&self, on: bool) {
        self.silenced.store(on, Ordering::SeqCst);
    }

    /// The GUIDs of the remote participants we currently know.
    pub(crate) fn discovered_participants(&self) -> Vec<Guid> {
        read(&self.participants).values().map(|p| p.data.guid()).collect()
    }

    /// Where to send to a peer that advertises `locators`: one UDPv4 unicast address. In
    /// localhost-only mode only a loopback address will do; otherwise a non-loopback one is
    /// preferred (a loopback one only reaches a peer on this host).
    pub(crate) fn pick_address(&self, locators: &[Locator]) -> Option<SocketAddr> {
        let usable = || {
            locators.iter().filter_map(|l| match l.socket_addr()? {
                SocketAddr::V4(a) if !a.ip().is_multicast() && !a.ip().is_unspecified() && a.port() != 0 => Some(a),
                _ => None,
            })
        };
        let pick = if self.cfg.localhost_only {
            usable().find(|a| a.ip().is_loopback())
        } else {
            usable().find(|a| !a.ip().is_loopback()).or_else(|| usable().next())
        };
        pick.map(SocketAddr::V4)
    }

    /// Encodes and sends what `out` holds, and empties it.
    pub(crate) fn flush(&self, out: &mut Outbox) {
        if out.is_empty() {
            return;
        }
        if !self.closed.load(Ordering::Acquire) {
            send::encode(self.prefix, &out.items, |to, d| self.send(to, d));
        }
        out.items.clear();
    }

    /// [`Network::flush`] for a best-effort writer's own thread: past [`PACE_BURST_BYTES`] the
    /// datagrams go out in bursts with [`PACE_PAUSE`] between them. A large sample's thousands of
    /// fragments sent back to back overflow the receiver's socket buffer (Cyclone's and Fast DDS's
    /// as much as ours), and a best-effort reader then loses the whole sample. Small samples never
    /// wait. Reliable writers are not paced here: a lost fragment is repaired, and repairs are paced
    /// by the writer machine's budget. Only the writing thread sleeps, never the receive or timer
    /// thread.
    pub(crate) fn flush_paced(&self, out: &mut Outbox) {
        if out.is_empty() {
            return;
        }
        if !self.closed.load(Ordering::Acquire) {
            let mut burst = 0usize;
            send::encode(self.prefix, &out.items, |to, d| {
                if burst >= PACE_BURST_BYTES {
                    std::thread::sleep(PACE_PAUSE);
                    burst = 0;
                }
                burst += d.len();
                self.send(to, d)
            });
        }
        out.items.clear();
    }

    fn send(&self, to: SocketAddr, d: &send::Datagram<'_>) {
        if self.silenced.load(Ordering::Relaxed) {
            bump(&self.counters.silenced_datagrams);
            return;
        }
        if !self.destination_allowed(to) {
            bump(&self.counters.refused_destinations);
            return;
        }
        let sent = match d.contiguous() {
            Some(bytes) => self.udp.send_to(bytes, to),
            None => {
                let mut pieces = [std::io::IoSlice::new(&[]); send::MAX_PIECES];
                let mut n = 0;
                for (slot, p) in pieces.iter_mut().zip(d.pieces()) {
                    *slot = std::io::IoSlice::new(p);
                    n += 1;
                }
                self.udp.send_gathered_to(&pieces[..n], to)
            }
        };
        match sent {
            Ok(()) => {
                bump(&self.counters.datagrams_sent);
                self.counters.bytes_sent.fetch_add(d.len() as u64, Ordering::Relaxed);
            }
            Err(_) => bump(&self.counters.send_errors),
        }
    }

    /// A receive thread's socket or poller failed (it retries after a back-off): counted, and the
    /// first failure of the process is written to stderr, since until it clears nothing arrives.
    fn receive_failed(&self, e: &std::io::Error) {
        static LOGGED: AtomicBool = AtomicBool::new(false);
        bump(&self.counters.receive_errors);
        if !LOGGED.swap(true, Ordering::Relaxed) {
            eprintln!(
                "hdds: receiving failed ({e}); retrying (NetStats::receive_errors counts each failure; this \
                 message is shown once per process)"
            );
        }
    }

    /// The last line of defence of localhost-only mode: only loopback and the SPDP group (whose
    /// traffic the send socket routes over loopback) may be sent to.
    fn destination_allowed(&self, to: SocketAddr) -> bool {
        match to.ip() {
            IpAddr::V4(ip) => {
                !self.cfg.localhost_only
                    || ip.is_loopback()
                    || (ip == ports::SPDP_MULTICAST_ADDRESS && self.multicast_active)
            }
            IpAddr::V6(_) => false,
        }
    }

    /// The timer thread's work: everything that is due, then the earliest next deadline.
    fn sweep(&self, now: Instant, lists: &mut SweepLists) -> Option<Instant> {
        let mut out = Outbox::new();
        let mut next = self.spdp_on_timer(now, &mut out);
        next = min_deadline(next, self.expire_leases(now, &mut out));
        next = min_deadline(next, self.builtin.on_timer(now, &mut out));
        next = min_deadline(next, self.ask_for_udp_again(now, &mut out));
        lists.writers.extend(read(&self.writers).values().cloned());
        let mut automatic_lease = None;
        for w in lists.writers.drain(..) {
            automatic_lease = participant_message::shortest_automatic_lease(automatic_lease, &w.qos.liveliness);
            next = min_deadline(next, w.net_on_timer(self, now, &mut out));
        }
        next = min_deadline(next, self.assert_automatic_on_timer(now, automatic_lease, &mut out));
        lists.readers.extend(read(&self.readers).values().cloned());
        for r in lists.readers.drain(..) {
            next = min_deadline(next, r.net_on_timer(now, &mut out));
        }
        self.flush(&mut out);
        crate::runtime::events::run_listeners();
        self.graph.dispatch();
        next
    }

    fn stop_threads(&self) {
        self.timer.stop();
        self.recv_stop.stop();
    }

    /// Waits until `done`, or `until`, or while the participant is silenced (a test hook: "as if
    /// killed", nothing it sends could be acknowledged). The receive and timer threads still run,
    /// so repairs go out meanwhile.
    fn linger(&self, until: Instant, done: impl Fn() -> bool) {
        while !self.silenced.load(Ordering::Relaxed) && !done() && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    /// Says goodbye (the SEDP disposals of our endpoints, then the SPDP disposal, each after a
    /// linger, see below), stops the threads and waits for them. Idempotent.
    pub(crate) fn shutdown(&self) {
        if self.closed.load(Ordering::Acquire) {
            return;
        }
        // Within LINGER in all: the last samples of the writers still open are acknowledged, then
        // the disposals of our endpoints, and only then the participant's goodbye goes out.
        // Without it, a process deleting its participant right after its last write or take can
        // leave a peer with neither the samples nor the news that we left, should those datagrams
        // be lost: the sample is gone, or a remote writer waits for our reader's acknowledgment
        // until our lease runs out (test/fault lossy_frag, 1 run in about 80). Both waits end at
        // once when nothing is outstanding, which on a working link is one round trip.
        // Dropped on one of its own threads (a listener), it would block that thread's part of
        // the exchange: no wait then.
        let me = std::thread::current().id();
        let own_thread = lock(&self.threads).iter().any(|t| t.thread().id() == me);
        let until = if own_thread { Instant::now() } else { Instant::now() + LINGER };
        self.linger(until, || read(&self.writers).values().all(|w| w.net_all_acked()));
        let mut out = Outbox::new();
        self.dispose_all_local(&mut out);
        self.flush(&mut out);
        self.linger(until, || self.builtin.all_acked());
        self.dispose_participant(&mut out);
        self.flush(&mut out);
        self.closed.store(true, Ordering::Release);
        self.stop_threads();
        if let Some(shm) = &self.shm {
            shm.stop();
        }
        let threads = std::mem::take(&mut *lock(&self.threads));
        for t in threads {
            // A participant dropped on one of its own threads cannot wait for itself.
            if t.thread().id() != me {
                let _ = t.join();
            }
        }
        cfg_unregister(self);
        // Break the reference cycles between the maps and the endpoints.
        write(&self.writers).clear();
        write(&self.readers).clear();
        write(&self.routes).clear();
        self.writer_leases.clear();
        write(&self.participants).clear();
    }
}

/// How long a closing participant waits for its goodbyes and last samples to be acknowledged: the
/// writer linger of Cyclone DDS (`Internal/WriterLingerDuration`, 1 s by default).
const LINGER: Duration = Duration::from_secs(1);

/// This process's participants that serve each other through the TopicMerger: a network
/// participant ignores their SPDP (DESIGN.md section 2: a sample reaches a reader by one path).
static LOCAL_INTRA: Mutex<Vec<GuidPrefix>> = Mutex::new(Vec::new());

fn cfg_register(net: &Network) {
    if net.cfg.intra_process {
        lock(&LOCAL_INTRA).push(net.prefix);
    }
}

fn cfg_unregister(net: &Network) {
    lock(&LOCAL_INTRA).retain(|p| *p != net.prefix);
}

pub(crate) fn is_local_intra(prefix: GuidPrefix) -> bool {
    lock(&LOCAL_INTRA).contains(&prefix)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::Ipv4Addr;

    #[test]
    fn localhost_only_never_picks_or_sends_to_another_address() {
        let cfg = NetworkConfig {
            domain_tag: format!("hdds-unit-{}", std::process::id()),
            spdp_peer_max_index: 2,
            ..NetworkConfig::localhost()
        };
        let prefix = crate::runtime::guid_gen::new_prefix();
        let me = crate::runtime::discovery_events::ParticipantInfo {
            guid: Guid::new(prefix, EntityId::PARTICIPANT),
            vendor_id: crate::wire::VENDOR_ID_HDDS,
            user_data: Arc::from(&[][..]),
        };
        let net = Network::start(200, prefix, &cfg, crate::spin::WAIT_SPIN, Graph::new(200, false, me)).unwrap();
        let outside = Locator::udpv4(Ipv4Addr::new(192, 0, 2, 7), 7410);
        let inside = Locator::udpv4(Ipv4Addr::LOCALHOST, 7412);
        let shm = Locator { kind: Locator::KIND_FASTDDS_SHM, port: 1, address: [0; 16] };
        assert_eq!(net.pick_address(&[outside, shm]), None);
        assert_eq!(net.pick_address(&[shm, outside, inside]), inside.socket_addr());
        assert!(!net.destination_allowed("192.0.2.7:7410".parse().unwrap()));
        assert!(!net.destination_allowed("239.255.0.2:7400".parse().unwrap()));
        assert!(!net.destination_allowed("[::1]:7400".parse().unwrap()));
        assert!(net.destination_allowed("127.0.0.1:7410".parse().unwrap()));
        let before = net.stats().refused_destinations;
        net.send("192.0.2.7:7410".parse().unwrap(), &send::Datagram::of_bytes(b"RTPS"));
        assert_eq!(net.stats().refused_destinations, before + 1);
        net.shutdown();
    }
}

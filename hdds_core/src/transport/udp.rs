//! RTPS over UDPv4: the sockets of one participant, and the loop that receives on them.
//!
//! Sockets of a participant:
//! - metatraffic (discovery) unicast and user-data unicast, on the ports of the first free
//!   participant index (so that peers probing indices by unicast, as Cyclone does in
//!   localhost-only mode, reach us);
//! - SPDP multicast (shared with every participant of the domain on the host: SO_REUSEADDR),
//!   joined on each configured interface, when multicast is on;
//! - one blocking send socket. Sending blocks when the kernel's buffer is full, which paces a large
//!   burst instead of dropping it; peers answer to the locators we advertise, not to the source
//!   port, so the send socket needs no fixed port.
//!
//! Thread model: [`UdpReceiver::run`] is the participant's receive thread; it owns the receiving
//! sockets and a mio `Poll`. [`UdpReceiver::split`] takes the user-data unicast socket out of the
//! poll set for a thread of its own ([`UserReceiver::run`]) that blocks in `recvmmsg`, as Cyclone's
//! receive thread does: a ping-pong sample then costs one system call to receive, not an
//! `epoll_wait` and a receive. [`UdpSender`] is shared by every thread that sends. A
//! [`StopHandle`] ends both loops from any thread (the blocking one through `shutdown(SHUT_RD)`,
//! which makes a blocked receive return).

use std::io;
use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4, UdpSocket as StdUdpSocket};
use std::os::fd::AsRawFd;
use std::sync::Arc;

use mio::net::UdpSocket;
use mio::{Events, Interest, Poll, Token, Waker};
use socket2::{Domain, Protocol, Socket, Type};

use crate::error::{Error, ErrorKind, Result};

/// The largest UDP payload over IPv4.
pub const MAX_DATAGRAM: usize = 65_507;

/// Where and how a participant's UDP sockets live.
#[derive(Debug, Clone)]
pub struct UdpConfig {
    /// The interface addresses to advertise and to join multicast on. In localhost-only mode this
    /// is `[127.0.0.1]`.
    pub interfaces: Vec<Ipv4Addr>,
    /// Join the SPDP multicast group and announce to it.
    pub multicast: bool,
    pub multicast_group: Ipv4Addr,
    pub spdp_multicast_port: u16,
    /// The highest participant index to try before giving up.
    pub max_participant_index: u32,
    /// SO_RCVBUF / SO_SNDBUF request: large reliable samples arrive in bursts of fragments.
    pub socket_buffer_bytes: usize,
}

/// The unicast ports of one participant index: (metatraffic, user data).
pub type PortsForIndex<'a> = &'a dyn Fn(u32) -> Option<(u16, u16)>;

/// Which socket a datagram arrived on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Channel {
    SpdpMulticast,
    MetaUnicast,
    UserUnicast,
}

/// What a participant opened: the receiving half, the sending half and what to advertise.
pub struct UdpSockets {
    pub participant_index: u32,
    pub meta_unicast_port: u16,
    pub user_unicast_port: u16,
    pub receiver: UdpReceiver,
    pub sender: UdpSender,
}

pub struct UdpReceiver {
    poll: Poll,
    sockets: Vec<(UdpSocket, Channel)>,
    stop: StopHandle,
}

/// Ends a [`UdpReceiver::run`] loop (and the [`UserReceiver::run`] loop split from it).
/// Cloneable, callable from any thread.
#[derive(Clone)]
pub struct StopHandle {
    waker: Arc<Waker>,
    stop: Arc<std::sync::atomic::AtomicBool>,
    /// The socket a [`UserReceiver`] blocks on, once split off.
    user: Option<Arc<StdUdpSocket>>,
}

/// The user-data unicast socket on a thread of its own: see [`UdpReceiver::split`].
pub struct UserReceiver {
    socket: Arc<StdUdpSocket>,
    stop: StopHandle,
}

/// Sends datagrams; shared by every sending thread.
#[derive(Clone)]
pub struct UdpSender {
    socket: Arc<StdUdpSocket>,
}

const WAKER: Token = Token(usize::MAX);

fn io_error(what: &str, e: io::Error) -> Error {
    Error::new(ErrorKind::Io, format!("{what}: {e}"))
}

fn new_socket(buffer: usize) -> io::Result<Socket> {
    let s = Socket::new(Domain::IPV4, Type::DGRAM, Some(Protocol::UDP))?;
    // The kernel caps these at net.core.rmem_max / wmem_max; asking for more is harmless.
    let _ = s.set_recv_buffer_size(buffer);
    let _ = s.set_send_buffer_size(buffer);
    Ok(s)
}

fn bind_unicast(port: u16, buffer: usize) -> io::Result<UdpSocket> {
    let s = new_socket(buffer)?;
    // No SO_REUSEADDR: a unicast port belongs to one participant, and a failed bind is how we
    // learn that an index is taken.
    s.bind(&SocketAddrV4::new(Ipv4Addr::UNSPECIFIED, port).into())?;
    s.set_nonblocking(true)?;
    Ok(UdpSocket::from_std(s.into()))
}

fn bind_multicast(config: &UdpConfig) -> io::Result<UdpSocket> {
    let s = new_socket(config.socket_buffer_bytes)?;
    s.set_reuse_address(true)?;
    s.bind(&SocketAddrV4::new(Ipv4Addr::UNSPECIFIED, config.spdp_multicast_port).into())?;
    for iface in &config.interfaces {
        s.join_multicast_v4(&config.multicast_group, iface)?;
    }
    // Only datagrams for groups this socket joined, not every group joined on the host.
    let _ = s.set_multicast_all_v4(false);
    s.set_nonblocking(true)?;
    Ok(UdpSocket::from_std(s.into()))
}

impl UdpSockets {
    /// Opens the sockets of a new participant: the first participant index whose two unicast
    /// ports are both free, the SPDP multicast socket if multicast is on, and the send socket.
    pub fn open(config: &UdpConfig, ports_for_index: PortsForIndex<'_>) -> Result<UdpSockets> {
        if config.interfaces.is_empty() {
            return Err(Error::bad_argument("no network interface to use: the interface list is empty"));
        }
        let buffer = config.socket_buffer_bytes;
        let mut found = None;
        for index in 0..=config.max_participant_index {
            let Some((meta, user)) = ports_for_index(index) else { break };
            let Ok(meta_socket) = bind_unicast(meta, buffer) else { continue };
            let Ok(user_socket) = bind_unicast(user, buffer) else { continue };
            found = Some((index, meta, user, meta_socket, user_socket));
            break;
        }
        let Some((index, meta_port, user_port, meta_socket, user_socket)) = found else {
            return Err(Error::new(
                ErrorKind::OutOfResources,
                format!(
                    "no free participant index from 0 to {}: every pair of unicast ports is taken; \
                     stop some DDS participants on this host or use another domain id",
                    config.max_participant_index
                ),
            ));
        };

        let poll = Poll::new().map_err(|e| io_error("creating the poller", e))?;
        let waker = Arc::new(Waker::new(poll.registry(), WAKER).map_err(|e| io_error("creating the waker", e))?);
        let mut sockets = vec![(meta_socket, Channel::MetaUnicast), (user_socket, Channel::UserUnicast)];
        if config.multicast {
            let m = bind_multicast(config).map_err(|e| {
                io_error(
                    &format!(
                        "joining SPDP multicast {}:{} on {:?}",
                        config.multicast_group, config.spdp_multicast_port, config.interfaces
                    ),
                    e,
                )
            })?;
            sockets.push((m, Channel::SpdpMulticast));
        }
        for (i, (s, _)) in sockets.iter_mut().enumerate() {
            poll.registry()
                .register(s, Token(i), Interest::READABLE)
                .map_err(|e| io_error("registering a socket", e))?;
        }

        let send = new_socket(buffer).map_err(|e| io_error("creating the send socket", e))?;
        let first = config.interfaces[0];
        if config.multicast {
            send.set_multicast_if_v4(&first).map_err(|e| io_error("setting the multicast interface", e))?;
            send.set_multicast_loop_v4(true).map_err(|e| io_error("enabling multicast loopback", e))?;
            send.set_multicast_ttl_v4(1).map_err(|e| io_error("setting the multicast TTL", e))?;
        }
        // Bound to the first interface: in localhost-only mode nothing can leave through another.
        send.bind(&SocketAddrV4::new(first, 0).into()).map_err(|e| io_error("binding the send socket", e))?;

        Ok(UdpSockets {
            participant_index: index,
            meta_unicast_port: meta_port,
            user_unicast_port: user_port,
            receiver: UdpReceiver {
                poll,
                sockets,
                stop: StopHandle { waker, stop: Arc::new(std::sync::atomic::AtomicBool::new(false)), user: None },
            },
            sender: UdpSender { socket: Arc::new(send.into()) },
        })
    }
}

impl UdpSender {
    /// Sends one datagram; blocks while the kernel's send buffer is full.
    pub fn send_to(&self, datagram: &[u8], to: SocketAddr) -> io::Result<()> {
        self.socket.send_to(datagram, to).map(|_| ())
    }

    /// Sends one datagram made of `pieces` in order (`sendmsg` with one iovec each: the kernel
    /// copies them straight from where they lie); blocks while the kernel's send buffer is full.
    pub fn send_gathered_to(&self, pieces: &[io::IoSlice<'_>], to: SocketAddr) -> io::Result<()> {
        socket2::SockRef::from(&*self.socket).send_to_vectored(pieces, &to.into()).map(|_| ())
    }

    /// The address datagrams leave from (the first interface, a port the kernel chose).
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.socket.local_addr()
    }
}

impl UdpReceiver {
    /// The handle that ends [`UdpReceiver::run`].
    pub fn stop_handle(&self) -> StopHandle {
        self.stop.clone()
    }

    /// Takes the user-data unicast socket out of the poll set, for [`UserReceiver::run`] on a
    /// thread of its own. The stop handles of the returned receiver (take them after the split)
    /// end both loops.
    pub fn split(mut self) -> io::Result<(UdpReceiver, UserReceiver)> {
        let Some(i) = self.sockets.iter().position(|(_, c)| *c == Channel::UserUnicast) else {
            return Err(io::Error::new(io::ErrorKind::NotFound, "no user-data unicast socket"));
        };
        let (mut socket, _) = self.sockets.remove(i);
        self.poll.registry().deregister(&mut socket)?;
        // The remaining sockets' tokens are their indices.
        for (j, (s, _)) in self.sockets.iter_mut().enumerate().skip(i) {
            self.poll.registry().reregister(s, Token(j), Interest::READABLE)?;
        }
        let socket = StdUdpSocket::from(socket);
        socket.set_nonblocking(false)?;
        let socket = Arc::new(socket);
        self.stop.user = Some(Arc::clone(&socket));
        let stop = self.stop.clone();
        Ok((self, UserReceiver { socket, stop }))
    }

    /// Receives until the stop handle is signalled, calling `on_datagram` for each datagram with
    /// the channel it came on and its source, and `on_error` for each failure other than an
    /// interruption (the loop goes on after a back-off, see [`Backoff`]). The buffers are reused:
    /// the handler parses in place.
    pub fn run(
        mut self,
        mut on_datagram: impl FnMut(&[u8], Channel, SocketAddr),
        mut on_error: impl FnMut(&io::Error),
    ) {
        use std::sync::atomic::Ordering;
        let stop = self.stop.clone();
        let mut events = Events::with_capacity(16);
        let mut batch = Batch::new();
        let mut backoff = Backoff::default();
        while !stop.stop.load(Ordering::Acquire) {
            if let Err(e) = self.poll.poll(&mut events, None) {
                if e.kind() != io::ErrorKind::Interrupted {
                    on_error(&e);
                    backoff.wait();
                }
                continue;
            }
            backoff.reset();
            for ev in events.iter() {
                if ev.token() == WAKER {
                    continue;
                }
                let Some((socket, channel)) = self.sockets.get(ev.token().0) else { continue };
                // Edge-triggered: drain the socket. A batch that comes back short means the queue
                // was empty (recvmmsg stops at EAGAIN), which saves the EAGAIN call a datagram at
                // a time would need: one recvmmsg per wake-up in a ping-pong.
                loop {
                    match batch.receive(socket.as_raw_fd(), libc::MSG_DONTWAIT) {
                        Ok(n) => {
                            for i in 0..n {
                                let (d, from) = batch.datagram(i);
                                on_datagram(d, *channel, from);
                            }
                            if n < BATCH {
                                break;
                            }
                        }
                        Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                        Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                        // ICMP errors from an earlier send surface here (e.g. connection refused):
                        // they say nothing about this socket's health, and what is queued behind
                        // them is read on (edge-triggered: no new event would come for it).
                        Err(e) if e.kind() == io::ErrorKind::ConnectionRefused => continue,
                        Err(e) => {
                            on_error(&e);
                            break;
                        }
                    }
                }
            }
        }
    }
}

/// Datagrams taken from a socket per `recvmmsg`.
const BATCH: usize = 4;

/// The receive thread's buffers for one `recvmmsg`: room for [`BATCH`] datagrams of the largest
/// size, their lengths and sources. Allocated once per participant.
struct Batch {
    buf: Vec<u8>,
    len: [usize; BATCH],
    from: [libc::sockaddr_in; BATCH],
}

impl Batch {
    fn new() -> Batch {
        // SAFETY: sockaddr_in is plain old data; all zeroes is a valid value.
        let zero: libc::sockaddr_in = unsafe { std::mem::zeroed() };
        Batch { buf: vec![0u8; BATCH * MAX_DATAGRAM], len: [0; BATCH], from: [zero; BATCH] }
    }

    /// Receives up to [`BATCH`] datagrams (`flags`: MSG_DONTWAIT, or MSG_WAITFORONE to block for
    /// the first); how many arrived.
    fn receive(&mut self, fd: std::os::fd::RawFd, flags: libc::c_int) -> io::Result<usize> {
        let base = self.buf.as_mut_ptr();
        let mut iov: [libc::iovec; BATCH] = std::array::from_fn(|i| libc::iovec {
            // SAFETY: i < BATCH, so the offset stays inside `buf` (BATCH * MAX_DATAGRAM bytes).
            iov_base: unsafe { base.add(i * MAX_DATAGRAM) }.cast(),
            iov_len: MAX_DATAGRAM,
        });
        let from = self.from.as_mut_ptr();
        let iov_ptr = iov.as_mut_ptr();
        let mut msgs: [libc::mmsghdr; BATCH] = std::array::from_fn(|i| {
            // SAFETY: msghdr is plain old data; all zeroes is a valid value (no name, no control).
            let mut hdr: libc::msghdr = unsafe { std::mem::zeroed() };
            // SAFETY: i < BATCH: inside the `from` and `iov` arrays.
            hdr.msg_name = unsafe { from.add(i) }.cast();
            hdr.msg_namelen = std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t;
            // SAFETY: as above.
            hdr.msg_iov = unsafe { iov_ptr.add(i) };
            hdr.msg_iovlen = 1;
            libc::mmsghdr { msg_hdr: hdr, msg_len: 0 }
        });
        // SAFETY: every msghdr points at memory owned by `self` or by `iov` (alive for the call),
        // with the lengths of that memory; the kernel writes at most those lengths.
        let n = unsafe { libc::recvmmsg(fd, msgs.as_mut_ptr(), BATCH as libc::c_uint, flags, std::ptr::null_mut()) };
        if n < 0 {
            return Err(io::Error::last_os_error());
        }
        let n = n as usize;
        for (len, m) in self.len.iter_mut().zip(&msgs).take(n) {
            *len = (m.msg_len as usize).min(MAX_DATAGRAM);
        }
        Ok(n)
    }

    /// Datagram `i` of the last [`Batch::receive`], and where it came from.
    fn datagram(&self, i: usize) -> (&[u8], SocketAddr) {
        let start = i * MAX_DATAGRAM;
        let a = &self.from[i];
        let ip = Ipv4Addr::from(u32::from_be(a.sin_addr.s_addr));
        let from = SocketAddr::V4(SocketAddrV4::new(ip, u16::from_be(a.sin_port)));
        (&self.buf[start..start + self.len[i]], from)
    }
}

impl UserReceiver {
    /// Receives until the stop handle is signalled, blocking in `recvmmsg` (which then takes every
    /// datagram already queued, up to a batch), and calls `on_datagram` for each, as
    /// [`UdpReceiver::run`] does.
    pub fn run(self, mut on_datagram: impl FnMut(&[u8], Channel, SocketAddr), mut on_error: impl FnMut(&io::Error)) {
        use std::sync::atomic::Ordering;
        let mut batch = Batch::new();
        let mut backoff = Backoff::default();
        let fd = self.socket.as_raw_fd();
        loop {
            let got = batch.receive(fd, libc::MSG_WAITFORONE);
            // After `shutdown(SHUT_RD)` receives return at once (empty): the stop flag says why.
            if self.stop.stop.load(Ordering::Acquire) {
                return;
            }
            match got {
                Ok(n) => {
                    backoff.reset();
                    for i in 0..n {
                        let (d, from) = batch.datagram(i);
                        on_datagram(d, Channel::UserUnicast, from);
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                // ICMP errors from an earlier send (none leave from this socket, but the kernel
                // may queue one): they say nothing about the socket's health.
                Err(e) if e.kind() == io::ErrorKind::ConnectionRefused => {}
                Err(e) => {
                    on_error(&e);
                    backoff.wait();
                }
            }
        }
    }
}

/// How a receive loop waits after a failure it cannot name a cause for (ENOMEM, ENOBUFS, a
/// poller error): 1 ms, doubling to 100 ms while failures repeat. The loop never ends on an
/// error: its participant's SPDP goes on from the timer thread, so peers would keep a participant
/// alive whose receive thread had stopped, and its readers and writers would wait for data and
/// acknowledgments that can no longer reach them.
#[derive(Default)]
struct Backoff {
    next: Option<std::time::Duration>,
}

impl Backoff {
    fn wait(&mut self) {
        std::thread::sleep(self.step());
    }

    /// The next wait, and the one after it doubled.
    fn step(&mut self) -> std::time::Duration {
        let d = self.next.unwrap_or(std::time::Duration::from_millis(1));
        self.next = Some((d * 2).min(std::time::Duration::from_millis(100)));
        d
    }

    fn reset(&mut self) {
        self.next = None;
    }
}

impl StopHandle {
    pub fn stop(&self) {
        self.stop.store(true, std::sync::atomic::Ordering::Release);
        let _ = self.waker.wake();
        if let Some(user) = &self.user {
            // On an unconnected UDP socket Linux answers ENOTCONN but still marks the socket shut
            // for reading and wakes a blocked receive, which is all this is for.
            let _ = socket2::SockRef::from(&**user).shutdown(std::net::Shutdown::Read);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;
    use std::time::Duration;

    /// A domain far from ROS's usual ones so tests don't meet real participants; the formula is the
    /// RTPS one (tests only: the engine takes it from discovery).
    fn ports(index: u32) -> Option<(u16, u16)> {
        let base = 7400 + 250 * 231;
        let meta = base + 10 + 2 * index;
        Some((meta as u16, (meta + 1) as u16))
    }

    fn loopback(multicast: bool, port: u16) -> UdpConfig {
        UdpConfig {
            interfaces: vec![Ipv4Addr::LOCALHOST],
            multicast,
            multicast_group: Ipv4Addr::new(239, 255, 0, 1),
            spdp_multicast_port: port,
            max_participant_index: 40,
            socket_buffer_bytes: 1 << 20,
        }
    }

    type Received = mpsc::Receiver<(Vec<u8>, Channel)>;

    fn spawn(sockets: UdpSockets) -> (StopHandle, Received, std::thread::JoinHandle<()>) {
        let (tx, rx) = mpsc::channel();
        let stop = sockets.receiver.stop_handle();
        let t = std::thread::spawn(move || {
            sockets.receiver.run(
                |d, ch, _| {
                    let _ = tx.send((d.to_vec(), ch));
                },
                |e| panic!("receive failed: {e}"),
            )
        });
        (stop, rx, t)
    }

    #[test]
    fn receive_failures_back_off_from_1_to_100_ms_and_start_over_after_a_success() {
        let mut b = Backoff::default();
        let steps: Vec<u128> = (0..9).map(|_| b.step().as_millis()).collect();
        assert_eq!(steps, [1, 2, 4, 8, 16, 32, 64, 100, 100]);
        b.reset();
        assert_eq!(b.step(), Duration::from_millis(1));
    }

    #[test]
    fn participants_get_distinct_indices_and_exchange_unicast() {
        let cfg = loopback(false, 0);
        let a = UdpSockets::open(&cfg, &ports).unwrap();
        let b = UdpSockets::open(&cfg, &ports).unwrap();
        assert_ne!(a.participant_index, b.participant_index);
        assert_ne!(a.meta_unicast_port, b.meta_unicast_port);
        let sender = a.sender.clone();
        let to_b = SocketAddr::from((Ipv4Addr::LOCALHOST, b.user_unicast_port));
        let (stop, rx, t) = spawn(b);
        sender.send_to(b"RTPS hello", to_b).unwrap();
        let (d, ch) = rx.recv_timeout(Duration::from_secs(5)).expect("datagram");
        assert_eq!(d, b"RTPS hello");
        assert_eq!(ch, Channel::UserUnicast);
        stop.stop();
        t.join().unwrap();
    }

    #[test]
    fn split_user_socket_receives_on_its_own_thread_and_stops() {
        let cfg = loopback(false, 0);
        let a = UdpSockets::open(&cfg, &ports).unwrap();
        let sender = a.sender.clone();
        let to_user = SocketAddr::from((Ipv4Addr::LOCALHOST, a.user_unicast_port));
        let to_meta = SocketAddr::from((Ipv4Addr::LOCALHOST, a.meta_unicast_port));
        let (poll_side, user_side) = a.receiver.split().unwrap();
        let stop = poll_side.stop_handle();
        let (tx, rx) = mpsc::channel();
        let tx2 = tx.clone();
        let tu =
            std::thread::spawn(move || user_side.run(|d, ch, _| tx.send((d.to_vec(), ch)).unwrap(), |e| panic!("{e}")));
        let tp = std::thread::spawn(move || {
            poll_side.run(|d, ch, _| tx2.send((d.to_vec(), ch)).unwrap(), |e| panic!("{e}"))
        });
        for i in 0..10u8 {
            sender.send_to(&[i; 3], to_user).unwrap();
        }
        sender.send_to(b"meta", to_meta).unwrap();
        let got: Vec<_> = (0..11).map(|_| rx.recv_timeout(Duration::from_secs(5)).expect("datagram")).collect();
        assert!(got.contains(&(b"meta".to_vec(), Channel::MetaUnicast)));
        for i in 0..10u8 {
            assert!(got.contains(&(vec![i; 3], Channel::UserUnicast)), "user datagram {i} missing");
        }
        // Both loops end, the blocking one included, while nothing arrives.
        stop.stop();
        tu.join().unwrap();
        tp.join().unwrap();
    }

    #[test]
    fn gathered_pieces_arrive_as_one_datagram() {
        let cfg = loopback(false, 0);
        let a = UdpSockets::open(&cfg, &ports).unwrap();
        let sender = a.sender.clone();
        let to = SocketAddr::from((Ipv4Addr::LOCALHOST, a.user_unicast_port));
        let (stop, rx, t) = spawn(a);
        let big = vec![9u8; 3000];
        let pieces = [io::IoSlice::new(b"RTPS"), io::IoSlice::new(&big), io::IoSlice::new(b"tail")];
        sender.send_gathered_to(&pieces, to).unwrap();
        let (d, _) = rx.recv_timeout(Duration::from_secs(5)).expect("datagram");
        assert_eq!(d.len(), 3008);
        assert_eq!((&d[..4], &d[4..3004], &d[3004..]), (&b"RTPS"[..], &big[..], &b"tail"[..]));
        stop.stop();
        t.join().unwrap();
    }

    #[test]
    fn multicast_on_loopback_reaches_every_member() {
        // A group port of its own, outside every DDS domain's range, so no real participant hears it.
        let cfg = loopback(true, 64900);
        let a = UdpSockets::open(&cfg, &ports).unwrap();
        let b = UdpSockets::open(&cfg, &ports).unwrap();
        let sender = a.sender.clone();
        let (stop_a, rx_a, ta) = spawn(a);
        let (stop_b, rx_b, tb) = spawn(b);
        let group = SocketAddr::from((Ipv4Addr::new(239, 255, 0, 1), 64900));
        sender.send_to(b"SPDP", group).unwrap();
        for rx in [&rx_a, &rx_b] {
            let (d, ch) = rx.recv_timeout(Duration::from_secs(5)).expect("multicast datagram");
            assert_eq!((d.as_slice(), ch), (&b"SPDP"[..], Channel::SpdpMulticast));
        }
        stop_a.stop();
        stop_b.stop();
        ta.join().unwrap();
        tb.join().unwrap();
    }

    #[test]
    fn running_out_of_indices_is_a_clear_error() {
        let cfg = UdpConfig { max_participant_index: 0, ..loopback(false, 0) };
        let hold = UdpSockets::open(&cfg, &|_| Some((64910, 64911))).unwrap();
        let e = UdpSockets::open(&cfg, &|_| Some((64910, 64911))).err().expect("second open must fail");
        assert_eq!(e.kind(), ErrorKind::OutOfResources);
        assert!(e.message().contains("participant index"), "{}", e.message());
        drop(hold);
        assert!(UdpSockets::open(&cfg, &|_| Some((64910, 64911))).is_ok());
    }

    #[test]
    fn empty_interface_list_is_rejected() {
        let cfg = UdpConfig { interfaces: vec![], ..loopback(false, 0) };
        assert_eq!(UdpSockets::open(&cfg, &ports).err().unwrap().kind(), ErrorKind::BadArgument);
    }
}

//! How samples move between writers and readers: [`intra`] (same process, no socket) and
//! [`udp`] (RTPS over UDPv4).
pub mod intra;
pub mod udp;

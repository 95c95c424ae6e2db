//! How samples move between writers and readers: [`intra`] (same process, no socket), [`shm`]
//! (other processes of the same host, through /dev/shm) and [`udp`] (RTPS over UDPv4).
pub mod intra;
pub mod shm;
pub mod udp;

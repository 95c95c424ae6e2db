//! The hasher of the maps the receive path looks up for every datagram (remote participants by
//! GUID prefix, routes by writer GUID). std's SipHash cost ~200 instructions per lookup there, 7 %
//! of a 64 B round trip (callgrind). This one mixes 8 bytes at a time and finishes with the
//! splitmix64 finaliser, so that both the low bits (the bucket) and the high bits (hashbrown's
//! tag) depend on every key byte. It is seeded per map from std's random keys: the keys come
//! from the network, and a fixed function would let a peer choose colliding GUIDs; a seeded
//! multiplicative hash is weaker than SipHash against that, which is acceptable for maps whose
//! size the configured limits bound (remote participants, matched writers).

use std::hash::{BuildHasher, Hasher};

/// Builds [`GuidHasher`]s with this map's seed.
#[derive(Clone, Copy, Debug)]
pub(crate) struct GuidHash {
    seed: u64,
}

impl Default for GuidHash {
    fn default() -> Self {
        GuidHash { seed: std::collections::hash_map::RandomState::new().hash_one(0x5eed_u64) }
    }
}

impl BuildHasher for GuidHash {
    type Hasher = GuidHasher;

    fn build_hasher(&self) -> GuidHasher {
        GuidHasher(self.seed)
    }
}

pub(crate) struct GuidHasher(u64);

const K: u64 = 0x9e37_79b9_7f4a_7c15;

impl GuidHasher {
    fn mix(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(23) ^ word).wrapping_mul(K);
    }
}

impl Hasher for GuidHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.mix(u64::from_le_bytes(c.try_into().unwrap_or_default()));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut w = [0u8; 8];
            w[..rest.len()].copy_from_slice(rest);
            self.mix(u64::from_le_bytes(w) ^ (rest.len() as u64) << 59);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.mix(n);
    }

    fn write_usize(&mut self, n: usize) {
        self.mix(n as u64);
    }

    fn finish(&self) -> u64 {
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::{EntityId, Guid, GuidPrefix};
    use std::collections::HashSet;

    #[test]
    fn guids_differing_in_one_byte_spread_over_buckets_and_tags() {
        let h = GuidHash::default();
        let mut low = HashSet::new();
        let mut high = HashSet::new();
        for i in 0..=255u8 {
            for pos in [0usize, 5, 11] {
                let mut p = [1u8; 12];
                p[pos] = i;
                let g = Guid::new(GuidPrefix(p), EntityId([0, 0, 1, 2]));
                let v = h.hash_one(g);
                low.insert(v & 0xff);
                high.insert(v >> 57);
            }
        }
        // 768 keys (some equal) over 256 buckets and 128 tags: a poor mix would leave most empty.
        assert!(low.len() > 200, "{} of 256 low-bit values", low.len());
        assert!(high.len() > 100, "{} of 128 tags", high.len());
        assert_ne!(GuidHash::default().hash_one(1u64), GuidHash::default().hash_one(1u64), "seeded per map");
    }
}

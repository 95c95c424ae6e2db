//! Latency statistics as the tools report them.

use std::time::Duration;

/// Percentiles of a set of latencies.
pub struct LatencyStats {
    sorted_ns: Vec<i64>,
}

impl LatencyStats {
    pub fn new(mut samples_ns: Vec<i64>) -> Self {
        samples_ns.sort_unstable();
        LatencyStats { sorted_ns: samples_ns }
    }

    pub fn len(&self) -> usize {
        self.sorted_ns.len()
    }

    pub fn is_empty(&self) -> bool {
        self.sorted_ns.is_empty()
    }

    /// The `p`-th percentile (0..=100), nearest rank; zero when empty.
    pub fn percentile(&self, p: f64) -> Duration {
        if self.sorted_ns.is_empty() {
            return Duration::ZERO;
        }
        let rank = ((p / 100.0) * self.sorted_ns.len() as f64).ceil() as usize;
        let i = rank.clamp(1, self.sorted_ns.len()) - 1;
        Duration::from_nanos(self.sorted_ns[i].max(0) as u64)
    }

    pub fn mean(&self) -> Duration {
        if self.sorted_ns.is_empty() {
            return Duration::ZERO;
        }
        let sum: i128 = self.sorted_ns.iter().map(|&v| i128::from(v.max(0))).sum();
        Duration::from_nanos((sum / self.sorted_ns.len() as i128) as u64)
    }

    /// `{"count":..,"min_us":..,"p50_us":..,"p90_us":..,"p99_us":..,"max_us":..,"mean_us":..}`.
    pub fn to_json(&self) -> crate::json::Object {
        let mut o = crate::json::Object::new();
        o.num("count", self.len() as f64);
        for (name, p) in [("min_us", 0.0), ("p50_us", 50.0), ("p90_us", 90.0), ("p99_us", 99.0), ("max_us", 100.0)] {
            o.num(name, micros(self.percentile(p)));
        }
        o.num("mean_us", micros(self.mean()));
        o
    }
}

fn micros(d: Duration) -> f64 {
    (d.as_secs_f64() * 1e8).round() / 100.0
}

/// Microseconds with two decimals, as the tools print latencies.
pub fn us(d: Duration) -> String {
    format!("{:.2}", d.as_secs_f64() * 1e6)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_use_nearest_rank() {
        let s = LatencyStats::new((1..=100).rev().collect());
        assert_eq!(s.percentile(50.0), Duration::from_nanos(50));
        assert_eq!(s.percentile(99.0), Duration::from_nanos(99));
        assert_eq!(s.percentile(100.0), Duration::from_nanos(100));
        assert_eq!(s.percentile(0.0), Duration::from_nanos(1));
        assert_eq!(s.mean(), Duration::from_nanos(50));
        assert_eq!(LatencyStats::new(vec![]).percentile(50.0), Duration::ZERO);
    }

    #[test]
    fn json_in_microseconds() {
        let s = LatencyStats::new(vec![1_000, 2_000, 3_000, 40_000]);
        assert_eq!(
            s.to_json().to_string(),
            r#"{"count":4,"min_us":1,"p50_us":2,"p90_us":40,"p99_us":40,"max_us":40,"mean_us":11.5}"#
        );
    }
}

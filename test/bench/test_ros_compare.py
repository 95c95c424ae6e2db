"""How bench/ros_compare.py reads performance_test's JSON rows (python3 -m unittest).

performance_test 1.2.1's latency figures in each row cover every sample since its warm-up (it
never clears them after the ignored seconds); the runner must take the last row's, not weight the
rows against each other. Rows cut from a real run (Array1k 100 Hz, one process) and made-up
per-second rows check both readings.
"""

import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
import ros_compare  # noqa: E402


def row(n, mean_us, max_us, received):
    return dict(latency_n=n, latency_mean=mean_us * 1e-6, latency_max=max_us * 1e-6,
                num_samples_received=received, num_samples_sent=received, num_samples_lost=0)


# /work/perf_runs/s20, rmw_hdds: latency_n grows by each second's samples.
CUMULATIVE = [row(101, 137.42, 300, 100), row(201, 139.90, 310, 99),
              row(301, 143.72, 320, 99), row(401, 148.48, 881.7, 99)]


class LatencyTotals(unittest.TestCase):
    def test_cumulative_rows_give_the_last_rows_figures(self):
        n, mean, mx = ros_compare.latency_totals(CUMULATIVE)
        self.assertEqual(n, 401)
        self.assertAlmostEqual(mean * 1e6, 148.48)
        self.assertAlmostEqual(mx * 1e6, 881.7)

    def test_per_second_rows_are_weighted_by_their_samples(self):
        rows = [row(100, 10.0, 20, 100), row(300, 20.0, 50, 300), row(100, 10.0, 30, 100)]
        n, mean, mx = ros_compare.latency_totals(rows)
        self.assertEqual(n, 500)
        self.assertAlmostEqual(mean * 1e6, 16.0)
        self.assertAlmostEqual(mx * 1e6, 50.0)

    def test_steady_per_second_rows_are_not_taken_for_cumulative(self):
        rows = [row(99, 10.0, 20, 99), row(100, 12.0, 20, 100), row(100, 14.0, 20, 100)]
        n, mean, _ = ros_compare.latency_totals(rows)
        self.assertEqual(n, 299)
        self.assertAlmostEqual(mean * 1e6, (99 * 10 + 100 * 12 + 100 * 14) / 299)

    def test_rows_without_samples_give_none(self):
        self.assertEqual(ros_compare.latency_totals([row(0, 0, 0, 0)]), (0, None, None))


if __name__ == "__main__":
    unittest.main()

"""bench/ros_compare.py: how it reads performance_test's JSON rows, its --rmws and --cells.

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
import ros_compare_report  # noqa: E402


def row(n, mean_us, max_us, received):
    return dict(latency_n=n, latency_mean=mean_us * 1e-6, latency_max=max_us * 1e-6,
                num_samples_received=received, num_samples_sent=received, num_samples_lost=0)


# /work/perf_runs/s20, rmw_hdds: latency_n grows by each second's samples.
CUMULATIVE = [row(101, 137.42, 300, 100), row(201, 139.90, 310, 99),
              row(301, 143.72, 320, 99), row(401, 148.48, 881.7, 99)]


class LatencyTotals(unittest.TestCase):
    def assert_totals(self, rows, n, mean_us, max_us):
        got_n, mean, mx = ros_compare.latency_totals(rows)
        self.assertEqual(got_n, n)
        self.assertAlmostEqual(mean * 1e6, mean_us)
        self.assertAlmostEqual(mx * 1e6, max_us)

    def test_cumulative_rows_give_the_last_rows_figures(self):
        self.assert_totals(CUMULATIVE, 401, 148.48, 881.7)

    def test_per_second_rows_are_weighted_by_their_samples(self):
        rows = [row(100, 10.0, 20, 100), row(300, 20.0, 50, 300), row(100, 10.0, 30, 100)]
        self.assert_totals(rows, 500, 16.0, 50.0)

    def test_steady_per_second_rows_are_not_taken_for_cumulative(self):
        rows = [row(99, 10.0, 20, 99), row(100, 12.0, 20, 100), row(100, 14.0, 20, 100)]
        self.assert_totals(rows, 299, (99 * 10 + 100 * 12 + 100 * 14) / 299, 20.0)

    def test_rows_without_samples_give_none(self):
        self.assertEqual(ros_compare.latency_totals([row(0, 0, 0, 0)]), (0, None, None))


class Percentiles(unittest.TestCase):
    """The one percentile every runner's figures use (the report's, and bench/ros_sched.py's)."""

    def test_closest_ranks_are_interpolated(self):
        self.assertEqual(ros_compare_report.percentile([5, 1, 3, 2, 4], 50), 3)
        self.assertAlmostEqual(ros_compare_report.percentile([5, 1, 3, 2, 4], 90), 4.6)
        self.assertEqual(ros_compare_report.median([4, 1, 2, 3]), 2.5)
        self.assertIsNone(ros_compare_report.percentile([], 50))


class Variants(unittest.TestCase):
    def test_a_variant_sets_or_prepends_its_variables(self):
        labels = ros_compare.parse_rmws("rmw_hdds,b=rmw_hdds:LD_LIBRARY_PATH+=/ws_b/lib:HDDS_CONFIG=x=1")
        self.assertEqual(labels, ["rmw_hdds", "b"])
        env = ros_compare.rmw_env({"LD_LIBRARY_PATH": "/opt/lib"}, "b")
        self.assertEqual(env["LD_LIBRARY_PATH"], "/ws_b/lib:/opt/lib")
        self.assertEqual(env["HDDS_CONFIG"], "x=1")
        self.assertEqual(env["RMW_IMPLEMENTATION"], "rmw_hdds")
        self.assertEqual(ros_compare.rmw_env({}, "b")["LD_LIBRARY_PATH"], "/ws_b/lib")
        self.assertEqual(ros_compare.rmw_env({"LD_LIBRARY_PATH": "/opt/lib"}, "rmw_hdds")["LD_LIBRARY_PATH"], "/opt/lib")


class Cells(unittest.TestCase):
    def test_every_matrix_key_parses_back_to_its_cell(self):
        for cell in ros_compare.matrix(False):
            self.assertEqual(ros_compare.Cell.parse(cell.key).as_dict(), cell.as_dict())

    def test_cells_outside_the_matrix_and_bad_keys(self):
        c = ros_compare.Cell.parse("UnboundedSequence4m 20Hz 2p REL 3sub")
        self.assertEqual((c.msg, c.rate, c.procs, c.reliability, c.subs),
                         ("UnboundedSequence4m", 20, 2, "RELIABLE", 3))
        for bad in ["Array1k 1000 1p BE 1sub", "Array1k 1000Hz 3p BE 1sub", "Array1k max 1p XX 1sub",
                    "Array1k max 1p BE sub", "Array1k max 1p BE"]:
            self.assertIsNone(ros_compare.Cell.parse(bad), bad)

    def test_a_zero_copy_row_says_so_in_its_key_and_its_commands(self):
        c = ros_compare.Cell.parse("Array4m 20Hz 2p BE 1sub zero-copy")
        self.assertTrue(c.zero_copy)
        self.assertEqual(c.key, "Array4m 20Hz 2p BE 1sub zero-copy")
        for _, argv in ros_compare.perf_test_commands(c, 6, 2, "/tmp/x"):
            self.assertIn("--zero-copy", argv)
        plain = ros_compare.Cell.parse("Array4m 20Hz 2p BE 1sub")
        self.assertFalse(plain.zero_copy)
        for _, argv in ros_compare.perf_test_commands(plain, 6, 2, "/tmp/x"):
            self.assertNotIn("--zero-copy", argv)
        self.assertNotIn("zero_copy", plain.as_dict())
        for bad in ["Array4m 20Hz 2p BE 1sub zerocopy", "Array4m 20Hz 2p BE 1sub zero-copy x"]:
            self.assertIsNone(ros_compare.Cell.parse(bad), bad)

    def test_unbounded_sequences_carry_their_size(self):
        self.assertEqual(ros_compare.message_args("UnboundedSequence4m"),
                         ["-m", "UnboundedSequence", "--unbounded-msg-size", str(4 * 1024 * 1024)])
        self.assertEqual(ros_compare.message_args("UnboundedSequence64k")[-1], "65536")
        self.assertEqual(ros_compare.message_args("UnboundedSequence100")[-1], "100")
        self.assertEqual(ros_compare.message_args("UnboundedSequence"), ["-m", "UnboundedSequence"])
        self.assertEqual(ros_compare.message_args("Array4m"), ["-m", "Array4m"])


if __name__ == "__main__":
    unittest.main()

"""bench/ros_sched.py: how it reads the scheduler's events into run lengths and wake-up delays.

The events are cut from a real recording of `Array1k 1000Hz 2p BE 1sub` under rmw_hdds (session 34):
the timer wakes the publisher (16191), which wakes the subscriber's executor (16182) on its own CPU
and yields to it; the executor runs until it sleeps, then the publisher finishes and sleeps. The
last three events are made up: the next sample's wake-up lands on the other CPU, which the idle task
hands to the executor.
"""

import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
import ros_sched  # noqa: E402

EVENTS = """\
    0 [000] 13663.586395: sched:sched_wakeup: comm=perf_test pid=16191 prio=120 target_cpu=000
    0 [000] 13663.586401: sched:sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=perf_test next_pid=16191 next_prio=120
16191 [000] 13663.586415: sched:sched_wakeup: comm=perf_test pid=16182 prio=120 target_cpu=000
16191 [000] 13663.586418: sched:sched_switch: prev_comm=perf_test prev_pid=16191 prev_prio=120 prev_state=R ==> next_comm=perf_test next_pid=16182 next_prio=120
16182 [000] 13663.586456: sched:sched_switch: prev_comm=perf_test prev_pid=16182 prev_prio=120 prev_state=S ==> next_comm=perf_test next_pid=16191 next_prio=120
16191 [000] 13663.586473: sched:sched_switch: prev_comm=perf_test prev_pid=16191 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120
   70 [001] 13663.586480: sched:sched_wakeup: comm=kdamond.0 pid=70 prio=120 target_cpu=001
16191 [000] 13663.587415: sched:sched_wakeup: comm=perf_test pid=16182 prio=120 target_cpu=001
    0 [001] 13663.587440: sched:sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=perf_test next_pid=16182 next_prio=120
16182 [001] 13663.587480: sched:sched_switch: prev_comm=perf_test prev_pid=16182 prev_prio=120 prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120
"""


class Parse(unittest.TestCase):
    def setUp(self):
        self.runs, self.wakes = ros_sched.parse(EVENTS, {16191, 16182})

    def test_a_run_counts_from_its_last_start_to_its_sleep(self):
        # The publisher's first stretch ended in a yield (state R): not a run that slept.
        self.assertEqual(len(self.runs[16191]), 1)
        self.assertAlmostEqual(self.runs[16191][0], 17.0, places=3)
        self.assertEqual(len(self.runs[16182]), 2)
        self.assertAlmostEqual(self.runs[16182][0], 38.0, places=3)
        self.assertAlmostEqual(self.runs[16182][1], 40.0, places=3)

    def test_a_wake_up_gives_its_delay_cpu_and_waker(self):
        (delay, same_cpu, waker), (delay2, same_cpu2, waker2) = self.wakes[16182]
        self.assertAlmostEqual(delay, 3.0, places=3)
        self.assertTrue(same_cpu)
        self.assertEqual(waker, 16191)
        # Woken from CPU 0, run on CPU 1 by the idle task's switch: the waker is still the publisher.
        self.assertAlmostEqual(delay2, 25.0, places=3)
        self.assertFalse(same_cpu2)
        self.assertEqual(waker2, 16191)
        (delay, same_cpu, waker), = self.wakes[16191]
        self.assertAlmostEqual(delay, 6.0, places=3)
        self.assertEqual(waker, 0, "the timer's wake-up runs on the idle task")

    def test_threads_outside_the_run_are_left_out(self):
        self.assertEqual(set(self.runs), {16191, 16182})
        self.assertEqual(set(self.wakes), {16191, 16182})

    def test_the_most_common_waker(self):
        self.assertEqual(ros_sched.most_common([7, 3, 7, 0]), 7)
        self.assertIsNone(ros_sched.most_common([]))


if __name__ == "__main__":
    unittest.main()

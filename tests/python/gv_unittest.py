"""gv_unittest.py: what the Python test files (test_gpuvet.py, test_device.py) share: the test
case that collects what it compared (say), one PASS, FAIL or SKIP line per test under a prefix
("python", "python-gpu"; a skip is not a pass), and the comparison of two Drop7 records."""
import sys
import threading
import time
import unittest

import numpy as np

import gpuvet


class Said(unittest.TestCase):
    said = ""

    def say(self, text):
        self.said = (self.said + "; " if self.said else "") + text


def same_records(a, b):
    """The first field where records a and b differ, or None."""
    for f in gpuvet.RECORD_DTYPE.names:
        if not np.array_equal(a[f], b[f]):
            return "%s: %s vs %s" % (f, a[f], b[f])
    return None


def gil_ticks(call):
    """Runs call() on a thread while this one loops; returns (ticks, seconds): the loop turns
    inside the middle 60% of the call (a thread that asked for the GIL also runs between the C
    function's return and the next clock reading, so the call's ends prove nothing) and the
    call's length. ticks > 0 shows the call released the GIL."""
    span, stamps = [], []

    def one():
        t0 = time.perf_counter()
        call()
        span.extend([t0, time.perf_counter()])

    th = threading.Thread(target=one)
    th.start()
    while th.is_alive():
        stamps.append(time.perf_counter())
    th.join()
    t0, t1 = span
    return sum(1 for t in stamps if t0 + 0.2 * (t1 - t0) < t < t1 - 0.2 * (t1 - t0)), t1 - t0


def main(module, prefix):
    """Runs the tests of module (those whose id contains an argument, when given), printing a
    line per test; exits 0 when every test passed or was skipped."""

    class Result(unittest.TextTestResult):
        def addSuccess(self, test):
            super().addSuccess(test)
            print("PASS %s %s: %s" % (prefix, test._testMethodName, getattr(test, "said", "") or "ran"), flush=True)

        def addFailure(self, test, err):
            super().addFailure(test, err)
            msg = str(err[1]).strip().splitlines()
            print("FAIL %s %s: %s" % (prefix, test._testMethodName, " ".join(msg)[:600]), flush=True)

        def addError(self, test, err):
            super().addError(test, err)
            print("FAIL %s %s: %s: %s" % (prefix, test._testMethodName, err[0].__name__, str(err[1]).strip()[:600]),
                  flush=True)

        def addSkip(self, test, reason):
            super().addSkip(test, reason)
            print("SKIP %s %s: %s" % (prefix, test._testMethodName, reason), flush=True)

    suite = unittest.defaultTestLoader.loadTestsFromModule(module)
    if len(sys.argv) > 1:
        suite = unittest.TestSuite(t for s in suite for t in s if any(a in t.id() for a in sys.argv[1:]))
    r = unittest.TextTestRunner(stream=sys.stderr, resultclass=Result, verbosity=0).run(suite)
    sys.exit(0 if r.wasSuccessful() else 1)

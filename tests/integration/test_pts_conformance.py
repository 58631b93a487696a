"""What a PTS report says it is, end to end through `nvmonctl test run` on
simulated drives: every parameter set to other than the specification's
value is a condition in run.json and a NON-CONFORMANT line in report.html, a
run at the specification's defaults has none, a CBW or HIR whose
preconditioning never became steady says so, CBW's pre-write runs before
each sweep round and counts in none of its results, the summary's latency
names its element, a client WSAT `variant=spec` writes 4 x the user
capacity, and a test that is not a PTS test says what it rests on."""
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from nvmond_harness import nvmonctl  # noqa: E402


def run_test(test, *args, config=None):
    out = tempfile.mkdtemp(prefix=f"pts-conformance-{test}-")
    extra = ("--config", config) if config else ()
    r = nvmonctl("test", "run", test, *args, *extra, "--out", out, timeout=300)
    if r.returncode != 0:
        raise AssertionError(r.stderr + r.stdout[-2000:])
    with open(os.path.join(out, "run.json")) as f:
        run = json.load(f)
    with open(os.path.join(out, "report.html")) as f:
        return out, run, f.read()


def non_conformant_block(page):
    """The report's NON-CONFORMANT paragraph and the facts after it, or ''."""
    at = page.find("NON-CONFORMANT")
    if at < 0:
        return ""
    return page[at:page.index('<section id="run">', at)]


class ParameterConditionsTest(unittest.TestCase):
    def test_a_short_round_is_a_condition_and_a_non_conformant_line(self):
        _, run, page = run_test("iops", "--target", "sim:datacenter", "--set", "round=5s")
        self.assertIn({"name": "parameter", "detail": "round=5s (PTS: 60s)"}, run["conditions"])
        self.assertIn("round=5s (PTS: 60s)", non_conformant_block(page))

    def test_a_default_iops_on_a_simulated_drive_has_no_parameter_condition(self):
        out, run, page = run_test("iops", "--target", "sim:datacenter")
        self.assertEqual([c for c in run.get("conditions", []) if c["name"] == "parameter"], [])
        self.assertNotIn("NON-CONFORMANT", page)
        # The summary's latency is the 4 KiB write element's, and says so.
        r = nvmonctl("report", out)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("4KiB 0/100 write", r.stdout)

    def test_several_departures_are_each_named(self):
        _, run, page = run_test("iops", "--target", "sim:datacenter", "--set", "round=5s", "--set", "window=4",
                                "--set", "wipc_multiple=1", "--set", "max_rounds=10", "--set", "range=0.5",
                                "--set", "wipc_threads=2")
        details = [c["detail"] for c in run["conditions"] if c["name"] == "parameter"]
        for d in ("round=5s (PTS: 60s)", "window=4 (PTS: 5)", "wipc_multiple=1 (PTS: 2)",
                  "max_rounds=10 (PTS: 25)", "range=0.5 (PTS: 1)", "wipc_threads=2 (PTS: 1)"):
            self.assertIn(d, details)
            self.assertIn(d, non_conformant_block(page))


class PreconditioningSteadyStateTest(unittest.TestCase):
    def test_a_cbw_sweep_after_preconditioning_that_never_became_steady_is_flagged(self):
        # Five one-minute rounds of T32Q32 writes on the simulated datacenter
        # drive end on its fresh-out-of-box cliff.
        _, run, page = run_test("cbw", "--target", "sim:datacenter", "--set", "max_rounds=5",
                                "--set", "thread_counts=4,1", "--set", "queue_depths=32,1")
        pre = run["preconditioning"][0]
        self.assertEqual(pre["kind"], "workload-dependent")
        self.assertEqual(pre["rounds"], 5)
        self.assertFalse(pre["steady_state"]["reached"])
        self.assertEqual(pre["steady_state"]["window_rounds"], 5)
        iops = [r["iops"] for r in run["rounds"] if r["phase"] == "precondition"]
        self.assertLess(iops[-1], 0.8 * iops[0], "the drive is still falling off its cliff")
        names = [c["name"] for c in run["conditions"]]
        self.assertIn("precondition-not-steady", names)
        self.assertIn("did not reach steady state in 5 rounds", non_conformant_block(page))
        self.assertIn("NOT steady", page)

    def test_a_cbw_preconditioned_to_steady_state_records_its_window(self):
        _, run, page = run_test("cbw", "--target", "sim:datacenter", "--set", "thread_counts=4,1",
                                "--set", "queue_depths=32,1")
        ss = run["preconditioning"][0]["steady_state"]
        self.assertTrue(ss["reached"], ss)
        first, last = ss["window"]
        self.assertEqual(last - first + 1, 5)
        self.assertNotIn("precondition-not-steady", [c["name"] for c in run.get("conditions", [])])
        # Rounds as the PTS counts them, from 1.
        self.assertIn(f"steady at round {ss['round'] + 1} (window rounds {first + 1}–{last + 1})", page)
        # The response-time histograms: a dedicated 10-minute round at each of
        # the max, mid and min points after the sweep, by default.
        dedicated = [r for r in run["rounds"] if r["phase"] == "histogram"]
        self.assertEqual(len(dedicated), 3)
        for p, r in zip(run["response_time_histograms"], dedicated):
            self.assertEqual((p["source"], p["label"]), ("dedicated round", r["element"]["label"]))
            self.assertAlmostEqual(r["seconds"], 600, delta=0.01)
        self.assertEqual(run["parameters"]["histogram_rounds"], "true")
        self.assertIn("From a dedicated 600 s round after the sweep.", page)
        # Before each sweep round (and only then), 5 one-minute rounds of the
        # CBW pattern, all writes, at the preconditioning's load: rounds of
        # their own phase that no result of the sweep counts.
        sweep = [r for r in run["rounds"] if r["phase"] == "test"]
        sweep_rounds = sorted({r["round"] for r in sweep})
        prewrites = [r for r in run["rounds"] if r["phase"] == "prewrite"]
        self.assertEqual(len(prewrites), 5 * len(sweep_rounds))
        for k in sweep_rounds:
            before = [r for r in prewrites if r["round"] == k]
            first = min(r["index"] for r in sweep if r["round"] == k)
            self.assertEqual([r["index"] for r in before], list(range(first - 5, first)), k)
        for r in prewrites:
            self.assertEqual(r["element"]["label"], "CBW 0/100 T32Q32 pre-write")
            self.assertAlmostEqual(r["seconds"], 60, delta=0.01)
            self.assertEqual(r["ops"].get("read", {}).get("ops", 0), 0)
            self.assertGreater(r["ops"]["write"]["ops"], 0)
        self.assertLess(max(r["index"] for r in prewrites), min(r["index"] for r in dedicated))
        self.assertNotIn("pre-write", " ".join(e["label"] for e in run["elements"]))
        self.assertEqual(sum(run["histogram"]["counts"]), sum(sum(r["histogram_counts"]) for r in sweep))
        self.assertIn(f"{len(prewrites)} rounds (CBW 0/100 T32Q32 pre-write), 5 before each of "
                      f"{len(sweep_rounds)} sweep rounds", page)
        self.assertNotIn("prewrite_rounds", non_conformant_block(page))

    def test_a_cbw_without_its_pre_write_says_so_and_names_what_the_default_rests_on(self):
        _, run, page = run_test("cbw", "--target", "sim:datacenter", "--set", "thread_counts=4,1",
                                "--set", "queue_depths=32,1", "--set", "prewrite_rounds=0",
                                "--set", "histogram_rounds=false")
        detail = "prewrite_rounds=0 (ECW scripts: 5 \u00d7 round)"
        self.assertIn({"name": "parameter", "detail": detail}, run["conditions"])
        self.assertIn(detail, non_conformant_block(page))
        self.assertEqual([r for r in run["rounds"] if r["phase"] == "prewrite"], [])


class HirPreconditioningTest(unittest.TestCase):
    def test_a_hir_whose_preconditioning_never_became_steady_is_flagged(self):
        # Five 30-minute rounds of RND 4 KiB writes end on the simulated
        # datacenter drive's fresh-out-of-box cliff; then one short wait state.
        _, run, page = run_test("hir", "--target", "sim:datacenter", "--set", "max_rounds=5",
                                "--set", "idle_seconds=5", "--set", "bursts=2", "--set", "baseline_bursts=0")
        pre = run["preconditioning"][0]
        self.assertEqual(pre["kind"], "workload-dependent")
        self.assertEqual(pre["rounds"], 5)
        self.assertFalse(pre["steady_state"]["reached"])
        self.assertIn("precondition-not-steady", [c["name"] for c in run["conditions"]])
        self.assertIn("did not reach steady state in 5 rounds", non_conformant_block(page))
        self.assertIn("NOT steady", page)


class NotPtsTestsTest(unittest.TestCase):
    def test_a_test_that_is_not_a_pts_test_says_what_it_rests_on_and_never_that_it_is_pts(self):
        for test, sets, basis in (("slc", (), "SLC-cache fill"),
                                  ("qos", ("--set", "round=5s"), "datasheet"),
                                  ("endurance", ("--set", "duration=2h"), "endurance rating")):
            _, run, page = run_test(test, "--target", "sim:datacenter", *sets)
            head = page[:page.index('<section id="run">')]
            self.assertIn("not a PTS test: ", head, test)
            self.assertIn(basis, head, test)
            for claim in ("PTS-E", "PTS-C", "SNIA", "NON-CONFORMANT"):
                self.assertNotIn(claim, page, (test, claim))


class ClientWsatLengthTest(unittest.TestCase):
    def test_a_client_spec_wsat_writes_four_times_the_user_capacity(self):
        d = tempfile.mkdtemp(prefix="pts-conformance-c64-")
        config = os.path.join(d, "c.toml")
        with open(config, "w") as f:
            f.write('[[sim]]\nname = "c64"\nserial = "C64"\nprofile = "consumer"\ncapacity = "64GB"\n')
        _, run, _ = run_test("wsat", "--profile", "client", "--set", "variant=spec", "--target", "sim:c64",
                             config=config)
        capacity = run["target"]["capacity_bytes"]
        self.assertEqual(capacity, 64_000_000_000)
        self.assertEqual(run["target"]["tested_range_bytes"], 48_000_000_000)
        written = sum(r["bytes_written"] for r in run["rounds"])
        self.assertGreaterEqual(written, 4.00 * capacity)
        self.assertEqual([c for c in run.get("conditions", []) if c["name"] == "parameter"], [])


if __name__ == "__main__":
    unittest.main()

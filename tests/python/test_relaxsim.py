"""test_relaxsim.py: the Python binding (python/relaxsim) through the library, as ctest runs it
(PYTHONPATH=BUILD/python, RS_SOURCE_DIR the source tree). Each claim is recomputed from what the
binding returns: the point2d scenario's closed form (it stops at x = 0.60918411 m and rests with
fz = m g), a comparison's totals against its recorded steps, a restored snapshot's steps against
their first run, an LCP's certificate in numpy. Threads and Ctrl-C are tried in a child python
(a crash there is a failed test, not the end of this one), which waits on events, never on
times (the parent's limits only end a child that hangs)."""

import ctypes
import json
import os
import signal
import subprocess
import sys
import unittest

import numpy as np

import relaxsim

SCEN = os.path.join(os.environ.get("RS_SOURCE_DIR", "."), "problems", "scenarios")
POINT2D = os.path.join(SCEN, "point2d_friction.ini")

# One Simulation stepped by two threads at once (a barrier starts them together), n steps each
# with reads in between, and run(n) by two threads at once; and, alone, 2n steps of another.
THREADS_CHILD = r"""
import json, sys, threading
import relaxsim
path, backend, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
sc = relaxsim.Scenario(path)
alone = relaxsim.Simulation(sc, backend).run(2 * n)
start = threading.Barrier(2)

def both(work):
    threads = [threading.Thread(target=work) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()

stepped = relaxsim.Simulation(sc, backend)
def steps():
    start.wait()
    for _ in range(n):
        stepped.step()
        stepped.state, stepped.forces, stepped.steps_taken, stepped.time
both(steps)
ran, runs = relaxsim.Simulation(sc, backend), []
def run():
    start.wait()
    runs.append(ran.run(n))
both(run)
print(json.dumps({"dt": sc.dt, "alone": alone.states.tolist(), "stepped": stepped.state.tolist(),
                  "steps": stepped.steps_taken, "ran": ran.steps_taken,
                  "runs": sorted([r.t[0], r.t.tolist(), r.states.tolist()] for r in runs)}))
"""

# A comparison of 10^8 steps (minutes to hours) that gets SIGINT while the library runs a step,
# as a Ctrl-C mostly does: once the comparison has begun (with on_step, after its first call;
# without, as the binding calls rs_sim_compare: its _compare, wrapped to say so and to keep what
# the library returned), a thread waits until it holds the GIL while the main thread's innermost
# Python frame is that wrapper's, i.e. the main thread is in the library (not in a callback's
# Python), and sends the signal before it lets go of the GIL: Python's handler then runs at the
# next Python the main thread runs, the first line of a step callback. The child prints the
# exception, the last step on_step saw and the one it had seen at the signal, and the library's
# code and message.
SIGINT_CHILD = r"""
import json, os, signal, sys, threading, time
import relaxsim
# Python's own handler, whatever this process inherited: a job a shell starts in the background
# (a CI runner's) has SIGINT ignored, and Python then installs none
signal.signal(signal.SIGINT, signal.default_int_handler)
path, mode = sys.argv[1], sys.argv[2]
sc = relaxsim.Scenario(path, set={"run.steps": 100000000})
last, at_signal, returned = [-1], [], []
begun = threading.Event()
main = threading.main_thread().ident

def on_step(k, *states):
    last[0] = k
    begun.set()

call = relaxsim._compare
def announced(*args):
    if mode == "quiet":
        begun.set()
    returned.append(call(*args))
    returned.append(args[4]._obj.message.decode())
    return returned[0]
relaxsim._compare = announced

def interrupt():
    begun.wait()
    while sys._current_frames()[main].f_code is not announced.__code__:
        time.sleep(0)  # (the main thread runs a callback's Python: let it go back to C)
    at_signal.append(last[0])
    os.kill(os.getpid(), signal.SIGINT)
threading.Thread(target=interrupt, daemon=True).start()
try:
    relaxsim.compare(sc, on_step=on_step if mode == "on_step" else None)
    raised = None
except BaseException as e:
    raised = type(e).__name__
print(json.dumps({"raised": raised, "last": last[0],
                  "at_signal": at_signal[0] if at_signal else None,
                  "code": returned[0] if returned else None,
                  "message": returned[1] if returned else None}))
"""


def interrupted_compare(test, mode, limit=120):
    """SIGINT_CHILD's report (a dict); test fails unless the child raised KeyboardInterrupt,
    with nothing on stderr, within limit seconds, and the library's run was stopped."""
    try:
        child = subprocess.run([sys.executable, "-c", SIGINT_CHILD, os.path.abspath(POINT2D),
                                mode], capture_output=True, text=True, timeout=limit)
    except subprocess.TimeoutExpired:  # (the child is killed)
        test.fail("%s: the comparison went on for %d s after SIGINT" % (mode, limit))
    test.assertEqual(child.returncode, 0, child.stderr)
    got = json.loads(child.stdout)
    test.assertEqual(got["raised"], "KeyboardInterrupt", "%s: %s %s" % (mode, got, child.stderr))
    test.assertEqual(child.stderr, "")  # (it had ctypes's "Exception ignored" and a traceback)
    # stopped, not finished (10: RS_ERR_STOPPED, relaxsim/error.h)
    test.assertEqual(got["code"], 10, got)
    test.assertRegex(got["message"], "asked to stop after step [0-9]+ of 100000000$")
    return got


class ScenarioTest(unittest.TestCase):
    def test_columns_params_and_overrides(self):
        sc = relaxsim.Scenario(POINT2D, set={"model.mu": 0.2, "run.steps": 300})
        self.assertEqual(sc.model, "point2d_friction")
        self.assertEqual(sc.steps, 300)
        self.assertEqual(sc.state_names, ["x_m", "z_m", "xd_mps", "zd_mps"])
        self.assertEqual(sc.force_names, ["fx_N", "fz_N"])
        self.assertEqual(sc.params["mu"], 0.2)
        np.testing.assert_array_equal(sc.initial_state, [0.0, 1.0, 1.0, 0.0])
        self.assertEqual(list(sc.input(0)), [0.0, 0.0])
        self.assertTrue(relaxsim.version().startswith("0."))

    def test_bad_input_is_an_error_naming_the_key(self):
        with self.assertRaises(relaxsim.Error) as e:
            relaxsim.Scenario(POINT2D, set={"model.mu": -1})
        self.assertIn("model.mu", str(e.exception))
        with self.assertRaises(relaxsim.Error) as e:
            relaxsim.Scenario(os.path.join(SCEN, "no_such_file.ini"))
        self.assertIn("no_such_file.ini", str(e.exception))
        with self.assertRaises(relaxsim.Error) as e:
            relaxsim.Scenario.from_text("[model]\nname = point2d_friction\nbogus = 1\n",
                                        name="mine.ini")
        self.assertIn("mine.ini:3", str(e.exception))


class SimulationTest(unittest.TestCase):
    def test_both_backends_reach_the_closed_form(self):
        sc = relaxsim.Scenario(POINT2D)
        for backend, tol in (("lemke", 1e-14), ("nlp", 2e-7)):
            sim = relaxsim.Simulation(sc, backend)
            run = sim.run(sc.steps)
            self.assertTrue(run.ok.all())
            self.assertEqual(run.states.shape, (1200, 4))
            self.assertEqual(sim.failed_steps, 0)
            self.assertAlmostEqual(run.t[-1], 1.2, delta=1e-12)
            self.assertLessEqual(abs(run.states[-1, 0] - 0.60918411), tol)  # measured 5e-9
            self.assertLessEqual(abs(run.forces[-1, 1] - 98.1), 1e-10)
            np.testing.assert_array_equal(run.states[-1], sim.state)
            # in flight the step is the free fall: zd falls by g dt per step
            np.testing.assert_allclose(np.diff(run.states[:400, 3]), -9.81e-3, rtol=0, atol=1e-12)
            self.assertIn(run.last.path, ["lemke"] if backend == "lemke" else
                          ["start_previous", "start_contact_free", "start_polished", "ipopt_warm",
                           "ipopt_cold", "ipopt_homotopy"])

    def test_snapshot_repeats_the_steps(self):
        sc = relaxsim.Scenario(POINT2D)
        for backend in ("nlp", "lemke"):
            sim = relaxsim.Simulation(sc, backend)
            sim.run(440)
            snap = sim.save()
            first = sim.run(40).states
            sim.restore(snap)
            self.assertEqual(sim.steps_taken, 440)
            np.testing.assert_array_equal(sim.run(40).states, first)

    def test_feedback_inputs(self):
        # a box at rest on the ground (2 kg, mu = 0.5: mu m g = 9.81 N), pushed by a ramp of
        # 0.1 N per step: friction holds every push below mu m g exactly (measured 1e-14 N), and
        # once the push passes it the box slides with friction at the cone's edge, -mu m g
        sc = relaxsim.Scenario(os.path.join(SCEN, "bodies_box_rest.ini"))
        sim = relaxsim.Simulation(sc, "lemke")
        iux = sc.input_names.index("box.ux_N")
        ifx = sc.force_names.index("box.fx_N")
        ixd = sc.state_names.index("box.xd_mps")
        slid = 0
        for k in range(120):
            u = np.zeros(3)
            u[iux] = 0.1 * k
            info = sim.step(u)
            self.assertTrue(info.ok)
            if u[iux] < 9.81 * (1 - 1e-9):
                self.assertLessEqual(abs(sim.forces[ifx] + u[iux]), 1e-12)
                self.assertLessEqual(abs(sim.state[ixd]), 1e-15)
            elif u[iux] > 9.81 * (1 + 1e-9):
                self.assertLessEqual(abs(sim.forces[ifx] + 9.81), 1e-9)
                self.assertGreater(sim.state[ixd], 0.0)
                slid += 1
        self.assertGreater(slid, 10)
        with self.assertRaises(relaxsim.Error):
            sim.step([np.nan, 0, 0])
        with self.assertRaises(ValueError):
            sim.step([1.0])
        with self.assertRaises(ValueError):  # a transposed table is refused, not reinterpreted
            sim.run(4, inputs=np.zeros((3, 4)))
        with self.assertRaises(ValueError):
            sim.state = np.zeros((2, 3))
        with self.assertRaises(ValueError):
            sc.input(2**32 + 1)
        before = sim.steps_taken
        bad = np.zeros((4, 3))
        bad[3, 0] = np.inf
        with self.assertRaises(relaxsim.Error):
            sim.run(4, inputs=bad)
        self.assertEqual(sim.steps_taken, before)  # no step taken
        self.assertEqual(len(sim.run(0).t), 0)

    def test_contacts_of_the_last_step(self):
        # the box pushed by 5 N at rest on the ground (bodies_box_rest.ini: 2 kg, mu = 0.5):
        # its two corner contacts carry its weight m g = 19.62 N between them and hold the push,
        # and their forces sum to the box's total (fx, fz) to rounding
        sc = relaxsim.Scenario(os.path.join(SCEN, "bodies_box_rest.ini"))
        for backend in ("nlp", "lemke"):
            sim = relaxsim.Simulation(sc, backend)
            self.assertEqual(sim.contacts(), [])
            u = np.zeros(3)
            u[sc.input_names.index("box.ux_N")] = 5.0
            self.assertTrue(sim.step(u).ok)
            cs = sim.contacts()
            self.assertEqual(len(cs), 2)
            fx = sum(c["normal_force"] * c["normal"][0] + c["tangent_force"] * c["normal"][1]
                     for c in cs)
            fz = sum(c["normal_force"] * c["normal"][1] - c["tangent_force"] * c["normal"][0]
                     for c in cs)
            for c in cs:
                self.assertEqual((c["a"], c["b"]), ("box", "static"))
            tol = 1e-9 * 19.62
            self.assertLessEqual(abs(fz - 19.62), tol)
            self.assertLessEqual(abs(fx + 5.0), tol)
            self.assertLessEqual(abs(fx - sim.forces[sc.force_names.index("box.fx_N")]), tol)
            self.assertLessEqual(abs(fz - sim.forces[sc.force_names.index("box.fz_N")]), tol)
        with self.assertRaises(relaxsim.Error):  # per-body forces only
            relaxsim.Simulation(relaxsim.Scenario(POINT2D), "lemke").contacts()

    def test_states_and_inputs_outside_the_domain(self):
        # a body set 1000 m below the ground, and a backward push of a forward-only block, are
        # refused with the model's reason (and nothing changes); a state the run reached is not
        sim = relaxsim.Simulation(relaxsim.Scenario(POINT2D), "lemke")
        sim.run(500)
        x = sim.state
        sim.state = x  # a reached state round-trips
        below = x.copy()
        below[sim.scenario.state_names.index("z_m")] = -1000.0
        with self.assertRaisesRegex(relaxsim.Error, "below the ground"):
            sim.state = below
        np.testing.assert_array_equal(sim.state, x)
        block = relaxsim.Simulation(
            relaxsim.Scenario(os.path.join(SCEN, "sliding_block_forward.ini")), "lemke")
        with self.assertRaisesRegex(relaxsim.Error, "needs u >= 0"):
            block.step([-1.0])
        with self.assertRaisesRegex(relaxsim.Error, "inputs row 1: .*needs u >= 0") as caught:
            block.run(3, inputs=[[1.0], [-1.0], [1.0]])
        self.assertEqual(block.steps_taken, 1)  # the first row's step, then the refusal
        # ... and the step taken is the Error's trajectory (it was lost)
        np.testing.assert_array_equal(caught.exception.trajectory.states[-1], block.state)
        self.assertEqual(len(caught.exception.trajectory.t), 1)
        # a row beyond 1e12 is refused before the first step, as rs_sim_run does (two steps were
        # taken, then the third row refused)
        with self.assertRaisesRegex(relaxsim.Error,
                                    "inputs row 2: .*beyond 1e\\+12 .*; no step taken"):
            sim.run(3, inputs=[[0, 0], [0, 0], [1e13, 0]])
        self.assertEqual(sim.steps_taken, 500)

    def test_backend_of_the_scenario(self):
        # Simulation(scenario) steps by the scenario's [run] backend (it was always IPOPT)
        sc = relaxsim.Scenario(POINT2D, set={"run.backend": "lemke"})
        self.assertEqual(sc.backend, "lemke")
        sim = relaxsim.Simulation(sc)
        self.assertEqual(sim.backend, "lemke")
        self.assertEqual(sim.step().path, "lemke")
        self.assertNotEqual(relaxsim.Simulation(sc, "nlp").step().path, "lemke")

    def test_wrong_types_and_nul_characters(self):
        # a NUL would end the text where it stands (the rest was dropped, silently)
        with self.assertRaisesRegex(ValueError, "NUL"):
            relaxsim.Scenario.from_text("[model]\nname=point2d_friction\n\x00[run]\nsteps=5\n")
        with self.assertRaisesRegex(ValueError, "NUL"):
            relaxsim.Scenario(POINT2D + "\x00junk")
        with self.assertRaisesRegex(ValueError, "NUL"):
            relaxsim.Scenario(POINT2D, set=["run.steps=5\x00"])
        with self.assertRaises(TypeError):
            relaxsim.Scenario.from_text(b"[model]\nname=point2d_friction\n")
        with self.assertRaises(TypeError):
            relaxsim.Simulation("point2d_friction.ini")
        sim = relaxsim.Simulation(relaxsim.Scenario(POINT2D), "lemke")
        with self.assertRaises(TypeError):
            sim.restore(None)
        with self.assertRaises(ValueError):
            sim.run(True)
        with self.assertRaises(TypeError):
            sim.step(np.array([1 + 2j, 0]))
        other = relaxsim.Simulation(relaxsim.Scenario(POINT2D), "lemke")
        with self.assertRaisesRegex(relaxsim.Error, "another scenario"):
            sim.restore(other.save())
        self.assertEqual(sim.steps_taken, 0)

    def test_set_forms(self):
        # a dict, a list of "key=value", or one such string alone (it raised a bare unpacking
        # error); anything else is a ValueError that says what is expected
        for form in ({"model.mu": 0.3}, ["model.mu=0.3"], "model.mu=0.3"):
            sc = relaxsim.Scenario(POINT2D, set=form)
            self.assertEqual(sc.params["mu"], 0.3)
        with self.assertRaisesRegex(ValueError, "section.key=value"):
            relaxsim.Scenario(POINT2D, set=["model.mu"])

    def test_one_simulation_from_two_threads(self):
        # each call holds the simulation's lock: 2 x n steps from two threads are the 2n steps
        # of one, bit for bit, and run(n) from two threads at once is two runs one after the
        # other (it crashed: "malloc(): unsorted double linked list corrupted", a segfault)
        n = 200
        for backend in ("lemke", "nlp"):
            child = subprocess.run([sys.executable, "-c", THREADS_CHILD,
                                    os.path.join(SCEN, "bodies_stack.ini"), backend, str(n)],
                                   capture_output=True, text=True, timeout=600)
            self.assertEqual(child.returncode, 0, "%s: %s" % (backend, child.stderr[-2000:]))
            got = json.loads(child.stdout)
            alone = np.array(got["alone"])
            self.assertEqual((got["steps"], got["ran"]), (2 * n, 2 * n))
            np.testing.assert_array_equal(got["stepped"], alone[-1])
            (t0, first), (t1, second) = [(np.array(t), np.array(x)) for _, t, x in got["runs"]]
            np.testing.assert_array_equal(np.concatenate([first, second]), alone)
            np.testing.assert_allclose(np.concatenate([t0, t1]),
                                       (1 + np.arange(2 * n)) * got["dt"], rtol=1e-12)

    def test_lifetimes_and_numpy_scalars(self):
        # a scenario dropped (and collected) before its simulation and its snapshot; overrides
        # given as numpy scalars
        import gc
        sc = relaxsim.Scenario(POINT2D, set={"model.mu": np.float64(0.25), "run.steps": 50})
        self.assertEqual(sc.params["mu"], 0.25)
        sim = relaxsim.Simulation(sc, "nlp")
        sc.owner = sim  # a cycle: the collector may finalise the scenario first
        snap = sim.save()
        del sc, sim
        gc.collect()
        sim2 = relaxsim.Simulation(relaxsim.Scenario(POINT2D), "nlp")
        with self.assertRaises(relaxsim.Error):
            sim2.restore(snap)  # another scenario handle


class CompareTest(unittest.TestCase):
    def test_totals_are_the_recorded_steps(self):
        sc = relaxsim.Scenario(POINT2D)
        seen = []
        cmp = relaxsim.compare(sc, on_step=lambda k, v, *states: seen.append((k, v)),
                               record=True)
        self.assertEqual([k for k, _ in seen], list(range(1200)))
        counts = np.bincount(cmp.verdict, minlength=6)
        self.assertEqual({relaxsim.VERDICTS[v]: int(counts[v]) for v in range(6)}, cmp.verdicts)
        np.testing.assert_array_equal(cmp.difference[:, :4],
                                      np.abs(cmp.nlp_states - cmp.shadow_states))
        np.testing.assert_array_equal(cmp.final("nlp")[:4], cmp.nlp_states[-1])
        np.testing.assert_array_equal(cmp.final("lemke")[:4], cmp.lemke_states[-1])
        self.assertTrue(cmp.contract_passed)
        self.assertTrue(all(passed for _, _, passed, _ in cmp.checks))
        self.assertEqual(cmp.nlp_failed_steps, 0)

    def test_callback_exception_stops_the_run(self):
        sc = relaxsim.Scenario(POINT2D)
        seen = []

        def boom(k, *rest):
            seen.append(k)
            if k == 3:
                raise KeyboardInterrupt("stop at %d" % k)

        with self.assertRaises(KeyboardInterrupt):
            relaxsim.compare(sc, on_step=boom)
        self.assertEqual(seen, [0, 1, 2, 3])  # stopped there, not after 1200 steps

    def test_ctrl_c_with_on_step(self):
        # SIGINT in the library's step: KeyboardInterrupt, not relaxsim.Error "stopped by the
        # caller" after ctypes's "Exception ignored" (it came at the callback's first line)
        got = interrupted_compare(self, "on_step")
        self.assertGreaterEqual(got["at_signal"], 0)
        self.assertLessEqual(got["last"] - got["at_signal"], 1)  # at most one more step
        self.assertLess(got["last"], 10**8 - 1)

    def test_ctrl_c_without_on_step(self):
        # KeyboardInterrupt within a step, not after the whole comparison (it was lost)
        interrupted_compare(self, "quiet")

    def test_sigint_handler_is_restored(self):
        before = signal.getsignal(signal.SIGINT)
        relaxsim.compare(relaxsim.Scenario(POINT2D, set={"run.steps": 5}))
        self.assertIs(signal.getsignal(signal.SIGINT), before)


class LcpAndModelsTest(unittest.TestCase):
    def test_lcp_certificate(self):
        rng = np.random.default_rng(7)
        A = rng.standard_normal((6, 6))
        M = A @ A.T + 0.1 * np.eye(6)  # positive definite: one solution
        q = rng.standard_normal(6)
        z, w, info = relaxsim.solve_lcp(M, q)
        self.assertEqual(info["status"], "solved")
        self.assertTrue(info["certified"])
        np.testing.assert_allclose(w, M @ z + q, atol=1e-12)
        self.assertGreaterEqual(z.min(), -1e-12)
        self.assertGreaterEqual(w.min(), -1e-12)
        self.assertLessEqual(abs(z @ w), 1e-12)
        with self.assertRaises(ValueError):
            relaxsim.solve_lcp(np.eye(2), [1.0, 2.0, 3.0])

    def test_models(self):
        ms = {m["name"]: m for m in relaxsim.models()}
        self.assertIn("bodies", ms)
        self.assertTrue(ms["bodies"]["from_scene"])
        lo_mu = ms["point2d_friction"]["params"]["mu"]
        self.assertLessEqual(lo_mu[1], lo_mu[0])
        self.assertEqual(ms["point2d_friction"]["variants"][0], "corrected")
        self.assertEqual(ms["point2d_friction"]["state"],
                         {"x_m": 0.0, "z_m": 1.0, "xd_mps": 1.0, "zd_mps": 0.0})
        self.assertEqual(ms["point2d_friction"]["forces"], ["fx_N", "fz_N"])
        self.assertTrue(ms["bodies"]["own_nlp"])


class StructsAndReasonsTest(unittest.TestCase):
    def test_struct_sizes_are_checked_at_import(self):
        # every struct the package lays out is the library's size (the settings were a bare
        # int where C takes a struct); one that differs is an ImportError naming it
        relaxsim._check_struct_sizes()  # as at import
        for name, cls in relaxsim._STRUCTS.items():
            self.assertEqual(relaxsim._struct_size(name.encode()), ctypes.sizeof(cls), name)

        class Short(ctypes.Structure):  # rs_sim_step_info without its size field
            _fields_ = [f for f in relaxsim._StepInfo._fields_ if f[0] != "size"]
        with self.assertRaisesRegex(ImportError, "struct rs_sim_step_info is %d bytes in the "
                                    "library.*, %d bytes in this package" % (
                                        ctypes.sizeof(relaxsim._StepInfo),
                                        ctypes.sizeof(Short))):
            relaxsim._check_struct_sizes({"rs_sim_step_info": Short})
        with self.assertRaisesRegex(ImportError, "struct rs_sim_nothing is unknown"):
            relaxsim._check_struct_sizes({"rs_sim_nothing": Short})

    def test_refusals_carry_the_library_reason(self):
        # a struct of another size is refused by the library, naming it (no step taken)
        sim = relaxsim.Simulation(relaxsim.Scenario(POINT2D), "lemke")
        info = relaxsim._StepInfo()
        self.assertEqual(info.size, ctypes.sizeof(relaxsim._StepInfo))
        info.size = 3
        with self.assertRaisesRegex(relaxsim.Error, "setting out of range: info->size = 3: this "
                                    "library's rs_sim_step_info is"):
            relaxsim._sim_step(sim._h, None, ctypes.byref(info))
        self.assertEqual(sim.steps_taken, 0)
        # a refused step says why from the step's own refusal (it took a second call)
        block = relaxsim.Simulation(
            relaxsim.Scenario(os.path.join(SCEN, "sliding_block_forward.ini")), "lemke")
        u = np.array([np.nan])
        with self.assertRaisesRegex(relaxsim.Error, "non-finite.*: input: .* = nan is not "
                                    "finite"):
            relaxsim._sim_step(block._h, u.ctypes.data_as(relaxsim._dbl_p),
                               ctypes.byref(relaxsim._StepInfo()))
        with self.assertRaisesRegex(relaxsim.Error, "input: sliding_block_forward needs u >= 0"):
            block.step([-1.0])
        self.assertEqual(block.steps_taken, 0)
        # a snapshot of another scenario: the library's reason
        with self.assertRaisesRegex(relaxsim.Error, "invalid argument: the snapshot was saved from "
                                    "a simulation of another scenario"):
            sim.restore(block.save())


if __name__ == "__main__":
    unittest.main()

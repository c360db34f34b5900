"""test_relaxsim.py: the Python binding (python/relaxsim) through the library, as ctest runs it
(PYTHONPATH=BUILD/python, RS_SOURCE_DIR the source tree). Each claim is recomputed from what the
binding returns: the point2d scenario's closed form (it stops at x = 0.60918411 m and rests with
fz = m g), a comparison's totals against its recorded steps, a restored snapshot's steps against
their first run, an LCP's certificate in numpy."""

import os
import unittest

import numpy as np

import relaxsim

SCEN = os.path.join(os.environ.get("RS_SOURCE_DIR", "."), "problems", "scenarios")
POINT2D = os.path.join(SCEN, "point2d_friction.ini")


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
                          ["start_previous", "start_contact_free", "ipopt_warm", "ipopt_cold",
                           "ipopt_homotopy"])

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


if __name__ == "__main__":
    unittest.main()

"""relaxsim from Python: scenarios, simulations, comparisons and LCPs.

A binding of relaxsim's C library (relaxsim/sim.h, relaxsim/lcp.h) with the standard library's
ctypes and numpy; no compiled extension.

    import relaxsim
    sc = relaxsim.Scenario("problems/scenarios/point2d_friction.ini", set={"model.mu": 0.2})
    sim = relaxsim.Simulation(sc, backend="lemke")
    run = sim.run(sc.steps)              # run.states: steps x nstate, run.forces, run.t
    cmp = relaxsim.compare(sc)           # cmp.verdicts, cmp.contract_passed, cmp.checks
    z, w, info = relaxsim.solve_lcp(M, q)

Errors of a call (a malformed file, a bad override, NaN) raise relaxsim.Error with the library's
message ("FILE:LINE: section.key: what is wrong"); a step a solver fails is a status in the
step's record (StepInfo.ok), never an exception.

The library: $RELAXSIM_LIBRARY if set, else the build tree's (a package configured by CMake in
BUILD/python: PYTHONPATH=BUILD/python), else the one installed next to this package
(PREFIX/LIBDIR/python3/dist-packages/relaxsim -> PREFIX/LIBDIR/librelaxsim.so.*).
"""

import ctypes
import glob
import os
from dataclasses import dataclass

import numpy as np

__all__ = ["Error", "Scenario", "Simulation", "StepInfo", "Trajectory", "Comparison", "compare",
           "models", "solve_lcp", "version", "VERDICTS"]

VERDICTS = ("agree", "relaxation_bias", "mode_mismatch", "nlp_failed", "lemke_failed",
            "approximation_bias")


def _find_library():
    path = os.environ.get("RELAXSIM_LIBRARY")
    if path:
        return path
    try:
        from ._library import LIBRARY  # written by CMake into the build tree's package
        return LIBRARY
    except ImportError:
        pass
    libdir = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                           "..", "..", ".."))
    found = sorted(glob.glob(os.path.join(libdir, "librelaxsim.so.*")))
    if not found:
        raise ImportError("relaxsim: the library was not found next to the package (%s); set "
                          "RELAXSIM_LIBRARY to librelaxsim.so" % libdir)
    return found[0]


_lib = ctypes.CDLL(_find_library())

_c_int, _c_double, _c_char_p, _c_void_p = ctypes.c_int, ctypes.c_double, ctypes.c_char_p, ctypes.c_void_p
_dbl_p = ctypes.POINTER(ctypes.c_double)


class _ErrorDetail(ctypes.Structure):
    _fields_ = [("message", ctypes.c_char * 512)]


class _StepInfo(ctypes.Structure):
    _fields_ = [("step", _c_int), ("ok", _c_int), ("status", _c_int),
                ("status_name", _c_char_p), ("path", _c_char_p), ("iterations", _c_int),
                ("fallback", _c_int), ("lcp_size", _c_int), ("primal", _c_double),
                ("complementarity", _c_double), ("time_s", _c_double)]


class _CompareStep(ctypes.Structure):
    _fields_ = [("step", _c_int), ("verdict", _c_int), ("input", _dbl_p),
                ("nlp_state", _dbl_p), ("nlp_forces", _dbl_p), ("shadow_state", _dbl_p),
                ("shadow_forces", _dbl_p), ("lemke_state", _dbl_p), ("lemke_forces", _dbl_p),
                ("difference", _dbl_p), ("nlp", _StepInfo), ("shadow", _StepInfo),
                ("lemke", _StepInfo)]


class _CompareInfo(ctypes.Structure):
    _fields_ = [("steps", _c_int), ("nlp_failed_steps", _c_int), ("lemke_failed_steps", _c_int),
                ("shadow_failed_steps", _c_int), ("fallback_steps", _c_int),
                ("verdicts", _c_int * 6), ("mode_agreement", _c_double), ("nchecks", _c_int),
                ("contract_passed", _c_int), ("wall_time_s", _c_double)]


class _Check(ctypes.Structure):
    _fields_ = [("text", _c_char_p), ("trajectory", _c_char_p), ("passed", _c_int),
                ("actual", _c_double)]


class _Param(ctypes.Structure):
    _fields_ = [("name", _c_char_p), ("value", _c_double), ("lo", _c_double),
                ("hi", _c_double), ("doc", _c_char_p)]


class _ModelInfo(ctypes.Structure):
    _fields_ = [("name", _c_char_p), ("summary", _c_char_p), ("source", _c_char_p),
                ("nparams", _c_int), ("nvariants", _c_int), ("needs_scene", _c_int),
                ("from_scene", _c_int)]


class _ScenarioInfo(ctypes.Structure):
    _fields_ = [("model", _c_char_p), ("variant", _c_char_p), ("nstate", _c_int),
                ("ninput", _c_int), ("nforce", _c_int), ("nparams", _c_int), ("steps", _c_int),
                ("dt", _c_double)]


class _Certificate(ctypes.Structure):
    _fields_ = [(name, _c_double) for name in (
        "min_z", "min_w", "max_complementarity", "natural_residual", "rel_min_z", "rel_min_w",
        "rel_max_complementarity", "rel_natural_residual")] + [("finite", _c_int),
                                                               ("passed", _c_int)]


class _LemkeInfo(ctypes.Structure):
    _fields_ = [("status", _c_int), ("pivots", _c_int), ("refined", _c_int),
                ("warm_started", _c_int), ("equilibrated", _c_int), ("covering_changed", _c_int),
                ("cert", _Certificate)]


_STEP_FN = ctypes.CFUNCTYPE(None, _c_void_p, ctypes.POINTER(_CompareStep))


def _declare(name, restype, *argtypes):
    f = getattr(_lib, name)
    f.restype = restype
    f.argtypes = list(argtypes)
    return f


_P = ctypes.POINTER
_void_pp = _P(_c_void_p)
_error_string = _declare("rs_error_string", _c_char_p, _c_int)
_version = _declare("rs_version", _c_char_p)
_sc_load = _declare("rs_sim_scenario_load", _c_int, _c_char_p, _P(_c_char_p), _c_int, _void_pp,
                    _P(_ErrorDetail))
_sc_load_text = _declare("rs_sim_scenario_load_text", _c_int, _c_char_p, _c_char_p, _c_char_p,
                         _P(_c_char_p), _c_int, _void_pp, _P(_ErrorDetail))
_sc_free = _declare("rs_sim_scenario_free", None, _c_void_p)
_sc_info = _declare("rs_sim_scenario_get_info", _c_int, _c_void_p, _P(_ScenarioInfo))
_sc_column = _declare("rs_sim_scenario_column", _c_char_p, _c_void_p, _c_int, _c_int)
_sc_initial = _declare("rs_sim_scenario_initial", _c_int, _c_void_p, _dbl_p)
_sc_input = _declare("rs_sim_scenario_input", _c_int, _c_void_p, _c_int, _dbl_p)
_sc_param = _declare("rs_sim_scenario_param", _c_int, _c_void_p, _c_int, _P(_Param))
_sim_create = _declare("rs_sim_create", _c_int, _c_void_p, _P(_c_int), _void_pp, _P(_ErrorDetail))
_sim_destroy = _declare("rs_sim_destroy", None, _c_void_p)
_sim_step = _declare("rs_sim_step", _c_int, _c_void_p, _dbl_p, _P(_StepInfo))
_sim_state = _declare("rs_sim_state", _c_int, _c_void_p, _dbl_p)
_sim_forces = _declare("rs_sim_forces", _c_int, _c_void_p, _dbl_p)
_sim_set_state = _declare("rs_sim_set_state", _c_int, _c_void_p, _dbl_p)
_sim_step_count = _declare("rs_sim_step_count", _c_int, _c_void_p)
_sim_time = _declare("rs_sim_time", _c_double, _c_void_p)
_sim_failed = _declare("rs_sim_failed_steps", _c_int, _c_void_p)
_sim_save = _declare("rs_sim_save", _c_int, _c_void_p, _void_pp)
_sim_restore = _declare("rs_sim_restore", _c_int, _c_void_p, _c_void_p)
_snap_free = _declare("rs_sim_snapshot_free", None, _c_void_p)
_compare = _declare("rs_sim_compare", _c_int, _c_void_p, _STEP_FN, _c_void_p, _void_pp,
                    _P(_ErrorDetail))
_cmp_info = _declare("rs_sim_comparison_get_info", _c_int, _c_void_p, _P(_CompareInfo))
_cmp_check = _declare("rs_sim_comparison_check", _c_int, _c_void_p, _c_int, _P(_Check))
_cmp_final = _declare("rs_sim_comparison_final", _c_int, _c_void_p, _c_int, _dbl_p)
_cmp_free = _declare("rs_sim_comparison_free", None, _c_void_p)
_model_count = _declare("rs_sim_model_count", _c_int)
_model_info = _declare("rs_sim_model_get_info", _c_int, _c_int, _P(_ModelInfo))
_model_param = _declare("rs_sim_model_param", _c_int, _c_int, _c_int, _P(_Param))
_model_variant = _declare("rs_sim_model_variant", _c_char_p, _c_int, _c_int)
_lemke_alloc = _declare("rs_lemke_solve_alloc", _c_int, _c_int, _dbl_p, _dbl_p, _dbl_p, _c_void_p,
                        _dbl_p, _dbl_p, _P(_LemkeInfo))
_lemke_status_name = _declare("rs_lemke_status_name", _c_char_p, _c_int)


class Error(Exception):
    """A call the library could not carry out: code is the rs_error, the message its detail."""

    def __init__(self, code, detail=""):
        self.code = code
        name = _error_string(code).decode()
        super().__init__("%s: %s" % (name, detail) if detail else name)


def _check(code, detail=None):
    if code != 0:
        raise Error(code, detail.message.decode(errors="replace") if detail else "")


def _s(b):
    return b.decode() if b is not None else None


def _ptr(a):
    return a.ctypes.data_as(_dbl_p) if a is not None else None


def _array(values, n, what):
    a = np.ascontiguousarray(values, dtype=np.float64).reshape(-1)
    if a.size != n:
        raise ValueError("%s: %d values expected, got %d" % (what, n, a.size))
    return a


def _overrides(set):
    if not set:
        return None, 0
    items = [("%s=%s" % (k, repr(v) if isinstance(v, float) else v)).encode()
             for k, v in (set.items() if isinstance(set, dict) else [s.split("=", 1) for s in set])]
    return (_c_char_p * len(items))(*items), len(items)


def version():
    """The version of the library loaded, e.g. "0.2.0"."""
    return _version().decode()


@dataclass
class StepInfo:
    """The record of one step (relaxsim/sim.h: rs_sim_step_info)."""
    step: int
    ok: bool
    status: str
    path: str
    iterations: int
    fallback: bool
    lcp_size: int
    primal: float
    complementarity: float
    time_s: float


def _step_info(c):
    return StepInfo(c.step, bool(c.ok), _s(c.status_name), _s(c.path), c.iterations,
                    bool(c.fallback), c.lcp_size, c.primal, c.complementarity, c.time_s)


class Scenario:
    """A loaded, validated scenario: Scenario(path, set={"model.mu": 0.3}) or
    Scenario.from_text(text, scene_text=None, name="scenario.ini", set=None)."""

    def __init__(self, path, set=None):
        self._load(lambda h, d, o, n: _sc_load(os.fsencode(path), o, n, h, d), set)

    @classmethod
    def from_text(cls, text, scene_text=None, name="scenario.ini", set=None):
        self = cls.__new__(cls)
        self._load(lambda h, d, o, n: _sc_load_text(
            name.encode(), text.encode(), scene_text.encode() if scene_text else None, o, n, h,
            d), set)
        return self

    def _load(self, call, set):
        self._h = None
        arr, n = _overrides(set)
        h, d = _c_void_p(), _ErrorDetail()
        _check(call(ctypes.byref(h), ctypes.byref(d), arr, n), d)
        self._h = h
        info = _ScenarioInfo()
        _check(_sc_info(h, ctypes.byref(info)))
        self.model, self.variant = _s(info.model), _s(info.variant)
        self.steps, self.dt = info.steps, info.dt
        self.state_names = self._columns(0, info.nstate)
        self.input_names = self._columns(1, info.ninput)
        self.force_names = self._columns(2, info.nforce)
        self.params = {}
        for i in range(info.nparams):
            p = _Param()
            _check(_sc_param(h, i, ctypes.byref(p)))
            self.params[_s(p.name)] = p.value

    def _columns(self, kind, n):
        return [_s(_sc_column(self._h, kind, i)) for i in range(n)]

    @property
    def initial_state(self):
        x = np.empty(len(self.state_names))
        _check(_sc_initial(self._h, _ptr(x)))
        return x

    def input(self, k):
        """The scenario's input for step k (0-based)."""
        u = np.empty(max(len(self.input_names), 1))
        _check(_sc_input(self._h, k, _ptr(u)))
        return u[:len(self.input_names)]

    def __del__(self):
        if getattr(self, "_h", None):
            _sc_free(self._h)
            self._h = None

    def __repr__(self):
        return "Scenario(model=%r, variant=%r, steps=%d, dt=%g)" % (self.model, self.variant,
                                                                    self.steps, self.dt)


@dataclass
class Trajectory:
    """Steps taken by Simulation.run: t (the time after each step), states, forces (one row per
    step), ok (each step solved and certified), and the last step's record."""
    t: np.ndarray
    states: np.ndarray
    forces: np.ndarray
    ok: np.ndarray
    last: StepInfo


class Simulation:
    """Steps one scenario by one backend, "nlp" (IPOPT) or "lemke", from its initial state."""

    def __init__(self, scenario, backend="nlp"):
        if backend not in ("nlp", "lemke"):
            raise ValueError("backend: 'nlp' or 'lemke', got %r" % (backend,))
        self._h = None
        self.scenario = scenario  # kept alive as long as the simulation
        self.backend = backend
        settings = _c_int(0 if backend == "nlp" else 1)
        h, d = _c_void_p(), _ErrorDetail()
        _check(_sim_create(scenario._h, ctypes.byref(settings), ctypes.byref(h), ctypes.byref(d)), d)
        self._h = h
        self._nx, self._nu = len(scenario.state_names), len(scenario.input_names)
        self._nf = len(scenario.force_names)

    def step(self, u=None):
        """One step with input u (ninput values; None: the scenario's): its StepInfo."""
        a = None if u is None else _array(u, self._nu, "input")
        info = _StepInfo()
        _check(_sim_step(self._h, _ptr(a), ctypes.byref(info)))
        return _step_info(info)

    def run(self, n, inputs=None, stop_on_failure=True):
        """Up to n steps (inputs: n x ninput, None: the scenario's): a Trajectory of the steps
        taken (fewer than n when a step failed and stop_on_failure)."""
        a = None if inputs is None else _array(inputs, n * self._nu, "inputs").reshape(n, -1)
        states, forces = np.empty((n, self._nx)), np.empty((n, self._nf))
        ok = np.zeros(n, dtype=bool)
        k0, info, last = self.steps_taken, _StepInfo(), None
        taken = 0
        for k in range(n):
            u = None if a is None else _ptr(a[k])
            _check(_sim_step(self._h, u, ctypes.byref(info)))
            _check(_sim_state(self._h, _ptr(states[k])))
            if self._nf:
                _check(_sim_forces(self._h, _ptr(forces[k])))
            ok[k], taken = bool(info.ok), k + 1
            if stop_on_failure and not info.ok:
                break
        if taken:
            last = _step_info(info)
        t = (k0 + 1 + np.arange(taken)) * self.scenario.dt
        return Trajectory(t, states[:taken], forces[:taken], ok[:taken], last)

    @property
    def state(self):
        x = np.empty(self._nx)
        _check(_sim_state(self._h, _ptr(x)))
        return x

    @state.setter
    def state(self, x):
        _check(_sim_set_state(self._h, _ptr(_array(x, self._nx, "state"))))

    @property
    def forces(self):
        f = np.empty(max(self._nf, 1))
        _check(_sim_forces(self._h, _ptr(f)))
        return f[:self._nf]

    @property
    def steps_taken(self):
        return _sim_step_count(self._h)

    @property
    def time(self):
        return _sim_time(self._h)

    @property
    def failed_steps(self):
        return _sim_failed(self._h)

    def save(self):
        """A snapshot of the state, step counter and warm start, for restore()."""
        h = _c_void_p()
        _check(_sim_save(self._h, ctypes.byref(h)))
        return _Snapshot(h)

    def restore(self, snapshot):
        _check(_sim_restore(self._h, snapshot._h))

    def __del__(self):
        if getattr(self, "_h", None):
            _sim_destroy(self._h)
            self._h = None


class _Snapshot:
    def __init__(self, h):
        self._h = h

    def __del__(self):
        if getattr(self, "_h", None):
            _snap_free(self._h)
            self._h = None


class Comparison:
    """A finished comparison: totals (steps, nlp_failed_steps, ...), verdicts (name -> steps),
    contract_passed, checks (text, trajectory, passed, actual), final(trajectory), and with
    record=True the per-step arrays: verdict (indices into VERDICTS), nlp_states,
    shadow_states, lemke_states, nlp_forces, lemke_forces, difference."""

    def __init__(self, h, records, ncol):
        info = _CompareInfo()
        _check(_cmp_info(h, ctypes.byref(info)))
        self._h = h
        self.steps = info.steps
        self.nlp_failed_steps = info.nlp_failed_steps
        self.lemke_failed_steps = info.lemke_failed_steps
        self.shadow_failed_steps = info.shadow_failed_steps
        self.fallback_steps = info.fallback_steps
        self.verdicts = {VERDICTS[v]: info.verdicts[v] for v in range(6)}
        self.mode_agreement = info.mode_agreement
        self.contract_passed = bool(info.contract_passed)
        self.wall_time_s = info.wall_time_s
        self.checks = []
        for i in range(info.nchecks):
            c = _Check()
            _check(_cmp_check(h, i, ctypes.byref(c)))
            self.checks.append((_s(c.text), _s(c.trajectory), bool(c.passed), c.actual))
        self._ncol = ncol
        for name, value in (records or {}).items():
            setattr(self, name, np.array(value))

    def final(self, trajectory="nlp"):
        """The final state and forces of the "nlp" or "lemke" trajectory (one array)."""
        if trajectory not in ("nlp", "lemke"):
            raise ValueError("trajectory: 'nlp' or 'lemke', got %r" % (trajectory,))
        cols = np.empty(self._ncol)
        _check(_cmp_final(self._h, 0 if trajectory == "nlp" else 1, _ptr(cols)))
        return cols

    def __del__(self):
        if getattr(self, "_h", None):
            _cmp_free(self._h)
            self._h = None


def compare(scenario, on_step=None, record=False):
    """Run the scenario's comparison (as `relaxsim compare`). on_step(k, verdict, nlp_state,
    shadow_state, lemke_state) is called after every step (numpy copies); record=True keeps the
    per-step arrays on the result. Returns a Comparison."""
    nx, nf = len(scenario.state_names), len(scenario.force_names)
    keep = {name: [] for name in ("verdict", "nlp_states", "shadow_states", "lemke_states",
                                  "nlp_forces", "lemke_forces", "difference")} if record else None
    raised = []

    def callback(ctx, p):
        if raised:
            return
        try:
            st = p.contents
            nlp = np.ctypeslib.as_array(st.nlp_state, (nx,)).copy()
            shadow = np.ctypeslib.as_array(st.shadow_state, (nx,)).copy()
            lemke = np.ctypeslib.as_array(st.lemke_state, (nx,)).copy()
            if keep is not None:
                keep["verdict"].append(st.verdict)
                keep["nlp_states"].append(nlp)
                keep["shadow_states"].append(shadow)
                keep["lemke_states"].append(lemke)
                keep["nlp_forces"].append(np.ctypeslib.as_array(st.nlp_forces, (nf,)).copy()
                                          if nf else np.empty(0))
                keep["lemke_forces"].append(np.ctypeslib.as_array(st.lemke_forces, (nf,)).copy()
                                            if nf else np.empty(0))
                keep["difference"].append(
                    np.ctypeslib.as_array(st.difference, (nx + nf,)).copy())
            if on_step is not None:
                on_step(st.step, VERDICTS[st.verdict], nlp, shadow, lemke)
        except BaseException as e:  # re-raised after the run: never across the C frames
            raised.append(e)

    fn = _STEP_FN(callback) if (on_step is not None or record) else _STEP_FN()
    h, d = _c_void_p(), _ErrorDetail()
    _check(_compare(scenario._h, fn, None, ctypes.byref(h), ctypes.byref(d)), d)
    result = Comparison(h, keep, nx + nf)
    if raised:
        raise raised[0]
    return result


def models():
    """Every model: a list of dicts (name, summary, source, variants, needs_scene, from_scene,
    params: name -> (default, lo, hi, doc))."""
    out = []
    for i in range(_model_count()):
        m = _ModelInfo()
        _check(_model_info(i, ctypes.byref(m)))
        params = {}
        for j in range(m.nparams):
            p = _Param()
            _check(_model_param(i, j, ctypes.byref(p)))
            params[_s(p.name)] = (p.value, p.lo, p.hi, _s(p.doc))
        out.append({"name": _s(m.name), "summary": _s(m.summary), "source": _s(m.source),
                    "variants": [_s(_model_variant(i, v)) for v in range(m.nvariants)],
                    "needs_scene": bool(m.needs_scene), "from_scene": bool(m.from_scene),
                    "params": params})
    return out


def solve_lcp(M, q):
    """Solve LCP(M, q), w = M z + q >= 0, z >= 0, z . w = 0, by Lemke's method. Returns z, w and
    a dict (status, pivots, certificate passed, its relative residuals)."""
    M = np.asarray(M, dtype=np.float64)
    q = np.ascontiguousarray(q, dtype=np.float64).reshape(-1)
    n = q.size
    if M.shape != (n, n):
        raise ValueError("M must be %d x %d, got %s" % (n, n, M.shape))
    Mc = np.asfortranarray(M).reshape(-1, order="F").copy()  # column-major
    z, w, info = np.empty(n), np.empty(n), _LemkeInfo()
    _check(_lemke_alloc(n, _ptr(Mc), _ptr(q), None, None, _ptr(z), _ptr(w), ctypes.byref(info)))
    c = info.cert
    return z, w, {"status": _s(_lemke_status_name(info.status)), "pivots": info.pivots,
                  "certified": bool(c.passed), "rel_natural_residual": c.rel_natural_residual,
                  "rel_max_complementarity": c.rel_max_complementarity,
                  "min_z": c.min_z, "min_w": c.min_w}


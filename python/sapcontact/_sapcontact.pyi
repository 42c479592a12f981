# Type stubs of the compiled part of the sapcontact package (python/*.cc),
# written by hand; tests/python/test_package.py checks that every public name
# and every keyword argument of the module is here (and runs mypy's stubtest
# when python3-mypy is installed). Units: SI; per-contact vectors are rows
# (n, t1, t2) of (num_contacts, 3) arrays, n from body A into body B.
import os
from typing import Any, ClassVar, Dict, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np
import numpy.typing as npt

__version__: str

_ArrayLike = npt.ArrayLike
_FloatArray = npt.NDArray[np.float64]
_PathLike = Union[str, os.PathLike[str]]
_Overrides = Optional[Union[Mapping[str, Any], Sequence[str]]]

# --- The SAP solver ----------------------------------------------------------

class SapSolverParameters:
    """Settings of the SAP Newton solver, with the C++ defaults."""

    near_rigid_threshold: float  # beta [-] (1)
    friction_regularization: float  # sigma [-] (1e-3)
    soft_norm_tolerance: float  # epsilon_s [N*s] (1e-8)
    constraint_near_rigid_threshold: float  # beta_c [-] (0.1)
    supported_delassus_estimate: bool  # (True)
    abs_tolerance: float  # (1e-14)
    rel_tolerance: float  # (1e-6)
    cost_stall_tolerance: float  # (1e-14)
    stall_residual_tolerance: float  # (1e-3)
    max_iterations: int  # (100)
    line_search: str  # 'exact' | 'backtracking'
    max_step: float  # (1.5)
    max_line_search_iterations: int  # (100)
    line_search_slope_ratio: float  # (0.9)
    factor_reuse_rate: float  # (0.0)
    armijo_c: float  # (1e-4)
    backtracking_rho: float  # (0.8)
    linear_solver: str  # 'auto' | 'dense' | 'block_sparse' | 'cholmod'
    dense_size_threshold: int  # (30)
    cholmod_factor: str  # 'auto' | 'supernodal' | 'simplicial'
    islands: bool  # (True)
    warm_start_lowest_cost: bool  # (True)
    warm_start_at_rest: bool  # (True)
    stiction_prediction: bool  # (True)
    stiction_prediction_min_step: float  # (0.05)
    exclude_separated_contacts: bool  # (True)
    min_reciprocal_condition: float  # (1e-12)
    threads: int  # (1)
    def __init__(self, **kwargs: Any) -> None: ...

class SapProblem:
    """One time step's contact problem: trees, contacts, constraints."""

    time_step: float  # dt [s]
    def __init__(self, time_step: float = 1e-3) -> None: ...
    def add_tree(self, A: _ArrayLike, v_star: _ArrayLike, name: str = "") -> int:
        """A (n, n) SPD [kg, kg m^2], v_star (n,) [m/s, rad/s]; the index."""
    def add_contact(
        self,
        tree: int,
        J: _ArrayLike,
        phi0: float = 0.0,
        stiffness: float = 1e6,
        dissipation_time_scale: float = 0.01,
        friction: float = 0.5,
        second: Optional[Tuple[int, _ArrayLike]] = None,
        model: str = "sap",
        hunt_crossley_dissipation: float = 50.0,
        stiction_tolerance: float = 1e-4,
        bias_velocity: Optional[_ArrayLike] = None,
        normal_velocity0: float = 0.0,
        name: str = "",
    ) -> int:
        """J (3, n_tree) rows (n, t1, t2); phi0 [m]; k [N/m]; tau_d [s]."""
    def add_limit(
        self,
        tree: int,
        J: _ArrayLike,
        g0: _ArrayLike,
        stiffness: float = ...,
        dissipation_time_scale: float = -1.0,
        second: Optional[Tuple[int, _ArrayLike]] = None,
        name: str = "",
    ) -> int: ...
    def add_holonomic(
        self,
        tree: int,
        J: _ArrayLike,
        g0: _ArrayLike,
        stiffness: float = ...,
        relaxation_time: float = 0.0,
        impulse_lower: Optional[_ArrayLike] = None,
        impulse_upper: Optional[_ArrayLike] = None,
        second: Optional[Tuple[int, _ArrayLike]] = None,
        name: str = "",
    ) -> int: ...
    def add_actuation(
        self,
        tree: int,
        J: _ArrayLike,
        position: _ArrayLike,
        target: _ArrayLike,
        kp: _ArrayLike,
        kd: _ArrayLike,
        target_velocity: Optional[_ArrayLike] = None,
        feedforward: Optional[_ArrayLike] = None,
        effort_limit: Optional[_ArrayLike] = None,
        name: str = "",
    ) -> int: ...
    @property
    def num_trees(self) -> int: ...
    @property
    def num_contacts(self) -> int: ...
    @property
    def num_velocities(self) -> int: ...
    @property
    def tree_offsets(self) -> List[int]: ...
    def tree(self, t: int) -> Tuple[_FloatArray, _FloatArray]: ...
    def validate(self) -> None: ...
    def copy(self) -> SapProblem: ...

class SapSolverStatus:
    """A pybind11 enum: compare with SapSolverStatus.<member>; .name is the text."""

    converged: ClassVar[SapSolverStatus]
    max_iterations: ClassVar[SapSolverStatus]
    stalled: ClassVar[SapSolverStatus]
    ill_conditioned: ClassVar[SapSolverStatus]
    factorization_failed: ClassVar[SapSolverStatus]
    __members__: ClassVar[Dict[str, SapSolverStatus]]
    def __init__(self, value: int) -> None: ...
    def __eq__(self, other: object) -> bool: ...
    def __ne__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...
    def __int__(self) -> int: ...
    def __index__(self) -> int: ...
    @property
    def value(self) -> int: ...
    @property
    def name(self) -> str: ...

class SapIslandStatistics:
    @property
    def trees(self) -> int: ...
    @property
    def velocities(self) -> int: ...
    @property
    def contacts(self) -> int: ...
    @property
    def newton_iterations(self) -> int: ...
    @property
    def line_search_iterations(self) -> int: ...
    @property
    def predicted_iterations(self) -> int: ...
    @property
    def rejected_predictions(self) -> int: ...
    @property
    def dense(self) -> bool: ...
    @property
    def start_candidate(self) -> int: ...
    @property
    def final_scaled_residual(self) -> float: ...
    @property
    def final_cost(self) -> float: ...  # [J]

class SapSolverStatistics:
    @property
    def newton_iterations(self) -> int: ...
    @property
    def island_newton_iterations(self) -> int: ...
    @property
    def factorizations(self) -> int: ...
    @property
    def islands(self) -> int: ...
    @property
    def island_statistics(self) -> List[SapIslandStatistics]: ...
    @property
    def predicted_iterations(self) -> int: ...
    @property
    def largest_island_trees(self) -> int: ...
    @property
    def largest_island_velocities(self) -> int: ...
    @property
    def penetrating_contacts(self) -> int: ...
    @property
    def speculative_contacts(self) -> int: ...
    @property
    def excluded_contacts(self) -> int: ...
    @property
    def reincluded_contacts(self) -> int: ...
    @property
    def low_rank_updates(self) -> int: ...
    @property
    def predicted_contacts(self) -> int: ...
    @property
    def rejected_predictions(self) -> int: ...
    @property
    def line_search_iterations(self) -> int: ...
    @property
    def cost(self) -> List[float]: ...  # [J], before each Newton round
    @property
    def alpha(self) -> List[float]: ...
    @property
    def scaled_residual(self) -> List[float]: ...
    @property
    def line_search_iterations_per_newton(self) -> List[int]: ...
    @property
    def final_scaled_residual(self) -> float: ...
    @property
    def final_cost(self) -> float: ...  # [J]
    @property
    def reciprocal_condition(self) -> float: ...
    @property
    def symbolic_analyses(self) -> int: ...
    @property
    def participating_trees(self) -> int: ...
    @property
    def participating_velocities(self) -> int: ...
    @property
    def patches(self) -> int: ...
    @property
    def time_model(self) -> float: ...  # [s]
    @property
    def time_assembly(self) -> float: ...  # [s]
    @property
    def time_factorization(self) -> float: ...  # [s]
    @property
    def time_line_search(self) -> float: ...  # [s]
    @property
    def time_other(self) -> float: ...  # [s]
    @property
    def time_total(self) -> float: ...  # [s]
    def as_dict(self) -> Dict[str, Any]: ...

class SapResults:
    @property
    def status(self) -> SapSolverStatus: ...
    @property
    def converged(self) -> bool: ...
    @property
    def message(self) -> str: ...
    @property
    def v(self) -> _FloatArray: ...  # (nv,) [m/s, rad/s]
    @property
    def gamma(self) -> _FloatArray: ...  # (nc, 3) [N*s]
    @property
    def v_c(self) -> _FloatArray: ...  # (nc, 3) [m/s]
    @property
    def generalized_impulse(self) -> _FloatArray: ...  # (nv,) J' gamma
    @property
    def constraint_velocities(self) -> _FloatArray: ...
    @property
    def constraint_impulses(self) -> _FloatArray: ...
    @property
    def w(self) -> _FloatArray: ...  # (nc,) [1/kg]
    @property
    def R_n(self) -> _FloatArray: ...  # (nc,) [(m/s)/(N*s)]
    @property
    def R_t(self) -> _FloatArray: ...  # (nc,) [(m/s)/(N*s)]
    @property
    def effective_stiffness(self) -> _FloatArray: ...  # (nc,) [N/m]
    @property
    def statistics(self) -> SapSolverStatistics: ...

class SapSolver:
    def __init__(
        self, parameters: Optional[SapSolverParameters] = None, **kwargs: Any
    ) -> None: ...
    @property
    def parameters(self) -> SapSolverParameters: ...
    def solve(
        self, problem: SapProblem, v_guess: Optional[_ArrayLike] = None
    ) -> SapResults: ...
    def derivatives(
        self, problem: SapProblem, results: SapResults
    ) -> Dict[str, Any]: ...  # dv_dvstar, dv_dphi0, ..., region, boundary_distance
    def vjp(
        self,
        problem: SapProblem,
        results: SapResults,
        dL_dv: Optional[_ArrayLike] = None,
        dL_dgamma: Optional[_ArrayLike] = None,
    ) -> Dict[str, Any]: ...  # dL_dvstar, dL_dphi0, ..., dL_dtime_step
    @property
    def total_symbolic_analyses(self) -> int: ...

class InverseDynamics:
    @property
    def v_c(self) -> _FloatArray: ...  # (nc, 3) [m/s]
    @property
    def gamma(self) -> _FloatArray: ...  # (nc, 3) [N*s]
    @property
    def constraint_velocities(self) -> _FloatArray: ...
    @property
    def constraint_impulses(self) -> _FloatArray: ...
    @property
    def generalized_impulse(self) -> _FloatArray: ...  # (nv,)

def calc_inverse_dynamics(
    problem: SapProblem,
    v: _ArrayLike,
    parameters: Optional[SapSolverParameters] = None,
) -> InverseDynamics: ...

CalcInverseDynamics = calc_inverse_dynamics

# --- The rigid-contact QP ----------------------------------------------------

class RigidQpStatus:
    """A pybind11 enum: compare with RigidQpStatus.<member>; .name is the text."""

    solved: ClassVar[RigidQpStatus]
    solved_reduced_accuracy: ClassVar[RigidQpStatus]
    max_iterations: ClassVar[RigidQpStatus]
    infeasible: ClassVar[RigidQpStatus]
    numerical_error: ClassVar[RigidQpStatus]
    __members__: ClassVar[Dict[str, RigidQpStatus]]
    def __init__(self, value: int) -> None: ...
    def __eq__(self, other: object) -> bool: ...
    def __ne__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...
    def __int__(self) -> int: ...
    def __index__(self) -> int: ...
    @property
    def value(self) -> int: ...
    @property
    def name(self) -> str: ...

class RigidQpSolverOptions:
    max_iterations: int
    feasibility_tolerance: float
    gap_tolerance: float
    max_polish_iterations: int
    reduced_tolerance: float
    linear_solver: str  # 'auto' | 'dense' | 'sparse'
    sparse_min_variables: int
    sparse_max_density: float
    def __init__(self, **kwargs: Any) -> None: ...

class RigidQpResults:
    @property
    def status(self) -> RigidQpStatus: ...
    @property
    def solved(self) -> bool: ...
    @property
    def reason(self) -> str: ...
    @property
    def impulses(self) -> _FloatArray: ...  # (nc, 3) [N*s]
    @property
    def constraint_velocities(self) -> _FloatArray: ...  # (nc, 3) [m/s]
    @property
    def velocities(self) -> _FloatArray: ...  # (nv,)
    @property
    def unbounded_direction(self) -> _FloatArray: ...
    @property
    def objective(self) -> float: ...
    @property
    def iterations(self) -> int: ...
    @property
    def primal_residual(self) -> float: ...
    @property
    def dual_residual(self) -> float: ...
    @property
    def relative_gap(self) -> float: ...
    @property
    def relative_complementarity(self) -> float: ...
    @property
    def used_sparse(self) -> bool: ...

class RigidQpSolver:
    def __init__(
        self, options: Optional[RigidQpSolverOptions] = None, **kwargs: Any
    ) -> None: ...
    def solve(self, problem: SapProblem) -> RigidQpResults: ...

# --- FCLib -------------------------------------------------------------------

class FclibProblem:
    @property
    def path(self) -> str: ...
    @property
    def kind(self) -> str: ...  # 'local' | 'global'
    @property
    def num_contacts(self) -> int: ...
    @property
    def title(self) -> str: ...
    @property
    def description(self) -> str: ...
    @property
    def mu(self) -> _FloatArray: ...
    @property
    def q(self) -> Optional[_FloatArray]: ...
    @property
    def f(self) -> Optional[_FloatArray]: ...
    @property
    def w(self) -> Optional[_FloatArray]: ...
    @property
    def solution(self) -> Optional[Dict[str, _FloatArray]]: ...
    def dense(self, name: str) -> _FloatArray: ...
    def csc(
        self, name: str
    ) -> Tuple[_FloatArray, npt.NDArray[np.int32], npt.NDArray[np.int32],
               Tuple[int, int]]: ...

class FclibResults:
    @property
    def solver(self) -> str: ...
    @property
    def status(self) -> str: ...
    @property
    def success(self) -> bool: ...
    @property
    def message(self) -> str: ...
    @property
    def contacts(self) -> int: ...
    @property
    def iterations(self) -> int: ...
    @property
    def refinement_iterations(self) -> int: ...
    @property
    def solve_time_s(self) -> float: ...
    @property
    def r(self) -> _FloatArray: ...
    @property
    def v(self) -> _FloatArray: ...
    @property
    def u(self) -> _FloatArray: ...
    @property
    def objective(self) -> float: ...
    @property
    def convex_residual(self) -> float: ...
    @property
    def coulomb_residual(self) -> float: ...

def read_fclib(path: _PathLike) -> FclibProblem: ...
def solve_fclib(
    problem: Union[FclibProblem, _PathLike],
    solver: str = "rigid",
    refine: bool = True,
    sap_parameters: Optional[
        Union[SapSolverParameters, Mapping[str, Any]]
    ] = None,
    continuation: bool = True,
) -> FclibResults: ...

# --- The simulator -----------------------------------------------------------

class SimulationError(RuntimeError): ...

class RunResult:
    @property
    def times(self) -> _FloatArray: ...  # (nf,) [s]
    @property
    def body_names(self) -> List[str]: ...
    @property
    def positions(self) -> _FloatArray: ...  # (nf, nb, 3) [m]
    @property
    def quaternions(self) -> _FloatArray: ...  # (nf, nb, 4) (w, x, y, z)
    @property
    def velocities(self) -> _FloatArray: ...  # (nf, nb, 3) [m/s]
    @property
    def angular_velocities(self) -> _FloatArray: ...  # (nf, nb, 3) [rad/s]
    @property
    def robots(self) -> Dict[str, Dict[str, Any]]: ...
    @property
    def steps(self) -> Dict[str, npt.NDArray[Any]]: ...
    @property
    def summary(self) -> Dict[str, Any]: ...
    @property
    def output_dir(self) -> Optional[str]: ...
    def keys(self) -> List[str]: ...
    def __getitem__(self, key: str) -> Any: ...

def run_scene(
    path: _PathLike,
    overrides: _Overrides = None,
    duration: Optional[float] = None,
    output_dir: Optional[_PathLike] = None,
    write_contacts: bool = False,
    write_steps: bool = False,
) -> RunResult: ...

class Simulation:
    def __init__(self, path: _PathLike, overrides: _Overrides = None) -> None: ...
    def step(self, n: int = 1) -> Dict[str, Any]: ...
    @property
    def time(self) -> float: ...  # [s]
    @property
    def steps_taken(self) -> int: ...
    @property
    def time_step(self) -> float: ...  # [s]
    @property
    def duration(self) -> float: ...  # [s]
    @property
    def warnings(self) -> List[str]: ...
    @property
    def body_names(self) -> List[str]: ...
    @property
    def robot_names(self) -> List[str]: ...
    def state(self) -> Dict[str, Any]: ...
    def set_body_state(
        self,
        body: Union[str, int],
        position: Optional[_ArrayLike] = None,
        quaternion: Optional[_ArrayLike] = None,
        velocity: Optional[_ArrayLike] = None,
        angular_velocity: Optional[_ArrayLike] = None,
    ) -> None: ...
    def apply_force(
        self,
        target: Union[str, int],
        force: _ArrayLike,
        torque: Optional[_ArrayLike] = None,
        point: Optional[_ArrayLike] = None,
        frame: str = "world",
    ) -> None:
        """A body or 'robot/link'; force [N], torque [N m], point in the
        target's frame [m]; frame 'world' | 'body'; held until cleared."""
    def apply_generalized_forces(
        self, robot: Union[str, int], tau: _ArrayLike
    ) -> None: ...
    def set_joint_torques(
        self, robot: Union[str, int], torques: Mapping[str, float]
    ) -> None:
        """{joint: tau} [N m or N], held until replaced or cleared."""
    def set_controls(self, robot: Union[str, int], u: _ArrayLike) -> None:
        """Actuator controls (actuator_names order), held until replaced."""
    def controls(self, robot: Union[str, int]) -> _FloatArray: ...
    def actuator_names(self, robot: Union[str, int]) -> List[str]: ...
    def clear_forces(self) -> None: ...
    @property
    def sleeping(self) -> List[str]:
        """Bodies asleep now (solver.sleep), scene order."""
    def wake_up(self, body: Union[str, int]) -> None:
        """Wakes the body's island from the next step on."""
    def contacts(self) -> Dict[str, Any]:
        """body_a, body_b, point, normal, phi, impulse, impulse_world,
        slip_speed (arrays with one row per contact)."""
    def contact_wrench(self, name: str) -> Dict[str, _FloatArray]:
        """{'force' (3,) [N], 'torque' (3,) [N m]}, world frame."""
    def joint_names(self, robot: Union[str, int]) -> List[str]: ...
    def robot_state(self, robot: Union[str, int]) -> Dict[str, Any]:
        """joints, q, v, effort (joint order); base_q, base_v if floating."""
    def set_robot_state(
        self,
        robot: Union[str, int],
        q: Optional[Union[_ArrayLike, Mapping[str, float]]] = None,
        v: Optional[Union[_ArrayLike, Mapping[str, float]]] = None,
    ) -> None: ...
    def set_actuation_target(
        self,
        robot: Union[str, int],
        joint: str,
        position: float,
        velocity: float = 0.0,
        feedforward: float = 0.0,
    ) -> None:
        """PD targets of an actuated joint [rad, rad/s, N m], held until
        clear_actuation_targets."""
    def set_actuation_gains(
        self,
        robot: Union[str, int],
        kp: Union[float, _ArrayLike],
        kd: Union[float, _ArrayLike],
        joint: Optional[str] = None,
    ) -> None:
        """Implicit PD gains of one joint, or of every joint (numbers or arrays)."""
    def set_actuation_targets(
        self,
        robot: Union[str, int],
        q: _ArrayLike,
        v: Optional[_ArrayLike] = None,
    ) -> None:
        """PD targets of every actuated joint at once (joint_names order)."""
    def clear_actuation_targets(self, robot: Union[str, int]) -> None: ...
    def link_names(self, robot: Union[str, int]) -> List[str]: ...
    def link_pose(
        self, robot: Union[str, int], link: str
    ) -> Tuple[_FloatArray, _FloatArray]:
        """(position (3,) [m], quaternion (4,) (w, x, y, z)), world frame."""
    def link_velocity(
        self, robot: Union[str, int], link: str
    ) -> Tuple[_FloatArray, _FloatArray]:
        """(linear (3,) [m/s] of the link origin, angular (3,) [rad/s])."""
    def link_jacobian(
        self,
        robot: Union[str, int],
        link: str,
        point: Optional[_ArrayLike] = None,
    ) -> _FloatArray:
        """(6, nv): linear velocity of point (link frame), angular velocity."""
    def mass_matrix(self, robot: Union[str, int]) -> _FloatArray:
        """M(q), (nv, nv): the kinetic energy is v' M v / 2."""
    def bias_forces(self, robot: Union[str, int]) -> _FloatArray:
        """c(q, v), (nv,): M dv/dt + c = tau (Coriolis, centrifugal, gravity)."""
    def gravity_forces(self, robot: Union[str, int]) -> _FloatArray:
        """g(q) = c(q, 0), (nv,): the torques that hold the robot still."""
    def center_of_mass(self, robot: Union[str, int]) -> _FloatArray:
        """(3,) [m], world frame."""
    def center_of_mass_jacobian(self, robot: Union[str, int]) -> _FloatArray:
        """(3, nv): the centre of mass's velocity is J v."""
    def joint_limits(self, robot: Union[str, int]) -> Dict[str, Any]:
        """joints, lower, upper, velocity, effort (joint_names order)."""
    def link_inertias(self, robot: Union[str, int]) -> Dict[str, Any]:
        """links, mass (n,), com (n, 3) link frame, inertia (n, 3, 3)."""
    def last_problem(self) -> SapProblem: ...
    def last_results(self) -> SapResults: ...
    def step_derivatives(
        self,
        method: str = "implicit",
        position_step: float = 0.0,
        velocity_step: float = 0.0,
        force_step: float = 0.0,
        rel_tolerance: float = 1e-12,
        central_differences: bool = False,
    ) -> Dict[str, Any]: ...  # A (2nv, 2nv), B (2nv, nv), coordinates, region, differenced_contacts, ...
    def kinetic_energy(self) -> float: ...  # [J]
    def potential_energy(self) -> float: ...  # [J]

def _sweep(
    scene: _PathLike,
    vary: List[str],
    fixed: List[str],
    metrics: List[str],
    jobs: int,
    workers: str,
    window: float,
    journal: str,
    resume: bool,
) -> Tuple[List[str], List[List[str]]]: ...
def _sweep_points(
    scene: _PathLike,
    vary: List[str],
    fixed: List[str],
    metrics: List[str],
    window: float,
) -> List[Tuple[int, List[str], List[str]]]: ...
def _sweep_point(
    scene: _PathLike,
    fixed: List[str],
    metrics: List[str],
    window: float,
    index: int,
    values: List[str],
    overrides: List[str],
) -> str: ...
def _sweep_table(
    vary: List[str], metrics: List[str], rows: List[str]
) -> Tuple[List[str], List[List[str]]]: ...

class _SweepJournal:
    def __init__(
        self,
        path: _PathLike,
        scene: _PathLike,
        vary: List[str],
        fixed: List[str],
        metrics: List[str],
        window: float,
        resume: bool,
    ) -> None: ...
    def recovered(self) -> List[str]: ...
    def append(self, row: str) -> None: ...

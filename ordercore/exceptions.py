"""Errors raised by ordercore beyond the built-in ``ValueError``/``TypeError`` of bad input."""


class SolverError(RuntimeError):
    """The LP solver did not return a certified optimum (status named in the message)."""


class SolverTimeLimitError(SolverError):
    """The LP solver stopped at the user's ``time_limit`` before reaching the optimum."""


class SolverNumericalError(SolverError):
    """The solver reported an optimum that failed the duality-gap certificate twice."""


class NotPositiveDefiniteError(ArithmeticError):
    """A covariance matrix stayed non-positive-definite after the largest jitter (GP models), or an
    MPMR kernel matrix K + N rho I is not positive definite (not a Mercer kernel)."""


class ClusterUnavailableError(RuntimeError):
    """Trials were asked to run on a Dask cluster, but the dask extra is not installed or the
    scheduler could not be reached (ordercore/experiments/parallel.py)."""


class ModelFileError(ValueError):
    """A model file could not be read: not an ordercore model, damaged, or tampered with (the message
    names the file and what is wrong)."""


class MemoryBudgetError(ValueError):
    """A fit would need more memory than its limit allows; raised before any of the work (the message
    gives the estimate, the limit and what to change)."""


class OmegaWarning(UserWarning):
    """MPMR's bound Ω should not be believed: too few rows for the moments it rests on, or above the
    coverage its tube reaches on rows left out (``ordercore.mpmr.selection.omega_warning``)."""

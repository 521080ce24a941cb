"""Arrays that go together entry for entry, checked for one length in words (numpy said 'operands could not
be broadcast together with shapes (4,) (5,)', naming neither argument)."""

from __future__ import annotations


def one_length(where: str, entry: str, **arrays) -> None:
    """``ValueError`` unless the ``arrays`` (name=sequence, each of len(...) entries) have one length, naming
    the function ``where``, what an ``entry`` is and each argument's length: 'HeldOutChange.of: truth, svr and
    ssl must have one length (a value per held-out row); got truth 5, svr 4, ssl 5'."""
    lengths = {name: len(array) for name, array in arrays.items()}
    if len(set(lengths.values())) > 1:
        *first, last = lengths
        given = ", ".join(f"{name} {length}" for name, length in lengths.items())
        raise ValueError(f"{where}: {', '.join(first)} and {last} must have one length ({entry}); got {given}")

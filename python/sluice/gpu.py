"""GPU choices for ``@sluice.function(gpu=...)``, in Sieve's style (``sluice.gpu.T4(split=2)``).

Each constructor only records the request; the decorator validates it, so the rules
(split between 1 and 8) live in one place, ``sluice._schema``, shared with the inspector.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Gpu", "T4", "L4", "A100", "A10020GB", "V100", "MACHINE_TYPES", "DEFAULT_GPU"]


@dataclass(frozen=True)
class Gpu:
    """A GPU request: the machine type as the service names it, and how many replicas share one GPU."""

    machine_type: str
    split: int = 1

    def to_dict(self) -> dict[str, object]:
        return {"machine_type": self.machine_type, "split": self.split}


def T4(split: int = 1) -> Gpu:
    """An NVIDIA T4; ``split`` replicas share one GPU."""
    return Gpu("t4", split)


def L4(split: int = 1) -> Gpu:
    """An NVIDIA L4; ``split`` replicas share one GPU."""
    return Gpu("l4", split)


def A100(split: int = 1) -> Gpu:
    """An NVIDIA A100 (40 GB); ``split`` replicas share one GPU."""
    return Gpu("a100", split)


def A10020GB(split: int = 1) -> Gpu:
    """A 20 GB slice of an NVIDIA A100; ``split`` replicas share it."""
    return Gpu("a100-20gb", split)


def V100(split: int = 1) -> Gpu:
    """An NVIDIA V100; ``split`` replicas share one GPU."""
    return Gpu("v100", split)


# Constructor name -> machine type. The inspector reads this to map ``sluice.gpu.X(...)``
# without importing user code, so a new GPU needs only a function above and a line here.
MACHINE_TYPES: dict[str, str] = {
    "T4": "t4",
    "L4": "l4",
    "A100": "a100",
    "A10020GB": "a100-20gb",
    "V100": "v100",
}

# The GPU of Sieve's 2023 ``gpu=True`` given without a ``machine_type``: Sieve's default GPU, a T4.
DEFAULT_GPU = "t4"

"""gpu-matmul: torch on CUDA inside a Sluice replica (a bf16 n x n matmul, timed).

run.sh fills @TORCH_SITE@ and @PYVER@: the environment Sluice builds is a plain venv, so a .pth
file (written by run_commands) points it at the device interpreter's site-packages, where torch is.
"""

import sluice


@sluice.function(
    name="gpu-matmul",
    gpu=sluice.gpu.A100(),
    # addsitedir (not a bare path line) also runs the .pth files of that site-packages, as --system-site-packages would.
    run_commands=["echo 'import site; site.addsitedir(\"@TORCH_SITE@\")' > $VIRTUAL_ENV/lib/python@PYVER@/site-packages/device-torch.pth"],
    timeout=600,
)
class MatMul:
    def __setup__(self):
        import time

        started = time.perf_counter()
        import torch

        self.torch = torch
        self.cuda = torch.cuda.is_available()
        self.device = torch.device("cuda" if self.cuda else "cpu")
        if self.cuda:
            torch.zeros(1, device=self.device)  # creates the CUDA context here, not in the first job
        self.mats = {}
        self.setup_seconds = time.perf_counter() - started

    def __predict__(self, n: int = 8192, iters: int = 20) -> dict:
        import os
        import sys
        import time

        torch = self.torch
        if n not in self.mats:
            gen = torch.Generator(device=self.device).manual_seed(0)
            self.mats[n] = [torch.randn(n, n, device=self.device, dtype=torch.bfloat16, generator=gen) for _ in range(2)]
        a, b = self.mats[n]

        def sync():
            if self.cuda:
                torch.cuda.synchronize()

        for _ in range(3):
            a @ b
        sync()
        started = time.perf_counter()
        for _ in range(iters):
            a @ b
        sync()
        seconds = time.perf_counter() - started
        return {
            "cuda_available": self.cuda,
            "device_name": torch.cuda.get_device_name(0) if self.cuda else "cpu",
            "device_count": torch.cuda.device_count() if self.cuda else 0,
            "cuda_visible_devices": os.environ.get("CUDA_VISIBLE_DEVICES"),
            "torch": torch.__version__,
            "torch_cuda": torch.version.cuda,
            "torch_file": torch.__file__,
            "python": sys.executable,
            "pid": os.getpid(),
            "n": n,
            "iters": iters,
            "seconds": seconds,
            "tflops": 2 * n**3 * iters / seconds / 1e12,
            "setup_seconds": self.setup_seconds,
        }


if __name__ == "__main__":
    # Baseline outside Sluice: the same code on the device's python3 directly.
    import json
    import sys

    model = MatMul()
    model.__setup__()
    print(json.dumps(model.__predict__(*(int(v) for v in sys.argv[1:]))))

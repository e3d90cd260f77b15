"""The upstream test suites that exercise cbrt, and where `make pytorch` leaves their JUnit XML."""

from __future__ import annotations

from dataclasses import dataclass

from scripts.layout import REPO_ROOT

RESULTS_DIR = REPO_ROOT / "build" / "pytorch-results"


@dataclass(frozen=True)
class Suite:
    """An upstream test file (relative to test/) and the pytest -k expression that selects cbrt's tests."""

    path: str
    keyword: str = "cbrt"
    why: str = ""

    @property
    def junit_file(self) -> str:
        return self.path.removesuffix(".py").replace("/", "-") + ".xml"


SUITES: tuple[Suite, ...] = (
    Suite("test_ops.py", why="OpInfo: dtypes, out=, variants, strides, meta, compare with the ref"),
    Suite("test_ops_gradients.py", why="gradcheck and gradgradcheck"),
    Suite("test_ops_fwd_gradients.py", why="forward-mode AD"),
    Suite("test_unary_ufuncs.py", why="against np.cbrt, extremal values, non-contiguous"),
    Suite("test_meta.py", why="meta kernels"),
    Suite(
        "test_decomp.py", "cbrt or HasDecompTest", why="_refs.cbrt as aten.cbrt's decomposition; decomposition lists"
    ),
    Suite("functorch/test_vmap.py", why="vmap batch rule"),
    Suite("functorch/test_ops.py", why="vjp, jvp, vmap over grads"),
    Suite("test_overrides.py", why="__torch_function__ override"),
    Suite("test_torch.py", "cbrt or test_doc", why="docstrings of every public function"),
    Suite("inductor/test_torchinductor_opinfo.py", why="inductor lowering (C++ and Triton)"),
    Suite("inductor/test_cpu_repro.py", why="the C++ code inductor generates, and its bits against eager"),
    Suite("torch_np/test_ufuncs_basic.py", why="torch._numpy.cbrt: negative inputs and backward"),
)


@dataclass(frozen=True)
class NativeTest:
    """A C++ test binary of a PyTorch build (build/bin), once per CPU capability, and its gtest filter."""

    name: str
    gtest_filter: str
    capabilities: tuple[str, ...] = ("DEFAULT", "AVX2", "AVX512")
    why: str = ""

    def commands(self) -> list[str]:
        return [f"build/bin/{self.name}_{c} --gtest_filter='{self.gtest_filter}'" for c in self.capabilities]


NATIVE_TESTS: tuple[NativeTest, ...] = (
    NativeTest("vec_test_all_types", "*Fused*:*Cbrt*", why="Vectorized<T>: fused multiply-add, cbrt"),
)

"""The upstream test suites that exercise the patch set's operators, and where `make pytorch` leaves their JUnit XML.

No operator is named here: a suite's -k expression is the root names of the operators the sources add (every
`- func:` of the native_functions.yaml fragments, scripts/patchset/native_ops.py) in the commits of its stack up to
the one that runs it,
plus the suite's own extra terms; the C++ test suites are the typed test suites the fragments add to upstream's C++
test files.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from scripts.layout import REPO_ROOT
from scripts.patchset.fragments import FragmentError, Sources
from scripts.patchset.native_ops import NO_PYTHON_BINDING, native_ops, root_names

RESULTS_DIR = REPO_ROOT / "build" / "pytorch-results"


def results_dir_of(stack: str) -> Path:
    """Where `make pytorch STACK=<stack>` writes its JUnit XML: one folder per stack, since each is built alone."""
    return RESULTS_DIR / stack


OPINFOS = "torch/testing/_internal/common_methods_invocations.py"
# Where DTensor registers its operators' sharding strategies (torch/distributed/tensor/_ops/)
DTENSOR_STRATEGY_FILES = ("_conv_ops", "_embedding_ops", "_math_ops", "_matrix_ops", "_pointwise_ops", "_random_ops",
                          "_tensor_ops", "_view_ops")


def selecting_terms(terms: Iterable[str]) -> tuple[str, ...]:
    """The -k terms, each once, without those that hold another: pytest and unittest both match a term as a
    substring of the test's name, so `_op_backward` selects nothing that `op` does not."""
    unique = list(dict.fromkeys(terms))
    return tuple(term for term in unique if not any(other != term and other in term for other in unique))


@dataclass(frozen=True)
class Suite:
    """An upstream test file (relative to test/) and the pytest -k terms that select the operators' tests.

    `extra`: -k terms besides the operators' names: tests the file runs over every public operator at once
    (test_doc), whose names carry none. `sources`: the upstream files whose entries make the tests the keyword
    selects (the suite file itself, or the OpInfo database its tests are generated from): a commit whose Test Plan
    names the suite must add to one of them a line that the keyword selects (testplan.plan_lines_selecting_nothing).

    How the file names its tests of an operator, as pytorch/pytorch's stored copies of it near the pin read
    (scripts/upstream/test_names.py lists them): `opinfos`, the OpInfo collections its `@ops` tests iterate, as it
    writes them (names of common_methods_invocations, or comprehensions over them), each test named
    `<test>_<OpInfo.formatted_name>_<device>[_<dtype>]`; `overrides`, one test per function of
    torch.overrides.get_testing_overrides(), `test_<module>_<name>`; else the tests a commit adds to the file.
    """

    path: str
    extra: tuple[str, ...] = ()
    why: str = ""
    sources: tuple[str, ...] = (OPINFOS,)
    opinfos: tuple[str, ...] = ()
    overrides: bool = False
    by_name: bool = True  # whether the file names its tests of an operator after it (test_doc's file does not)

    @property
    def junit_file(self) -> str:
        return self.path.removesuffix(".py").replace("/", "-") + ".xml"

    def op_terms(self, op: str) -> tuple[str, ...]:
        """The -k terms that select the tests of the operator `op` (a root name) and no other operator's.

        A test's name joins its parts with `_` (`test_out_<op>_cpu_float32`, `test_<op>_subnormals`), so `_<op>_`
        holds where `<op>` alone would also select the tests of every operator whose name starts with it (those
        of an `<op>olate`). test_overrides.py's names end with the function's name:
        `test_torch_<op>`, `test_Tensor_<op>`, for an operator with a Python binding.
        """
        if not self.by_name:
            return ()
        if self.overrides:
            return () if any(p.fullmatch(op) for p in NO_PYTHON_BINDING) else (f"test_torch_{op}", f"test_Tensor_{op}")
        return (f"_{op}_",)

    def terms(self, ops: Iterable[str]) -> tuple[str, ...]:
        """The -k terms selecting the tests of the operators `ops` (root names) and the extra terms."""
        terms = selecting_terms([*(term for op in ops for term in self.op_terms(op)), *self.extra])
        if not terms:
            raise FragmentError(f"test/{self.path}: no operator to select (no `- func:` in the commits up to here)")
        return terms

    def keyword(self, ops: Iterable[str]) -> str:
        """pytest's -k expression for the terms: `make pytorch` runs the suites with pytest."""
        return " or ".join(self.terms(ops))

    def unittest_arguments(self, ops: Iterable[str]) -> str:
        """The same selection for `python test/<file>`, which runs unittest (common_utils.run_tests): its -k takes
        one substring, not an expression, and a test runs when any of the -k flags matches."""
        return " ".join(f"-k {shlex.quote(term)}" for term in self.terms(ops))


SUITES: tuple[Suite, ...] = (
    Suite("test_ops.py", why="OpInfo: dtypes, out=, variants, strides, meta, compare with the ref",
          opinfos=("op_db", "python_ref_db")),
    Suite("test_ops_gradients.py", why="gradcheck and gradgradcheck", opinfos=("op_db",)),
    Suite("test_ops_fwd_gradients.py", why="forward-mode AD", opinfos=("op_db",)),
    Suite("test_unary_ufuncs.py", why="against NumPy's reference, extremal values, non-contiguous",
          sources=("test/test_unary_ufuncs.py", OPINFOS), opinfos=("unary_ufuncs",)),
    Suite("test_binary_ufuncs.py", why="binary ufuncs against NumPy: type promotion, broadcasting, extremal values",
          opinfos=("binary_ufuncs",)),
    Suite("test_reductions.py", why="reductions: dims, keepdim, empty slices, NaN policy, against NumPy's reference",
          opinfos=("reduction_ops",)),
    Suite("test_meta.py", why="meta kernels", opinfos=("op_db",)),
    # TestSparseUnaryUfuncs: the sparse COO tests of every UnaryUfuncInfo that supports sparse inputs
    Suite("test_sparse.py", why="sparse COO kernels against the dense op", opinfos=("sparse_unary_ufuncs",)),
    Suite("test_sparse_csr.py", why="sparse CSR, CSC, BSR and BSC kernels against the dense op",
          opinfos=("sparse_csr_unary_ufuncs", "[op for op in op_db if op.supports_sparse_csr or op.supports_sparse_csc"
                                              " or op.supports_sparse_bsr or op.supports_sparse_bsc]")),
    Suite(
        "test_decomp.py", ("HasDecompTest",), why="the _refs as the aten operators' decompositions; decomposition lists",
        sources=(OPINFOS, "test/expect/HasDecompTest.test_aten_core_operators.expect"), opinfos=("op_db",),
    ),
    Suite("functorch/test_vmap.py", why="vmap batch rule", opinfos=("op_db",)),
    Suite("functorch/test_ops.py", why="vjp, jvp, vmap over grads", opinfos=("op_db",)),
    Suite("test_overrides.py", why="__torch_function__ override", sources=("torch/overrides.py",), overrides=True),
    Suite("test_torch.py", ("test_doc",), why="docstrings of every public function",
          sources=("torch/_torch_docs.py", "torch/_tensor_docs.py"), by_name=False),
    Suite("inductor/test_torchinductor_opinfo.py", why="inductor lowering (C++ and Triton)", opinfos=("op_db",)),
    # TestDTensorOps.test_dtensor_op_db: every OpInfo on DTensors of each sharding against the local op; the
    # operators with no sharding strategy are expected to fail (its dtensor_fails list)
    Suite("distributed/tensor/test_dtensor_ops.py", why="DTensor sharding strategies against the local op",
          sources=(OPINFOS, "test/distributed/tensor/test_dtensor_ops.py",
                   *(f"torch/distributed/tensor/_ops/{name}.py" for name in DTENSOR_STRATEGY_FILES)),
          opinfos=("op_db",)),
    Suite("inductor/test_cpu_repro.py", why="the C++ code inductor generates, and its bits against eager",
          sources=("test/inductor/test_cpu_repro.py",)),
    Suite("torch_np/test_ufuncs_basic.py", why="torch._numpy's ufuncs: negative inputs and backward",
          sources=("test/torch_np/test_ufuncs_basic.py",)),
)


def stack_ops(sources: Sources, topic_id: str | None = None) -> tuple[str, ...]:
    """Root names of the operators the commits of `topic_id`'s stack up to it add, in order; with None, those of
    every topic of `sources` (pass one stack's: Sources.of_stack). Another stack's commits are not below it."""
    if topic_id is None:
        return root_names(native_ops(sources, [t.id for t in sources.topics]))
    stack = next(t.stack for t in sources.topics if t.id == topic_id)
    ids = [t.id for t in sources.topics if t.stack == stack]
    return root_names(native_ops(sources, ids[: ids.index(topic_id) + 1]))


# An upstream test file the sources add (a new file at its upstream path): a suite of its own.
NEW_TEST_FILE = re.compile(r"^test/(?:.+/)?test_\w+\.py$")


def new_test_suites(sources: Sources) -> tuple[Suite, ...]:
    """A suite for each upstream test file the sources add, its tests those the file defines."""
    return tuple(
        Suite(f.upstream_path.removeprefix("test/"), why="the tests this file adds", sources=(f.upstream_path,))
        for f in sources.new_files
        if NEW_TEST_FILE.match(f.upstream_path)
    )


def all_suites(sources: Sources) -> tuple[Suite, ...]:
    """SUITES, then the suites of the test files the sources add."""
    return (*SUITES, *new_test_suites(sources))


def suites_of_stack(sources: Sources) -> list[Suite]:
    """The suites the Test Plans of `sources`' topics name (pass one stack's: Sources.of_stack), in all_suites'
    order: those `make pytorch` runs and the PR's test matrix lists."""
    named = {path for topic in sources.topics for path in topic.tests}
    return [suite for suite in all_suites(sources) if suite.path in named]


@dataclass(frozen=True)
class NativeTest:
    """The typed test suites `suites` of a C++ test binary of a PyTorch build (build/bin), once per CPU capability.

    `name` is what topics.toml lists; `source` is the upstream file that defines the suites (a commit naming this
    test must add them there).
    """

    name: str
    binary: str
    suites: tuple[str, ...]
    source: str
    capabilities: tuple[str, ...] = ("DEFAULT", "AVX2", "AVX512")
    why: str = ""

    @property
    def gtest_filter(self) -> str:
        return ":".join(f"{suite}/*" for suite in self.suites)

    def commands(self) -> list[str]:
        return [f"build/bin/{self.binary}_{c} --gtest_filter='{self.gtest_filter}'" for c in self.capabilities]


# Upstream's C++ test files (one binary per file, built once per CPU capability): a typed test suite a fragment adds
# to one is a native test, named <binary>/<suite> in topics.toml.
NATIVE_TEST_FILES = re.compile(r"^aten/src/ATen/test/[^/]+\.cpp$")
TYPED_TEST_SUITE = re.compile(r"^\s*TYPED_TEST_SUITE\((\w+),")


def native_tests(sources: Sources) -> tuple[NativeTest, ...]:
    """Every typed test suite the fragments add to an upstream C++ test file, in file order."""
    tests: dict[str, NativeTest] = {}
    for fragment_file in sources.fragment_files:
        if not NATIVE_TEST_FILES.match(fragment_file.upstream_path):
            continue
        binary = PurePosixPath(fragment_file.upstream_path).stem
        for fragment in fragment_file.fragments:
            for line in fragment.text:
                match = TYPED_TEST_SUITE.match(line)
                if match:
                    name = f"{binary}/{match.group(1)}"
                    tests.setdefault(name, NativeTest(name, binary, (match.group(1),), fragment_file.upstream_path))
    return tuple(tests.values())

"""`make mutants`: replay the planted bugs of docs/TESTING.md, each in a scratch copy, and say which tests catch them.

The scratch copy holds the repository's tracked and untracked (not ignored) files, and the venv as hard links:
every tool here replaces a venv file by an atomic rename, never in place, so the original venv is never written.
Kernel mutants rebuild the overlay in the scratch copy (the first build there is a full one).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from scripts.gitutil import git
from scripts.layout import REPO_ROOT

KERNEL = "aten_native/aten/src/ATen/native/cpu/CbrtKernel.cpp"
SCALAR_ALGORITHM = "aten_native/aten/src/ATen/cpu/vec/cbrt_algorithm.h"
VEC_CBRT = "aten_native/aten/src/ATen/cpu/vec/vec_cbrt.h"
CANDIDATES = "scripts/measure/cbrt_candidates.cpp"
DIVMOD_KERNEL = "aten_native/aten/src/ATen/native/cpu/DivModKernel.cpp"
DIVMOD_TESTS = "test/test_divmod_op.py"
DIVMOD_CUDA = "aten_native/aten/src/ATen/native/cuda/DivMod.cuh"
DIVMOD_CUDA_TESTS = "test/test_divmod_cuda_functors.py"
INTERP_KERNEL = "aten_native/aten/src/ATen/native/cpu/InterpKernel.cpp"
INTERP = "aten_native/aten/src/ATen/native/Interp.cpp"
INTERP_TESTS = "test/test_interp_op.py"
NANVAR_KERNEL = "aten_native/aten/src/ATen/native/cpu/NanStdVarKernel.cpp"
NANVAR_TESTS = "test/test_nanvar_op.py"
NANVAR_CUDA_OPS = "aten_native/aten/src/ATen/native/SharedReduceOps.h.fragments.toml"
NANVAR_CUDA_TESTS = "test/test_nanvar_cuda_ops.py"
DYNAMO_TENSOR = "frontend/torch/_dynamo/variables/tensor.py.fragments.toml"
# Dynamo's nb_divmod slot of a tensor, from its operand check to the call it builds (one match in DYNAMO_TENSOR)
NB_DIVMOD_CHECK = "        if not (isinstance(other, TensorVariable) or _is_sym_arith_operand(other)):\n"
NB_DIVMOD_SLOT = (
    NB_DIVMOD_CHECK + "            return VariableTracker.build(tx, NotImplemented)\n"
    "        from .builder import wrap_fx_proxy\n\n"
    "        lhs, rhs = (other, self) if reverse else (self, other)\n"
    "        return wrap_fx_proxy(\n            tx,\n            tx.output.create_proxy(\n"
    "                \"call_function\", torch.divmod,"
)


@dataclass(frozen=True)
class Mutant:
    name: str
    path: str
    find: str  # must occur exactly once in path
    replace: str
    tests: tuple[str, ...]  # pytest arguments that must fail
    rebuild: bool = False  # a kernel change: rebuild the overlay first


MUTANTS = (
    Mutant(
        "DEFAULT build returns NaN for float64 inputs above 2^1000",
        KERNEL,
        "            [](Vectorized<scalar_t> a) { return a.cbrt(); });\n",
        "            [](Vectorized<scalar_t> a) {\n"
        "              auto y = a.cbrt();\n"
        "#if !defined(CPU_CAPABILITY_AVX2) && !defined(CPU_CAPABILITY_AVX512)\n"
        "              if (sizeof(scalar_t) == 8) {\n"
        "                using V = Vectorized<scalar_t>;\n"
        "                const auto ax = a.abs();\n"
        "                y = V::blendv(y, V(static_cast<scalar_t>(NAN)),\n"
        "                    (ax > V(static_cast<scalar_t>(0x1p1000))) & (ax != V(static_cast<scalar_t>(INFINITY))));\n"
        "              }\n"
        "#endif\n"
        "              return y;\n"
        "            });\n",
        ("test/test_cpu_capabilities.py",),
        rebuild=True,
    ),
    Mutant(
        "bfloat16 scalar path (strided inputs, loop tails) misrounds 1 input in 32",
        SCALAR_ALGORITHM,
        "  return static_cast<c10::BFloat16>(round_to_bfloat16<ScalarOps<float>>(\n"
        "      cbrt_float_or_bfloat16<true>(static_cast<float>(x))));\n",
        "  c10::BFloat16 y = static_cast<c10::BFloat16>(round_to_bfloat16<ScalarOps<float>>(\n"
        "      cbrt_float_or_bfloat16<true>(static_cast<float>(x))));\n"
        "  if ((x.x & 31) == 7) {\n"
        "    y.x ^= 1;\n"
        "  }\n"
        "  return y;\n",
        ("test/test_accuracy.py", "-k", "bfloat16"),
        rebuild=True,
    ),
    Mutant(
        "float32 result 1 ULP off on 1 input in 64 (vectorized path)",
        KERNEL,
        "            [](Vectorized<scalar_t> a) { return a.cbrt(); });\n",
        "            [](Vectorized<scalar_t> a) {\n"
        "              auto y = a.cbrt();\n"
        "              if constexpr (std::is_same_v<scalar_t, float>) {\n"
        "                __at_align__ float xs[Vectorized<float>::size()];\n"
        "                __at_align__ float ys[Vectorized<float>::size()];\n"
        "                a.store(xs);\n"
        "                y.store(ys);\n"
        "                for (int64_t i = 0; i < Vectorized<float>::size(); i++) {\n"
        "                  if ((c10::bit_cast<uint32_t>(xs[i]) & 63) == 0 && std::isfinite(ys[i]) && ys[i] != 0) {\n"
        "                    ys[i] = std::nextafter(ys[i], INFINITY);\n"
        "                  }\n"
        "                }\n"
        "                return Vectorized<float>::loadu(ys);\n"
        "              }\n"
        "              return y;\n"
        "            });\n",
        ("test/test_cbrt_op.py", "-k", "documented_ulp_bound"),
        rebuild=True,
    ),
    Mutant(
        "bfloat16 polynomial step misrounds (a coefficient 2^-12 off)",
        SCALAR_ALGORITHM,
        "      F(0.6666524f));\n",
        "      F(0.6668152f));\n",
        ("test/test_cbrt_op.py", "-k", "documented_ulp_bound"),
        rebuild=True,
    ),
    Mutant(
        "make apply rollback keeps the untracked files a topic wrote",
        "scripts/upstream/apply_checkout.py",
        "        (checkout / path).unlink(missing_ok=True)\n",
        "        pass\n",
        ("test/test_apply_checkout.py", "-k", "interrupt"),
    ),
    Mutant(
        "make apply rollback does not reset a moved original branch",
        "scripts/upstream/apply_checkout.py",
        '        git(checkout, "reset", "-q", "--hard", state.head)\n',
        "        pass\n",
        ("test/test_apply_checkout.py", "-k", "reset_away"),
    ),
    Mutant(
        "overlay build keeps the new library when a step fails",
        "scripts/overlay/build.py",
        "    except BaseException:\n        snapshot.restore()\n        raise\n",
        "    except BaseException:\n        raise\n",
        ("test/test_overlay_build.py",),
    ),
    Mutant(
        "accuracy sweep skips NaN: a NaN error counts as 0",
        "scripts/measure/accuracy.py",
        '    return torch.where(error.isnan(), float("inf"), error)\n',
        "    return error.nan_to_num(0.0)\n",
        ("test/test_accuracy.py", "-k", "nan_or_inf"),
    ),
    Mutant(
        "accuracy sweep never runs strided inputs",
        "scripts/measure/accuracy.py",
        "        results.append(candidate(strided_view(x)))\n",
        "        results.append(candidate(x))\n",
        ("test/test_accuracy.py", "-k", "strided"),
    ),
    Mutant(
        "docs/cbrt.md's accuracy table off by one figure",
        "docs/cbrt.md",
        "| bfloat16 | torch.cbrt | 65,536 | 0.5 | 0 | 0 |",
        "| bfloat16 | torch.cbrt | 65,536 | 0.5 | 1 | 0 |",
        ("test/test_readme.py", "-k", "half_and_bfloat16"),
    ),
    Mutant(
        "accuracy sweep never runs loop tails",
        "scripts/measure/accuracy.py",
        "        results.append(torch.cat([candidate(rows).flatten() for rows in tail_rows(x)]) if len(x) else results[0])\n",
        "        results.append(results[0])\n",
        ("test/test_accuracy.py", "-k", "loop_tails"),
    ),
    Mutant(
        "DEFAULT build's float lanes fuse a*b+c in float (two roundings) instead of in double",
        VEC_CBRT,
        "            static_cast<double>(product_factor) * b_lanes[i] + addend);\n",
        "            product_factor * b_lanes[i] + addend);\n",
        ("test/test_cpu_capabilities.py",),
        rebuild=True,
    ),
    Mutant(
        "Vectorized<float>::cbrt() returns +0 for -0 (a + 0 on the subnormal and zero lanes)",
        VEC_CBRT,
        "        F::blendv(y, y_scaled, tiny),\n",
        "        F::blendv(y, y_scaled, tiny) + F(T(0)),\n",
        ("test/test_vec_tests.py", "-k", "x86_64-default"),
    ),
    Mutant(
        "the exact float32 scorer trusts its estimate for a power-of-two result (whose float below is half as far)",
        "scripts/measure/exact_float32.c",
        "  int verdict = (y & FRACTION) == 0 ? -1 : under_half_ulp(a, b);\n",
        "  int verdict = (y & FRACTION) == 0 ? 1 : under_half_ulp(a, b);\n",
        ("test/test_exact_float32.py",),
    ),
    Mutant(
        "the exact float32 scorer counts more than one ULP from its estimate, not exactly",
        "scripts/measure/exact_float32.c",
        "    *over_one = !verdict && more_than_one_ulp(y & ~SIGN, X, f);\n",
        "    *over_one = !verdict && *error > 1.0;\n",
        ("test/test_exact_float32.py",),
    ),
    Mutant(
        "the drift check ignores a patch that only the regenerated series has",
        "scripts/patchset/patches.py",
        "    return sorted((expected_names ^ actual_names) | {name for names in changed for name in names})\n",
        "    return sorted((actual_names - expected_names) | {name for names in changed for name in names})\n",
        ("test/test_patches.py", "-k", "drift"),
    ),
    Mutant(
        "a failed build leaves the folders it created for new files in the install",
        "scripts/overlay/snapshot.py",
        "            if (self.site / folder).is_dir() and not any((self.site / folder).iterdir()):\n",
        "            if False:\n",
        ("test/test_overlay_build.py", "-k", "failed_build"),
    ),
    Mutant(
        "the loader leaves torch.compile's cache folder unkeyed by the overlay build",
        "scripts/overlay/torch_native_overlay.py",
        "    return os.path.join(base, CACHE_SUBDIR_PREFIX + key)\n",
        "    return base\n",
        ("test/test_inductor_cache_key.py",),
    ),
    Mutant(
        "the correctly rounded float32 candidate's exact path picks the other float (1 ULP off on its rare lanes)",
        CANDIDATES,
        "  return above > 0 ? std::min(a, b) : std::max(a, b);\n",
        "  return above > 0 ? std::max(a, b) : std::min(a, b);\n",
        ("test/test_frontier.py", "-k", "bisection"),
    ),
    Mutant(
        "the correctly rounded float32 candidate's perturbation shrinks below the error of its correction",
        CANDIDATES,
        "constexpr float kPerturbation = 0x1p-17f;\n",
        "constexpr float kPerturbation = 0x1p-24f;\n",
        ("test/test_frontier.py", "-k", "rounds_every_float32"),
    ),
    Mutant(
        "NEON Vectorized<float>::cbrt() defined only in the #else (non-SVE) branch: clang with +sve does not link",
        "aten_native/aten/src/ATen/cpu/vec/vec128/vec128_float_neon.h.fragments.toml",
        "where = \"before\"\nanchor = '''\ninline Vectorized<float> Vectorized<float>::erf() const {\n'''\n",
        "where = \"after\"\nanchor = '''\n  return Vectorized<float>(vfmsq_f32(c, a, b));\n}\n'''\n",
        ("test/test_vec_tests.py", "-k", "aarch64-neon-sve-clang"),
    ),
    Mutant(
        "the vec tests' double ulp reference leans on a long double wider than double (y^3 - x in long double)",
        "aten_native/aten/src/ATen/test/vec_test_all_types.cpp.fragments.toml",
        "        const double residual = std::fma(y, square, -x) + y * square_error;\n",
        "        const double residual = static_cast<double>(static_cast<long double>(y) * y * y - x);\n",
        ("test/test_vec_tests.py", "-k", "narrow-long-double"),
    ),
    Mutant(
        "divmod's vectorized remainder takes the dividend's sign (mod - b where remainder adds b)",
        DIVMOD_KERNEL,
        "  const auto remainder = vec_t::blendv(mod, mod + b, adjust);\n",
        "  const auto remainder = vec_t::blendv(mod, mod - b, adjust);\n",
        (DIVMOD_TESTS, "-k", "floats_match"),
        rebuild=True,
    ),
    Mutant(
        "divmod's remainder is not broadcast along the outer dimension (its pointer stays on the first row)",
        DIVMOD_KERNEL,
        "          data[arg] += outer_strides[arg];\n",
        "          data[arg] += arg == 1 ? 0 : outer_strides[arg];\n",
        (DIVMOD_TESTS, "-k", "broadcast"),
        rebuild=True,
    ),
    Mutant(
        "divmod's gradient for other has the wrong sign (grad_remainder * quotient)",
        "derivatives/tools/autograd/derivatives.yaml.fragments.toml",
        "  self: grad_remainder\n  other: -grad_remainder * quotient\n",
        "  self: grad_remainder\n  other: grad_remainder * quotient\n",
        (DIVMOD_TESTS, "-k", "gradients"),
        rebuild=True,
    ),
    Mutant(
        "divmod's scalar tail (and strided elements) subtracts the divisor where remainder adds it",
        DIVMOD_KERNEL,
        "  const scalar_t remainder = adjust ? scalar_t(mod + b) : mod;\n",
        "  const scalar_t remainder = adjust ? scalar_t(mod - b) : mod;\n",
        (DIVMOD_TESTS, "-k", "every_length"),
        rebuild=True,
    ),
    Mutant(
        "off the pin, a topic whose Python fragment fails keeps its fragments in the files where they apply",
        "scripts/overlay/venv_patch.py",
        "        if not failed:\n",
        "        if True:  # the first round: only the file that failed goes without the topic\n",
        ("test/test_venv_patch.py", "-k", "left_out"),
    ),
    Mutant(
        "a failing step's report names the wrapper's 'raised:' line instead of the exception inside it",
        "scripts/testing/failure_report.py",
        '        if line.endswith("raised:") and index + 1 < len(lines):\n',
        "        if False:\n",
        ("test/test_failure_report.py",),
    ),
    Mutant(
        "interp's knot rule is gone: a query on a sample point interpolates, 0 * inf where fp is infinite",
        INTERP_KERNEL,
        "          } else if (static_cast<opmath_t>(xps[j]) == x_value) {\n",
        "          } else if (false) {\n",
        (INTERP_TESTS, "-k", "float64_is_numpy"),
        rebuild=True,
    ),
    Mutant(
        "interp does not retry from the right sample point where the slope makes the line NaN",
        INTERP_KERNEL,
        "  if (C10_UNLIKELY(std::isnan(result))) {\n",
        "  if (false) {\n",
        (INTERP_TESTS, "-k", "infinite_and_nan"),
        rebuild=True,
    ),
    Mutant(
        "interp takes a negative period as it is, not its absolute value",
        INTERP,
        "  const double p = std::abs(*period);\n",
        "  const double p = *period;\n",
        (INTERP_TESTS, "-k", "float64_is_numpy"),
        rebuild=True,
    ),
    Mutant(
        "interp's fp pointer stays on the first row of a batch (one input not broadcast)",
        INTERP_KERNEL,
        "          const scalar_t* fps = fp_data + rows.of(row, kFp) * n;\n",
        "          const scalar_t* fps = fp_data;\n",
        (INTERP_TESTS, "-k", "batched_form"),
        rebuild=True,
    ),
    Mutant(
        "interp's gradient for the right sample point of a segment has the wrong sign",
        INTERP,
        "  lin.d_xp1 = at::where(inside, -slope * t, value_zero);\n",
        "  lin.d_xp1 = at::where(inside, slope * t, value_zero);\n",
        (INTERP_TESTS, "-k", "gradients_are or gradcheck"),
        rebuild=True,
    ),
    Mutant(
        "interp's guessed search returns the guess where the query lies in the second segment after it",
        INTERP_KERNEL,
        "    if (below(key, xp, guess + 2)) {\n      return guess + 1;\n",
        "    if (below(key, xp, guess + 2)) {\n      return guess;\n",
        (INTERP_TESTS, "-k", "float64_is_numpy"),
        rebuild=True,
    ),
    Mutant(
        "interp's fast path drops the knot rule: a query on a sample point interpolates, 0 * inf where fp is infinite",
        INTERP_KERNEL,
        "    } else if (static_cast<opmath_t>(xp[j]) == x) {\n",
        "    } else if (false) {\n",
        (INTERP_TESTS, "-k", "long_sorted"),
        rebuild=True,
    ),
    Mutant(
        "interp's vectors interpolate a query on a sample point instead of taking its value (-0.0 becomes +0.0)",
        INTERP_KERNEL,
        "    return Vec::blendv(\n"
        "        line(Vec(slopes[j]), queries, low, fp_j), fp_j, queries == low);\n",
        "    return line(Vec(slopes[j]), queries, low, fp_j);\n",
        (INTERP_TESTS, "-k", "long_sorted"),
        rebuild=True,
    ),
    Mutant(
        "interp's vectors keep a NaN line where numpy retries from the right sample point",
        INTERP_KERNEL,
        "    if (value.isnan().zero_mask() != all_lanes) {\n",
        "    if (value.isnan().zero_mask() != all_lanes && false) {\n",
        (INTERP_TESTS, "-k", "long_sorted"),
        rebuild=True,
    ),
    Mutant(
        "interp's fast path takes every xp as sorted, so an unsorted row leaves numpy's search path",
        INTERP_KERNEL,
        "    xp_sorted[row] = is_non_decreasing<opmath_t>(xp_data + row * n, n);\n",
        "    xp_sorted[row] = true;\n",
        (INTERP_TESTS, "-k", "unsorted_xp"),
        rebuild=True,
    ),
    Mutant(
        "interp's bisection stops a step short (two sample points left, the lower taken)",
        INTERP_KERNEL,
        "  while (length > 1) {\n",
        "  while (length > 2) {\n",
        (INTERP_TESTS, "-k", "long_sorted"),
        rebuild=True,
    ),
    Mutant(
        "interp's walk of sorted queries counts within its window a query that lies beyond it",
        INTERP_KERNEL,
        "  if (top < n - 1 && at_or_above(key, xp, top + 1)) {\n",
        "  if (false) {\n",
        (INTERP_TESTS, "-k", "long_sorted"),
        rebuild=True,
    ),
    Mutant(
        "interp's fast path reads fp from the first row of a batch (the slopes from the right one)",
        INTERP_KERNEL,
        "          const scalar_t* xps = xp_data + xp_row * n;\n"
        "          const scalar_t* fps = fp_data + row_of.of(row, kFp) * n;\n",
        "          const scalar_t* xps = xp_data + xp_row * n;\n"
        "          const scalar_t* fps = fp_data;\n",
        (INTERP_TESTS, "-k", "batched_form"),
        rebuild=True,
    ),
    Mutant(
        "interp's gradient for x with complex fp takes grad * slope, not grad * conj(slope)",
        INTERP,
        "        real_if(grad_ * lin.d_x.conj(), true),\n",
        "        real_if(grad_ * lin.d_x, true),\n",
        (INTERP_TESTS, "-k", "complex_fp_gradcheck"),
        rebuild=True,
    ),
    Mutant(
        "interp's Python meta accepts an out= of a dtype the result casts to, which the kernels reject",
        "frontend/torch/_meta_registrations.py.fragments.toml",
        "@register_meta(aten.interp)\n@out_wrapper(exact_dtype=True)\n",
        "@register_meta(aten.interp)\n@out_wrapper()\n",
        (INTERP_TESTS, "-k", "out_of_another"),
        rebuild=True,
    ),
    Mutant(
        "interp's vectors take a query beyond the next sample point but one into the segment after the first's",
        INTERP_KERNEL,
        "      if (j + 2 >= n || (queries < Vec(xp[j + 2])).zero_mask() != 0) {\n",
        "      if (j + 2 >= n) {\n",
        (INTERP_TESTS, "-k", "long_sorted"),
        rebuild=True,
    ),
    Mutant(
        "interp's backward is not registered for decomposition under vmap, so vmap of its vjp takes the fallback",
        "frontend/aten/src/ATen/functorch/BatchRulesDecompositions.cpp.fragments.toml",
        "  OP_DECOMPOSE(_interp_backward);\n",
        "  // OP_DECOMPOSE(_interp_backward);\n",
        (INTERP_TESTS, "-k", "vmap_of_vjp"),
        rebuild=True,
    ),
    Mutant(
        "interp's guessed search writes numpy's key < xp[i] as !(key >= xp[i]), which a NaN sample point makes true",
        INTERP_KERNEL,
        "  if (below(key, xp, guess)) {\n    if (!below(key, xp, guess - 1)) {\n",
        "  if (!at_or_above(key, xp, guess)) {\n    if (at_or_above(key, xp, guess - 1)) {\n",
        (INTERP_TESTS, "-k", "nan_sample_point"),
        rebuild=True,
    ),
    Mutant(
        "interp splits a row with unsorted xp between tasks, each starting numpy's guessed search again",
        INTERP_KERNEL,
        "  if ((index == row_begin && run_end == row_end) || is_sorted()) {\n",
        "  if (true) {\n",
        (INTERP_TESTS, "-k", "unsorted_xp_gives_numpys_bits_on_1_and_2_threads"),
        rebuild=True,
    ),
    Mutant(
        "interp writes an out= that overlaps the sample points",
        INTERP,
        "  at::assert_no_overlap(result, xp);\n",
        "",
        (INTERP_TESTS, "-k", "overlaps_the_sample_points"),
        rebuild=True,
    ),
    Mutant(
        "divmod writes a quotient and a remainder that overlap each other",
        "aten_native/aten/src/ATen/native/BinaryOps.cpp.fragments.toml",
        "  at::assert_no_overlap(quotient, remainder);\n",
        "",
        (DIVMOD_TESTS, "-k", "overlap_an_input_or_each_other"),
        rebuild=True,
    ),
    Mutant(
        "Dynamo's nb_divmod slot of a tensor returns NotImplemented, so divmod(t, x) does not compile",
        DYNAMO_TENSOR,
        NB_DIVMOD_SLOT,
        NB_DIVMOD_SLOT.replace(NB_DIVMOD_CHECK, "        if True:\n"),
        (DIVMOD_TESTS, "-k", "builtin_divmod_compiles"),
        rebuild=True,
    ),
    Mutant(
        "interp's DTensor rule keeps the sample points replicated while x is sharded on a batch dimension they carry",
        "frontend/torch/distributed/tensor/_ops/_tensor_ops.py.fragments.toml",
        "            strategy.append(_ShardingPlaceholder(input_dim) if carries else Replicate())\n",
        "            strategy.append(_ShardingPlaceholder(input_dim) if carries and len(strategy) == 1 else Replicate())\n",
        ("test/test_conformance.py", "-k", "interp"),
        rebuild=True,
    ),
    Mutant(
        "interp copies xp to the result's batch shape where x broadcasts against it (a row per result row)",
        INTERP,
        "      own_rows(knots.xp, n),\n",
        "      own_rows(knots.xp.expand([&] { DimVector shape(batch); shape.push_back(n); return shape; }()), n),\n",
        (INTERP_TESTS, "-k", "broadcast_batches_are_read_in_place"),
        rebuild=True,
    ),
    Mutant(
        "interp splits a row with unsorted xp between tasks (as mutant 46), seen by the generic thread check",
        INTERP_KERNEL,
        "  if ((index == row_begin && run_end == row_end) || is_sorted()) {\n",
        "  if (true) {\n",
        ("test/test_conformance.py", "-k", "thread_count and interp"),
        rebuild=True,
    ),
    Mutant(
        "divmod's OpInfo is missing from common_mps.py's list of operators MPS does not implement",
        "frontend/torch/testing/_internal/common_mps.py.fragments.toml",
        '            "divmod": None,\n',
        '            "divmod_elsewhere": None,\n',
        ("test/test_conformance.py", "-k", "mps"),
        rebuild=True,
    ),
    Mutant(
        "interp's derivatives with a period locate float16 queries in float16, where the forward reduces in float32",
        INTERP,
        "  const auto dtype = interp_compute_dtype(x, xp, fp, period);\n",
        "  const auto dtype = at::meta::interp_result_dtype(x, xp, fp);\n",
        (INTERP_TESTS, "-k", "reduced_precision_derivatives"),
        rebuild=True,
    ),
    Mutant(
        "interp's guessed search writes key < xp[i] as !(key >= xp[i]) (as mutant 45), seen by the generic NaN check",
        INTERP_KERNEL,
        "  if (below(key, xp, guess)) {\n    if (!below(key, xp, guess - 1)) {\n",
        "  if (!at_or_above(key, xp, guess)) {\n    if (at_or_above(key, xp, guess - 1)) {\n",
        ("test/test_conformance.py", "-k", "nan_and_infinities and interp"),
        rebuild=True,
    ),
    Mutant(
        "interp's bisection (numpy's search, and the one over 4 MiB of sample points) takes a query on a sample "
        "point into the segment before",
        INTERP_KERNEL,
        "    if (at_or_above(key, xp, mid)) {\n      low = mid + 1;\n",
        "    if (key > static_cast<opmath_t>(xp[mid])) {\n      low = mid + 1;\n",
        (INTERP_TESTS, "-k", "beyond_the_caches"),
        rebuild=True,
    ),
    Mutant(
        "Dynamo's nb_divmod slot of a tensor returns NotImplemented (as mutant 49), seen by the generic dunder check",
        DYNAMO_TENSOR,
        NB_DIVMOD_SLOT,
        NB_DIVMOD_SLOT.replace(NB_DIVMOD_CHECK, "        if True:\n"),
        ("test/test_conformance.py", "-k", "dunders"),
        rebuild=True,
    ),
    Mutant(
        "divmod's Scalar-first overload casts the scalar to the tensor's dtype: divmod(2.5, int32 tensor) is int32",
        "aten_native/aten/src/ATen/native/BinaryOps.cpp.fragments.toml",
        "  return at::divmod(wrapped_scalar_tensor(self), other);\n",
        "  return at::divmod(at::scalar_tensor(self, other.options()), other);\n",
        ("test/test_conformance.py", "-k", "scalar_overload and divmod"),
        rebuild=True,
    ),
    Mutant(
        "interp reads a 1-D input with strides (x[::2]) as if it were contiguous",
        INTERP,
        "  return t.reshape({-1, len}).contiguous();\n",
        "  return t.dim() == 1 ? t.as_strided({1, len}, {len, 1})\n"
        "                     : t.reshape({-1, len}).contiguous();\n",
        ("test/test_conformance.py", "-k", "layout and interp"),
        rebuild=True,
    ),
    Mutant(
        "interp's derivative for the left sample point of a segment has the wrong sign where the query is on it",
        INTERP,
        "  lin.d_xp0 = at::where(inside, slope * (t - one), value_zero);\n",
        "  lin.d_xp0 =\n      at::where(inside, at::where(t.eq(0), -slope, slope) * (t - one), value_zero);\n",
        ("test/test_conformance.py", "-k", "piecewise and interp"),
        rebuild=True,
    ),
    Mutant(
        "divmod's Test Plan names test_unary_ufuncs.py, whose OpInfo tests divmod is not among, for "
        "test_binary_ufuncs.py",
        "topics.toml",
        '  "test_binary_ufuncs.py",\n',
        '  "test_unary_ufuncs.py",\n',
        ("test/test_patches.py", "-k", "own_operator"),
    ),
    Mutant(
        "interp takes queries mod period with the vectorized fmod alone, NaN where x / period overflows",
        INTERP,
        "  for (auto scale = scales.rbegin(); scale != scales.rend(); ++scale) {\n"
        "    reduced = at::fmod(reduced, *scale);\n",
        "  for (auto scale = scales.rbegin(); scale != scales.rend(); ++scale) {\n",
        (INTERP_TESTS, "-k", "quotient_by_the_period_overflows"),
        rebuild=True,
    ),
    Mutant(
        "interp copies xp to the result's batch shape (as mutant 51), seen by the generic broadcast-memory check",
        INTERP,
        "      own_rows(knots.xp, n),\n",
        "      own_rows(knots.xp.expand([&] { DimVector shape(batch); shape.push_back(n); return shape; }()), n),\n",
        ("test/test_conformance.py", "-k", "read_in_place and interp"),
        rebuild=True,
    ),
    Mutant(
        "divmod's CUDA quotient by a CPU scalar divides, where floor_divide's multiplies by the reciprocal",
        DIVMOD_CUDA,
        "    return static_cast<scalar_t>(static_cast<accscalar_t>(a) * inv_b);\n  }\n",
        "    return static_cast<scalar_t>(static_cast<accscalar_t>(a) * inv_b);\n  }\n"
        "  return divmod_quotient(a, static_cast<scalar_t>(b));\n",
        (DIVMOD_CUDA_TESTS, "-k", "scalar"),
    ),
    Mutant(
        "divmod's CUDA quotient of Half and BFloat16 is computed in float and rounded once, where floor_divide's "
        "rounds at each step",
        DIVMOD_CUDA,
        "    return c10::div_floor_floating(a, b);\n",
        "    using accscalar_t = at::acc_type<scalar_t, /*is_cuda=*/true>;\n"
        "    return static_cast<scalar_t>(c10::div_floor_floating(\n"
        "        static_cast<accscalar_t>(a), static_cast<accscalar_t>(b)));\n",
        (DIVMOD_CUDA_TESTS, "-k", "tensors"),
    ),
    Mutant(
        "torch._numpy.interp computes in its inputs' dtypes, where numpy computes in float64",
        "frontend/torch/_numpy/_funcs_impl.py.fragments.toml",
        "        x.to(float_dtype),\n        xp.to(float_dtype),\n        fp.to(fp_dtype),\n",
        "        x,\n        xp,\n        fp,\n",
        ("test/upstream/test/torch_np/test_interp.py",),
        rebuild=True,
    ),
    Mutant(
        "the series checks read an OpInfo's dtypesIfCUDA=empty_types() as a claim of CUDA dtypes",
        "scripts/patchset/series_checks.py",
        '    return not any(line.strip() == "dtypesIfCUDA=empty_types()," for line in lines[start:end])\n',
        "    return True\n",
        ("test/test_series.py", "-k", "cuda"),
    ),
    Mutant(
        "interp's DTensor rule splits a call that fits in upstream's 88 columns, which upstream's ruff format joins",
        "frontend/torch/distributed/tensor/_ops/_tensor_ops.py.fragments.toml",
        "            strategy.append(_ShardingPlaceholder(input_dim) if carries else Replicate())\n",
        "            strategy.append(\n                _ShardingPlaceholder(input_dim) if carries else Replicate()\n"
        "            )\n",
        ("test/test_patches.py", "-k", "upstreams_ruff_flake8_and_formatter and interp"),
    ),
    Mutant(
        "nanvar counts the NaN elements",
        NANVAR_KERNEL,
        "      counts[v] = counts[v] + Vec::blendv(one, zero, is_nan);\n",
        "      counts[v] = counts[v] + one;\n",
        (NANVAR_TESTS, "-k", "left_out_of_the_mean"),
        rebuild=True,
    ),
    Mutant(
        "nanvar divides by the count minus the correction minus one",
        NANVAR_KERNEL,
        "          const double dof = static_cast<double>(moments.count) - correction;\n",
        "          const double dof = static_cast<double>(moments.count) - correction - 1;\n",
        (NANVAR_TESTS, "-k", "axis_keepdims_and_ddof"),
        rebuild=True,
    ),
    Mutant(
        "nanvar merges the blocks of each task in turn, so the merge order follows the thread count",
        NANVAR_KERNEL,
        "      blocks[b] = block_moments(local.data(), padded);\n",
        "      blocks[first] = merge(blocks[first], block_moments(local.data(), padded));\n",
        (NANVAR_TESTS, "-k", "thread_count"),
        rebuild=True,
    ),
    Mutant(
        "nanvar's gradient at a NaN element is -2 mean / (count - correction), not 0",
        "derivatives/tools/autograd/derivatives.yaml.fragments.toml",
        "  self: grad.reshape_symint(self.isnan().logical_not().sum(dim, true).sym_sizes()) * 2 * "
        "(self.masked_fill(self.isnan(), 0) - self.masked_fill(self.isnan(), 0).sum(dim, true) / "
        "self.isnan().logical_not().sum(dim, true)).masked_fill(self.isnan(), 0) / ",
        "  self: grad.reshape_symint(self.isnan().logical_not().sum(dim, true).sym_sizes()) * 2 * "
        "(self.masked_fill(self.isnan(), 0) - self.masked_fill(self.isnan(), 0).sum(dim, true) / "
        "self.isnan().logical_not().sum(dim, true)) / ",
        (NANVAR_TESTS, "-k", "zero_gradient"),
        rebuild=True,
    ),
    Mutant(
        "nanvar's meta function drops keepdim",
        "aten_native/aten/src/ATen/native/ReduceOps.cpp.fragments.toml",
        '      "nanvar(): expected input to have floating point or complex dtype but got ",\n'
        "      self.scalar_type());\n  resize_reduction(\n      *this, self, dim, keepdim,",
        '      "nanvar(): expected input to have floating point or complex dtype but got ",\n'
        "      self.scalar_type());\n  resize_reduction(\n      *this, self, dim, false,",
        (NANVAR_TESTS, "-k", "axis_keepdims_and_ddof"),
        rebuild=True,
    ),
    Mutant(
        "nanvar adds up the sums of squares of its lanes in float32: float32 accumulated in float32",
        NANVAR_KERNEL,
        "    m2 += lanes[lane];\n",
        "    m2 = static_cast<float>(m2 + static_cast<float>(lanes[lane]));\n",
        (NANVAR_TESTS, "-k", "reduced_precision"),
        rebuild=True,
    ),
    Mutant(
        "torch._numpy.nanvar passes ddof + 1 as the correction",
        "frontend/torch/_numpy/_reductions_impl.py.fragments.toml",
        "    result = tensor.nanvar(dim=axis, correction=ddof)\n",
        "    result = tensor.nanvar(dim=axis, correction=ddof + 1)\n",
        ("test/test_numpy_nanfunctions.py",),
        rebuild=True,
    ),
    Mutant(
        "nanvar has no DTensor sharding strategy",
        "frontend/torch/distributed/tensor/_ops/_math_ops.py.fragments.toml",
        "    aten.nanvar.default,\n    aten.nanvar.out,\n",
        "",
        (NANVAR_TESTS, "-k", "dtensor"),
        rebuild=True,
    ),
    Mutant(
        "nanvar has no vmap batch rule: vmap falls back to a loop",
        "frontend/aten/src/ATen/functorch/BatchRulesReduceOps.cpp.fragments.toml",
        "  REDUCTION_BOXED_ARGS(nanvar, 1, KEEPDIM_CASE_VARIABLE, 3);\n",
        "",
        (NANVAR_TESTS, "-k", "vmap"),
        rebuild=True,
    ),
    Mutant(
        "nanstd's double backward divides by 2 * nanstd where it is 0 (0 / 0 in the gradient of the gradient)",
        "derivatives/tools/autograd/derivatives.yaml.fragments.toml",
        "  self: (grad / (2 * result).masked_fill(result == 0, 1)).masked_fill(result == 0, 0)",
        "  self: (grad / (2 * result)).masked_fill(result == 0, 0)",
        (NANVAR_TESTS, "-k", "double_backward"),
        rebuild=True,
    ),
    Mutant(
        "nanvar's benchmark sets two threads before timing, which torch.utils.benchmark's Timer resets to one",
        "scripts/measure/nanvar_bench.py",
        '            "two_threads_s": seconds(lambda: torch.nanvar(values), min_run_time, threads=2),\n',
        '            "two_threads_s": seconds(lambda: torch.nanvar(values), min_run_time),\n',
        ("test/test_nanvar_bench.py", "-k", "two_thread"),
    ),
    Mutant(
        "nanvar's CUDA reduction counts the NaN elements",
        NANVAR_CUDA_OPS,
        "    return at::_isnan(data) ? acc : welford.reduce(acc, data, idx);\n",
        "    return welford.reduce(acc, data, idx);\n",
        (NANVAR_CUDA_TESTS, "-k", "left_out"),
    ),
    Mutant(
        "nanvar's CUDA reduction divides by 0 where the count is not greater than the correction (inf, not NaN)",
        NANVAR_CUDA_OPS,
        "    if (acc.nf <= welford.correction) {\n",
        "    if (acc.nf <= 0) {\n",
        (NANVAR_CUDA_TESTS, "-k", "degrees_of_freedom"),
    ),
)


class StaleMutant(RuntimeError):
    pass


def mutated(text: str, mutant: Mutant) -> str:
    if text.count(mutant.find) != 1:
        raise StaleMutant(f"{mutant.path}: the text to mutate for {mutant.name!r} is gone; update {__name__}")
    return text.replace(mutant.find, mutant.replace)


def scratch_copy(scratch: Path, with_venv: bool) -> Path:
    """The working tree's tracked and untracked (not ignored) files, and (hard-linked) its venv, under scratch."""
    listed = git(REPO_ROOT, "ls-files", "-z", "--cached", "--others", "--exclude-standard").split("\0")
    for name in filter(None, listed):
        source = REPO_ROOT / name
        if source.is_file():
            (scratch / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, scratch / name)
    if with_venv and (REPO_ROOT / ".venv").is_dir():
        subprocess.run(["cp", "-al", str(REPO_ROOT / ".venv"), str(scratch / ".venv")], check=True)
    return scratch


def build_overlay(scratch: Path, python: str) -> bool:
    result = subprocess.run([python, "-m", "scripts.overlay.build", "--python", python], cwd=scratch)
    return result.returncode == 0


def outcome(scratch: Path, mutant: Mutant, python: str) -> str:
    """'caught' when the named tests fail on the mutant, 'missed' when they pass, else what went wrong."""
    target = scratch / mutant.path
    original = target.read_text()
    try:
        target.write_text(mutated(original, mutant))
        if mutant.rebuild and not build_overlay(scratch, python):
            return "build failed (the mutant does not compile)"
        command = [python, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *mutant.tests]
        code = subprocess.run(command, cwd=scratch, env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}).returncode
    except StaleMutant as error:
        return f"stale: {error}"
    finally:
        target.write_text(original)
    return {0: "MISSED", 1: "caught"}.get(code, f"pytest exited {code}")


def replay(mutants: tuple[Mutant, ...], scratch: Path, python: str) -> list[tuple[Mutant, str]]:
    results = []
    for mutant in mutants:
        results.append((mutant, outcome(scratch, mutant, python)))
        print(f"mutants: {results[-1][1]}: {mutant.name}", flush=True)
    if any(m.rebuild for m in mutants):
        build_overlay(scratch, python)  # leave the scratch venv with the unmutated kernel
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--only", nargs="+", type=int, help="indices into the list (0-based) to replay")
    parser.add_argument("--scratch", type=Path, help="scratch folder (default: a new temporary one, removed after)")
    args = parser.parse_args()
    chosen = tuple(m for i, m in enumerate(MUTANTS) if args.only is None or i in args.only)
    needs_venv = any(m.rebuild for m in chosen)
    with tempfile.TemporaryDirectory(prefix="cbrt-mutants-") as temporary:
        scratch = scratch_copy(args.scratch or Path(temporary), with_venv=needs_venv)
        python = str(scratch / ".venv/bin/python") if needs_venv else sys.executable
        if needs_venv and not build_overlay(scratch, python):
            sys.exit("mutants: the unmutated overlay does not build in the scratch copy")
        results = replay(chosen, scratch, python)
    print("\n| planted bug | tests | result |\n|---|---|---|")
    for mutant, result in results:
        print(f"| {mutant.name} | `{' '.join(mutant.tests)}` | {result} |")
    sys.exit(0 if all(r.startswith("caught") for _, r in results) else 1)


if __name__ == "__main__":
    main()

"""The SASS counting and the H200 throughput model behind the CUDA kernel's choice (docs/CUDA_KERNEL.md)."""

from __future__ import annotations

import pytest

from scripts.gpu import sass_model, throughput_model
from scripts.gpu.sass_model import CLASSES
from scripts.gpu.throughput_model import H200, Machine

LISTING = """
        Function : probe_float32
        /*0000*/                   S2R R0, SR_TID.X ;                      /* 0x0000000000007919 */
        /*0010*/                   ISETP.GE.AND P0, PT, R0, UR4, PT ;      /* 0x0000000400007c0c */
        /*0020*/               @P0 EXIT ;                                  /* 0x000000000000094d */
        /*0030*/                   LDG.E.CONSTANT R5, desc[UR4][R4.64] ;   /* 0x0000000404057981 */
        /*0040*/               @P0 BRA 0x80 ;                              /* 0x0000000000a80947 */
        /*0050*/                   FFMA R5, R5, R2, -R6 ;                  /* 0x0000000205057223 */
        /*0060*/                   MUFU.EX2 R9, R6 ;                       /* 0x0000000000007919 */
        /*0070*/                   BRA 0x90 ;                              /* 0x0000000000547947 */
        /*0080*/                   DMUL R6, R6, 2 ;                        /* 0x0000000000007919 */
        /*0090*/                   STG.E desc[UR4][R2.64], R5 ;            /* 0x0000000502007986 */
        /*00a0*/                   EXIT ;                                  /* 0x000000000000794d */
        /*00b0*/                   BRA 0xb0;                               /* 0xfffffffc00fc7947 */
        /*00c0*/                   NOP;                                    /* 0x0000000000007918 */
"""


def counts(**given: float) -> dict[str, float]:
    return {name: given.get(name, 0.0) for name in CLASSES}


def test_the_listing_is_parsed_by_function_without_padding() -> None:
    functions = sass_model.parse_functions(LISTING)
    assert list(functions) == ["probe_float32"]
    instructions = functions["probe_float32"]
    assert len(instructions) == 12 and instructions[2].predicate == "@P0" and instructions[6].opcode == "MUFU.EX2"


def test_the_hot_path_falls_through_conditional_branches_and_follows_the_others() -> None:
    path = sass_model.hot_path(sass_model.parse_functions(LISTING)["probe_float32"])
    assert [i.address for i in path] == [0x00, 0x10, 0x20, 0x30, 0x40, 0x50, 0x60, 0x70, 0x90, 0xA0]
    assert sass_model.class_counts(path) == {
        "fp32": 1,
        "fp64": 0,
        "int_logic": 1,
        "convert": 0,
        "mufu": 1,
        "control": 4,
        "memory": 3,
    }


def test_a_hot_path_without_the_store_is_refused() -> None:
    instructions = sass_model.parse_functions(LISTING.replace("STG.E", "FMUL"))["probe_float32"]
    with pytest.raises(ValueError, match="does not reach the store"):
        sass_model.hot_path(instructions)


@pytest.mark.parametrize(
    ("opcode", "name"),
    [
        ("FFMA", "fp32"),
        ("HADD2.F32", "fp32"),
        ("DFMA", "fp64"),
        ("LOP3.LUT", "int_logic"),
        ("FSETP.GEU.AND", "int_logic"),
        ("I2FP.F32.S32", "int_logic"),
        ("F2I.TRUNC.NTZ", "convert"),
        ("F2F.F64.F32", "convert"),
        ("MUFU.RCP64H", "mufu"),
        ("BSSY", "control"),
        ("UMOV", "control"),
        ("LDG.E.128", "memory"),
    ],
)
def test_opcode_classes(opcode: str, name: str) -> None:
    assert sass_model.opcode_class(opcode) == name


def test_an_unknown_opcode_is_an_error_not_a_guess() -> None:
    with pytest.raises(ValueError, match="no class"):
        sass_model.opcode_class("HMMA.16816.F32")


def test_counts_per_element_divide_by_the_elements_a_16_byte_access_holds() -> None:
    assert sass_model.per_element(counts(fp32=16), "float16")["fp32"] == 2
    assert sass_model.per_element(counts(fp64=16), "float64")["fp64"] == 8


def test_the_busiest_of_issue_and_the_pipes_sets_the_cost() -> None:
    assert throughput_model.cycles_per_element(counts(fp32=64, int_logic=64)) == 1.0  # issue: 128 / 128
    assert throughput_model.cycles_per_element(counts(mufu=4)) == 0.25  # MUFU: 4 / 16
    assert throughput_model.cycles_per_element(counts(fp64=32)) == 0.5  # FP64: 32 / 64


def test_the_copy_rate_counts_a_read_and_a_write_per_element() -> None:
    machine = Machine("toy", 1, 1.0, 128, {"fp32": 128}, peak_bytes_per_s=1600.0, copy_efficiency=0.5)
    assert throughput_model.copy_rate("float32", machine) == 100.0
    assert throughput_model.copy_rate("bfloat16", machine) == 200.0


def test_the_prediction_is_the_compute_bound_rate_over_the_copy_rate_at_most_one() -> None:
    machine = Machine("toy", 1, 100.0, 128, {"fp32": 128}, peak_bytes_per_s=1600.0, copy_efficiency=1.0)
    assert throughput_model.predicted_fraction(counts(fp32=128), "float32", machine) == 0.5  # 100 of 200 elements/s
    assert throughput_model.predicted_fraction(counts(fp32=32), "float32", machine) == 1.0


@pytest.mark.parametrize(
    ("libdevice", "portable", "kernel"),
    [
        (1.0, 1.0, "libdevice"),  # both at copy bandwidth: upstream's pattern
        (0.95, 1.0, "libdevice"),
        (1.0, 0.5, "libdevice"),
        (0.949, 0.95, "portable"),  # only where libdevice misses the target and the portable kernel reaches it
        (0.5, 0.949, "libdevice"),
    ],
)
def test_libdevice_runs_unless_it_alone_misses_95_percent_of_copy(libdevice: float, portable: float, kernel: str) -> None:
    assert throughput_model.chosen_kernel({"portable": portable, "libdevice": libdevice}) == kernel


def test_the_h200_inputs_are_the_documented_ones() -> None:
    assert (H200.sms, H200.clock_hz, H200.issue_per_clock, H200.peak_bytes_per_s) == (132, 1.98e9, 128, 4.8e12)
    assert H200.rates == {"fp32": 128, "fp64": 64, "int_logic": 64, "convert": 16, "mufu": 16}


def test_the_doc_tables_come_from_the_committed_counts() -> None:
    section = throughput_model.generated_section(sass_model.load_counts())
    assert section in throughput_model.DOC.read_text(), "run `python -m scripts.gpu.throughput_model --write-doc`"


def test_the_cuda_kernel_runs_what_the_model_chooses_libdevice_on_the_opmath_value() -> None:
    source = (sass_model.REPO_ROOT / "aten_native/aten/src/ATen/native/cuda/CbrtKernel.cu").read_text()
    chosen = {dtype: throughput_model.chosen_kernel(p) for dtype, p in throughput_model.predictions().items()}
    assert chosen == dict.fromkeys(sass_model.DTYPES, "libdevice")
    assert "return ::cbrt(static_cast<opmath_t>(a));" in source and "using opmath_t = at::opmath_type<scalar_t>;" in source
    assert "cbrt_portable" not in source and "c10/util/cbrt.h" not in source
    assert "AT_DISPATCH_FLOATING_TYPES_AND2(" in source and "REGISTER_DISPATCH(cbrt_stub, &cbrt_kernel_cuda)" in source


def test_the_probes_compile_what_the_cuda_kernel_runs_and_no_removed_header() -> None:
    source = sass_model.probe_source()
    assert "c10/util/cbrt.h" not in source and "cbrt_portable" not in source
    for dtype, cpp in sass_model.DTYPES.items():
        assert f"libdevice_{dtype}(" in source and f"copy_{dtype}(" in source and f"portable_{dtype}(" not in source
        assert f"::cbrt(static_cast<at::opmath_type<{cpp}>>(a))" in source


def test_the_recorded_portable_counts_are_kept_and_labelled() -> None:
    committed = sass_model.load_counts()
    assert set(committed["recorded"]) == {"portable"} and "4e9753b" in committed["recorded"]["portable"]
    fresh = {arch: {d: {k: {c: 0.0 for c in CLASSES} for k in sass_model.MEASURED} for d in sass_model.DTYPES}
             for arch in sass_model.ARCHS}
    merged = sass_model.with_recorded({"nvcc": "release 0", "counts": fresh}, committed)
    for arch in sass_model.ARCHS:
        for dtype in sass_model.DTYPES:
            assert list(merged["counts"][arch][dtype]) == list(sass_model.KERNELS)
            assert merged["counts"][arch][dtype]["portable"] == committed["counts"][arch][dtype]["portable"]
            assert merged["counts"][arch][dtype]["libdevice"] == fresh[arch][dtype]["libdevice"]
    assert "The portable rows are recorded" in throughput_model.generated_section(committed)


def test_the_shipped_prediction_is_the_chosen_kernels() -> None:
    for dtype, by_kernel in throughput_model.predictions().items():
        kernel, fraction = throughput_model.prediction_of_shipped(dtype)
        assert fraction == by_kernel[kernel]


NO_TOOLS = sass_model.find_tool("nvcc") is None or sass_model.find_tool("cuobjdump") is None


@pytest.mark.skipif(NO_TOOLS, reason="needs nvcc and cuobjdump (CUDA toolkit, or the copy Triton ships)")
def test_the_probes_compile_and_every_count_is_measured() -> None:
    pytest.importorskip("torch")
    measured = sass_model.measure()
    assert set(measured["counts"]) == set(sass_model.ARCHS)
    for by_dtype in measured["counts"].values():
        assert set(by_dtype) == set(sass_model.DTYPES)
        for by_kernel in by_dtype.values():
            assert all(sum(c.values()) > 0 for c in by_kernel.values())
    committed = sass_model.load_counts()
    if committed["nvcc"] == measured["nvcc"]:
        assert measured == committed, "rerun `python -m scripts.gpu.sass_model --write-doc`"

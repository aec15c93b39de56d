"""`scripts/build_llama_server.py` builds for the instruction sets the CPU lists, keyed by them."""

from __future__ import annotations

import pytest

from scripts import build_llama_server as build

AVX512_MACHINE = (
    "processor\t: 0\nmodel name\t: Intel(R) Xeon(R) Processor\n"
    "flags\t\t: fpu sse sse2 ssse3 fma cx16 sse4_1 sse4_2 avx f16c bmi1 avx2 bmi2 "
    "avx512f avx512dq avx512ifma avx512cd avx512bw avx512vl avx_vnni avx512_bf16 "
    "avx512vbmi avx512_vnni amx_bf16 amx_tile amx_int8\n\n"
    "processor\t: 1\nflags\t\t: fpu sse sse2\n"
)
AVX2_MACHINE = "flags\t\t: fpu sse sse2 ssse3 fma sse4_1 sse4_2 avx f16c bmi1 avx2 bmi2\n"


def test_an_avx512_machine_gets_avx512_and_its_dot_products_but_never_amx() -> None:
    args = build.cpu_cmake_args(AVX512_MACHINE, "x86_64")
    assert args == [
        "-DGGML_NATIVE=OFF",
        "-DGGML_AVX2=ON",
        "-DGGML_FMA=ON",
        "-DGGML_F16C=ON",
        "-DGGML_BMI2=ON",
        "-DGGML_AVX_VNNI=ON",
        "-DGGML_AVX512=ON",
        "-DGGML_AVX512_VBMI=ON",
        "-DGGML_AVX512_VNNI=ON",
        "-DGGML_AVX512_BF16=ON",
    ]
    assert not any("AMX" in arg for arg in args)


def test_an_avx2_machine_gets_avx2_only() -> None:
    assert build.cpu_cmake_args(AVX2_MACHINE, "x86_64") == [
        "-DGGML_NATIVE=OFF",
        "-DGGML_AVX2=ON",
        "-DGGML_FMA=ON",
        "-DGGML_F16C=ON",
        "-DGGML_BMI2=ON",
    ]


def test_avx512_extensions_need_the_whole_avx512_base() -> None:
    partial = "flags : avx2 fma f16c avx512f avx512cd avx512_vnni avx512vbmi\n"  # no bw, dq, vl
    args = build.cpu_cmake_args(partial, "x86_64")
    assert args == ["-DGGML_NATIVE=OFF", "-DGGML_AVX2=ON", "-DGGML_FMA=ON", "-DGGML_F16C=ON"]


@pytest.mark.parametrize(
    ("cpuinfo", "machine"),
    [(AVX512_MACHINE, "aarch64"), ("processor : 0\n", "x86_64"), ("", "x86_64")],
)
def test_elsewhere_ggml_chooses_for_itself(cpuinfo: str, machine: str) -> None:
    assert build.cpu_cmake_args(cpuinfo, machine) == []


def test_machines_with_other_instruction_sets_never_share_a_cached_build() -> None:
    avx512 = build.cache_key(build.cpu_cmake_args(AVX512_MACHINE, "x86_64"))
    avx2 = build.cache_key(build.cpu_cmake_args(AVX2_MACHINE, "x86_64"))
    assert avx512 != avx2
    assert avx512 == build.cache_key(build.cpu_cmake_args(AVX512_MACHINE, "x86_64"))

"""Tests for interconnect.catalog.gpus (and its face interconnect.devices).

Values against the vendors' datasheets named in each record's ``source``:

* NVIDIA prints sparse figures (2:4 sparsity, marked "*"): dense = printed / 2.
  A100 datasheet: BF16 624* TFLOPS; H100/H200 SXM: BF16 1,979*, FP8 3,958*; HGX B200 (8 GPUs):
  FP16/BF16 36 PFLOPS*; DGX B200 (8 GPUs): FP8 72 PFLOPS*, FP4 144 PFLOPS*, 1,440 GB, 64 TB/s;
  GB200 NVL72 (72 GPUs): BF16 360, FP8 720, FP4 1,440 PFLOPS*, 13.4 TB, 576 TB/s, NVLink 130 TB/s.
* AMD prints dense and sparse: MI300X and MI325X BF16 1,307.4 / 2,614.9 (sparse), FP8 2,614.9 /
  5,229.8; MI355X BF16 2.5 / 5.0 PFLOPS, FP8 5.0 / 10.1, MXFP4 10 dense; Infinity Fabric 896 GB/s
  aggregate (7 links x 128 GB/s bidirectional) on MI300X/MI325X.
* HBM capacity is binary: nvidia-smi shows 81,559 MiB on an "80 GB" H100, 143,771 MiB on a
  "141 GB" H200, 189,471 MiB on a GB200; ROCm lists VRAM 192, 256, 288 GiB.
"""

import doctest

import pytest

import interconnect.catalog.gpus as gpus_mod
from interconnect import devices, links

GiB = 2**30
MiB = 2**20
ALL = devices.gpus(through=None)


def test_face_is_the_catalog():
    assert devices.get_gpu is gpus_mod.get_gpu and devices.GPU is gpus_mod.GPU


def test_b200_from_the_datasheets():
    b = devices.get_gpu("B200")
    assert b.peak_flops == pytest.approx(36e15 / 8 / 2)       # sparse figure halved, per GPU
    assert b.peak_flops_fp8 == pytest.approx(72e15 / 8 / 2)
    assert b.peak_flops_fp4 == pytest.approx(144e15 / 8 / 2)
    assert b.memory == 1440 / 8 * GiB
    assert b.memory_bandwidth == pytest.approx(64e12 / 8)
    assert links.get_link(b.nvlink).gpu == "B200"


def test_gb200_per_gpu_of_nvl72():
    g = devices.get_gpu("GB200")
    assert g.peak_flops == pytest.approx(360e15 / 72 / 2)
    assert g.peak_flops_fp8 == pytest.approx(720e15 / 72 / 2)
    assert g.peak_flops_fp4 == pytest.approx(1440e15 / 72 / 2)
    assert g.memory_bandwidth == pytest.approx(576e12 / 72)
    assert g.scale_up_bandwidth == pytest.approx(130e12 / 72 / 2, rel=0.01)   # 1.8 TB/s bidirectional
    assert g.memory == 186 * GiB and round(13.4e12 / 72 / 1e9) == 186


@pytest.mark.parametrize("name, sparse_bf16, sparse_fp8", [
    ("A100", 624e12, None), ("A100-40GB", 624e12, None),
    ("H100", 1979e12, 3958e12), ("H200", 1979e12, 3958e12),
])
def test_nvidia_dense_is_the_printed_sparse_halved(name, sparse_bf16, sparse_fp8):
    g = devices.get_gpu(name)
    assert g.peak_flops == pytest.approx(sparse_bf16 / 2, rel=1e-3)
    if sparse_fp8 is None:
        assert g.peak_flops_fp8 is None
    else:
        assert g.peak_flops_fp8 == pytest.approx(sparse_fp8 / 2, rel=1e-3)


@pytest.mark.parametrize("name, bf16, fp8, fp4, memory_gib, hbm, scale_up, power", [
    ("MI300X", 1307.4e12, 2614.9e12, None, 192, 5.3e12, 7 * 64e9, 750),     # AMD MI300X datasheet
    ("MI325X", 1307.4e12, 2614.9e12, None, 256, 6.0e12, 7 * 64e9, 1000),    # AMD MI325X datasheet
    ("MI355X", 2.5e15, 5.0e15, 10e15, 288, 8.0e12, 7 * 153.6e9 / 2, 1400),  # AMD MI355X datasheet
])
def test_amd_against_the_datasheets(name, bf16, fp8, fp4, memory_gib, hbm, scale_up, power):
    g = devices.get_gpu(name)
    assert g.vendor == "AMD" and g.nvlink is None
    assert g.peak_flops == pytest.approx(bf16, rel=0.01)
    assert g.peak_flops_fp8 == pytest.approx(fp8, rel=0.01)
    assert (g.peak_flops_fp4 is None) if fp4 is None else g.peak_flops_fp4 == pytest.approx(fp4, rel=0.01)
    assert g.memory == memory_gib * GiB
    assert g.memory_bandwidth == pytest.approx(hbm)
    assert g.scale_up_bandwidth == pytest.approx(scale_up)
    assert g.power == power


def test_amd_flops_from_the_clock():
    """CUs x clock x FP8 FLOP per CU per clock (4,096 on CDNA 3, 8,192 on CDNA 4)."""
    assert devices.get_gpu("MI300X").peak_flops_fp8 == pytest.approx(304 * 2.1e9 * 4096, rel=1e-4)
    assert devices.get_gpu("MI355X").peak_flops_fp8 == pytest.approx(256 * 2.4e9 * 8192, rel=1e-4)


@pytest.mark.parametrize("name, gib", [("V100", 32), ("A100-40GB", 40), ("A100", 80), ("H100", 80),
                                       ("H200", 141), ("B200", 180), ("GB200", 186)])
def test_hbm_capacity_is_binary(name, gib):
    assert devices.get_gpu(name).memory == gib * GiB


@pytest.mark.parametrize("name, smi_mib", [("H100", 81_559), ("H200", 143_771), ("GB200", 189_471)])
def test_nvidia_smi_fits_the_binary_reading_not_the_decimal(name, smi_mib):
    """nvidia-smi's total is a little under the binary capacity and above the decimal one."""
    g = devices.get_gpu(name)
    decimal = g.memory / GiB * 1e9
    assert decimal < smi_mib * MiB < g.memory
    assert g.memory - smi_mib * MiB < 0.01 * g.memory


@pytest.mark.parametrize("g", ALL, ids=lambda g: g.name)
def test_every_record_is_sourced_positive_and_linked(g):
    assert g.source and g.vendor in devices.VENDORS
    assert g.peak_flops > 0 and g.memory > 0 and g.memory_bandwidth > 0 and g.power > 0
    assert g.scale_up_bandwidth > 0 and 2000 <= g.year <= 2030
    for f in (g.peak_flops_fp8, g.peak_flops_fp4):
        assert f is None or f > 0
    if g.peak_flops_fp8 is not None:          # FP8 is twice the 16-bit rate on every part here
        assert g.peak_flops_fp8 == pytest.approx(2 * g.peak_flops, rel=1e-3)
    if g.peak_flops_fp4 is not None:
        assert g.peak_flops_fp4 == pytest.approx(2 * g.peak_flops_fp8, rel=1e-3)
    assert g.memory % GiB == 0                # binary capacities
    assert links.get_link(g.pcie).family == "PCIe"
    if g.vendor == "NVIDIA":
        nv = links.get_link(g.nvlink)
        assert nv.family == "NVLink" and nv.bandwidth == g.scale_up_bandwidth
    else:
        assert g.nvlink is None
    assert g.variant_of is None or devices.get_gpu(g.variant_of).vendor == g.vendor


def test_default_list_ends_at_h100():
    assert [g.name for g in devices.gpus()] == ["V100", "A100", "H100"]
    assert [g.name for g in devices.gpus(through="A100")] == ["V100", "A100"]
    assert [g.name for g in devices.gpus(through="A100-40GB")] == ["V100", "A100-40GB"]
    assert [g.year for g in ALL] == sorted(g.year for g in ALL)
    assert {g.name for g in ALL} >= {"V100", "A100-40GB", "A100", "H100", "H200", "B200", "GB200",
                                     "MI300X", "MI325X", "MI355X"}


def test_vendor_filter():
    assert {g.vendor for g in devices.gpus(through=None, vendor="AMD")} == {"AMD"}
    assert [g.name for g in devices.gpus(vendor="nvidia")] == ["V100", "A100", "H100"]
    assert devices.gpus(vendor="AMD") == ()
    with pytest.raises(ValueError, match="vendor='Intel'.*NVIDIA, AMD"):
        devices.gpus(vendor="Intel")


def test_names_are_case_insensitive():
    assert devices.get_gpu("h200") is devices.get_gpu("H200")
    assert devices.get_gpu("a100_40gb") is devices.get_gpu("A100-40GB")


@pytest.mark.parametrize("bad", ["B300", "H300", 3, None])
def test_unknown_name_is_a_value_error(bad):
    with pytest.raises(ValueError, match=r"name=.*allowed: V100, A100-40GB"):
        devices.get_gpu(bad)
    with pytest.raises(ValueError, match="name="):
        devices.gpus(through=bad if bad is not None else "x")


def test_close_matches_are_named():
    with pytest.raises(ValueError, match="close matches: .*H200"):
        devices.get_gpu("H-200")


def test_doctests():
    assert doctest.testmod(gpus_mod).failed == 0

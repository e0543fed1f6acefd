"""Tests for interconnect.catalog.gpus (and its face interconnect.devices).

Values against the vendors' datasheets named in each record's ``source``: H100 SXM5 BF16
1,979 TFLOPS with sparsity (989.4 dense); DGX B200 1,440 GB and 64 TB/s for 8 GPUs; HGX B200
36 PFLOPS FP16/BF16 with sparsity for 8 GPUs.
"""

import doctest

import pytest

import interconnect.catalog.gpus as gpus_mod
from interconnect import devices, links


def test_face_is_the_catalog():
    assert devices.get_gpu is gpus_mod.get_gpu and devices.GPU is gpus_mod.GPU


def test_b200_from_the_datasheets():
    b = devices.get_gpu("B200")
    assert b.peak_flops == pytest.approx(36e15 / 8 / 2)       # sparse figure halved, per GPU
    assert b.memory == 1440 / 8 * 2**30
    assert b.memory_bandwidth == pytest.approx(64e12 / 8)
    assert links.get_link(b.nvlink).gpu == "B200"


@pytest.mark.parametrize("g", devices.gpus(through=None), ids=lambda g: g.name)
def test_every_record_is_sourced_and_linked(g):
    assert g.source
    assert links.get_link(g.nvlink).family == "NVLink"
    assert links.get_link(g.pcie).family == "PCIe"
    assert g.peak_flops > 0 and g.memory > 0 and g.memory_bandwidth > 0 and g.power > 0


def test_default_list_ends_at_h100():
    assert [g.name for g in devices.gpus()] == ["V100", "A100", "H100"]
    assert [g.name for g in devices.gpus(through="A100")] == ["V100", "A100"]
    assert [g.year for g in devices.gpus(through=None)] == sorted(g.year for g in devices.gpus(through=None))


def test_unknown_name_is_a_value_error():
    with pytest.raises(ValueError, match="name"):
        devices.get_gpu("B300")


def test_doctests():
    assert doctest.testmod(gpus_mod).failed == 0

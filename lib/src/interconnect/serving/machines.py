"""Serving machines that are not training machines: eight H100 PCIe cards on PCIe 5.0.

The presets of :mod:`interconnect.parallel.machines` are the DGX-class machines a training run
uses, each built from a GPU record of :mod:`interconnect.catalog.gpus`. Inference is also run
on servers of PCIe cards, whose GPUs reach each other only through PCIe switches (or, in pairs,
an NVLink bridge). :func:`pcie_h100` is such a server of H100 PCIe cards, a GPU with fewer
SMs, lower clocks and slower HBM than the H100 SXM of the DGX.

The H100 PCIe, from NVIDIA's product brief and datasheet (NVIDIA writes the tensor figures with
2:4 sparsity; the dense ones are half):

* 114 SMs (the SXM5 has 132), up to 350 W;
* BF16 tensor 1,513 TFLOPS with sparsity, 756.5 dense; FP8 3,026 with sparsity, 1,513 dense;
* 80 GB of HBM2e at 2.0 TB/s (read as 80 GiB, binary, as every record of the GPU catalog);
* host interface PCIe 5.0 x16 (128 GB/s bidirectional); an optional NVLink bridge joins two
  cards at 600 GB/s bidirectional.

What no measurement of this card gives, the preset takes from the H100 SXM and says so: the
fraction of the peak its large GEMMs reach (``gemm_gpu="H100"``:
:func:`~interconnect.parallel.ceiling_fraction` of the SXM, applied to this card's peak), the
fused-attention fraction, and the fraction of link bandwidth collectives reach (the NVLink 4
figure, as the library holds no measurement of collectives over PCIe). The network between
servers is the DGX H100's (one NDR NIC per GPU), which a PCIe server may not have.

References
----------
NVIDIA H100 PCIe GPU product brief, PB-11133-001_v02, November 2022.
NVIDIA H100 Tensor Core GPU datasheet, 2023 (H100 PCIe column).
"""

from __future__ import annotations

from dataclasses import replace

__all__ = ["pcie_h100", "H100_PCIE"]

#: The H100 PCIe card's figures (SI units; tensor peaks dense): the product brief and datasheet.
H100_PCIE = {"sms": 114, "peak_flops": 756.5e12, "peak_flops_fp8": 1513e12, "memory_bandwidth": 2.0e12,
             "memory": 80 * 2**30, "power": 350.0, "host_link": "pcie5x16", "nvlink_bridge": 600e9 / 2}


def pcie_h100():
    """Eight H100 PCIe cards whose only path to each other is PCIe 5.0 x16 (no NVLink bridges).

    The card's own peaks and HBM bandwidth (:data:`H100_PCIE`), the ``pcie5x16`` link of the
    catalog as the link between GPUs (bandwidth per direction and latency), and the rest from
    the DGX H100 preset as the module says (GEMM, attention and collective efficiencies,
    network). NVLink bridges, which join pairs of cards at 300 GB/s per direction, are left
    out: a :class:`~interconnect.parallel.Cluster` has one link between any two GPUs of a node.

    Returns
    -------
    interconnect.parallel.Cluster

    Examples
    --------
    >>> c = pcie_h100()
    >>> round(c.intra_bandwidth / 1e9, 1), c.memory_bandwidth / 1e12, c.peak_flops / 1e12, c.gemm_gpu
    (63.0, 2.0, 756.5, 'H100')
    """
    from ..links import get_link
    from ..parallel.machines import machine

    pcie = get_link(H100_PCIE["host_link"])
    return replace(machine("dgx-h100"), intra_bandwidth=pcie.bandwidth, intra_latency=pcie.latency,
                   peak_flops=H100_PCIE["peak_flops"], peak_flops_fp8=H100_PCIE["peak_flops_fp8"],
                   memory_bandwidth=H100_PCIE["memory_bandwidth"])

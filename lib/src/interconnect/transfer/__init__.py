"""Transfer: how bytes move between GPUs (layer 3, protocols as models).

Each function prices one transfer of ``nbytes`` over a topology from
:mod:`interconnect.topology` and returns a :class:`Transfer`: total time, the nodes
crossed, the effective bandwidth and the steps that add up to the time.

The mechanisms
--------------
* :func:`p2p_copy` - CUDA peer-to-peer (GPUDirect P2P): one GPU's copy engine writes
  straight into the other's memory, over NVLink where the pair has a direct or
  NVSwitch route, else over PCIe switches. PCIe P2P is allowed only when the route
  stays below one CPU root complex (``PIX``/``PXB``/``PHB`` in ``nvidia-smi topo
  -m``); across the socket interconnect (``SYS``: QPI/UPI) it is treated as
  unsupported, as ``cudaDeviceCanAccessPeer`` reports on many platforms - the same
  condition NVIDIA states for GPUDirect RDMA ("the two devices must share the same
  upstream PCI Express root complex").
* :func:`host_staged_copy` - what happens without P2P: device-to-host into a pinned
  host buffer, then host-to-device. Two copies through the root complex, optionally
  pipelined in chunks.
* :func:`gpudirect_rdma` - across machines, the NIC reads GPU memory directly over
  PCIe (GPUDirect RDMA, Kepler-class GPUs and CUDA 5.0 onwards) and the remote NIC
  writes into the remote GPU.
* :func:`bounce_buffer` - the same without GPUDirect RDMA: D2H copy, RDMA from host
  memory to host memory, H2D copy.

Every model is latency + size / bottleneck bandwidth per stage (the Hockney
alpha-beta model), stages in sequence, or in a pipeline when chunked. Peak link
bandwidths are used: measured copies reach 80-90 % of them (see
:mod:`interconnect.links`). Software overheads (cudaMemcpy launch, a few us;
registration of host buffers) are not modelled.

References
----------
NVIDIA, *GPUDirect RDMA* documentation, sec. 1 "Overview" and 1.1 (Kepler-class GPUs
and CUDA 5.0; same upstream PCIe root complex), https://docs.nvidia.com/cuda/gpudirect-rdma/.
NVIDIA, *CUDA Runtime API*, "Peer Device Memory Access" (cudaDeviceCanAccessPeer,
cudaDeviceEnablePeerAccess, cudaMemcpyPeer).
T. Schroeder, "Peer-to-Peer & Unified Virtual Addressing", NVIDIA CUDA webinar, 2011.
R. W. Hockney, "The communication challenge for MPP", Parallel Computing 20(3), 1994.
"""


from .base import (
    HOST_MEMORY_BANDWIDTH,
    HOST_MEMORY_BANDWIDTH_DDR5,
    STEP_KINDS,
    Step,
    Transfer,
    concurrent_host_reads,
    host_of,
    host_staged_copy,
    p2p_copy,
    p2p_supported,
)
from .network import bounce_buffer, gpudirect_rdma, mechanisms

__all__ = ["Transfer", "Step", "STEP_KINDS", "HOST_MEMORY_BANDWIDTH", "HOST_MEMORY_BANDWIDTH_DDR5", "p2p_supported",
           "p2p_copy",
           "host_of", "concurrent_host_reads", "host_staged_copy", "gpudirect_rdma", "bounce_buffer",
           "mechanisms"]

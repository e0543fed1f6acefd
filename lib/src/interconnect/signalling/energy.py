"""Power and the bandwidth wall: watts from pJ/bit, beachfront bandwidth of a die edge.

Part of :mod:`interconnect.signalling`; see its docstring for units and references.
"""

from __future__ import annotations

from .._validate import as_nonnegative, as_positive
from .coding import _efficiency


# ----------------------------------------------------------------------------------
# Power and the bandwidth wall (the energy table is catalog.media.ENERGY)
# ----------------------------------------------------------------------------------
def link_power(bandwidth, pj_per_bit):
    """Power to move ``bandwidth`` bytes/s at ``pj_per_bit`` picojoules per bit, W.

    ``bandwidth * 8 * pj_per_bit * 1e-12``. Pass the traffic you count: with the
    vendors' convention (power of one end / rate in one direction, see the module
    docstring) the per-direction bandwidth gives the power at *one end*, the
    bidirectional bandwidth the power of *both ends* together.

    Parameters
    ----------
    bandwidth : float or array
        Bytes/s, >= 0.
    pj_per_bit : float or array
        Picojoules per bit, > 0.

    Returns
    -------
    float or ndarray
        Watts.

    Examples
    --------
    >>> link_power(1.8e12, 10.0)   # 1.8 TB/s (both directions) at 10 pJ/bit
    144.0
    """
    bw = as_nonnegative("bandwidth", bandwidth, "bytes/s")
    e = as_positive("pj_per_bit", pj_per_bit, "pJ/bit")
    return bw * 8.0 * e * 1e-12


def bandwidth_wall(edge_length, lanes_per_mm, lane_rate, efficiency=1.0):
    """Beachfront bandwidth: the most off-chip bandwidth a die edge can carry, bytes/s per direction.

    Off-chip I/O leaves a die through its edge ("beachfront", "shoreline"): the
    bandwidth is edge length x lanes per mm of edge x lane rate. The edge grows
    with the square root of the die area while compute grows with the area, which is
    why I/O bandwidth per FLOP falls as chips grow.

    Parameters
    ----------
    edge_length : float or array
        Millimetres of die edge given to I/O, > 0.
    lanes_per_mm : float or array
        Lanes (each one transmit and one receive path) per mm of edge, > 0.
    lane_rate : float or array
        Bits per second per lane per direction, > 0.
    efficiency : float, array or str
        Line-code efficiency or a key of :data:`ENCODINGS`.

    Returns
    -------
    float or ndarray
        Bytes/s per direction.
    """
    e = as_positive("edge_length", edge_length, "mm")
    d = as_positive("lanes_per_mm", lanes_per_mm, "lanes/mm")
    r = as_positive("lane_rate", lane_rate, "bit/s")
    return e * d * r * _efficiency(efficiency) / 8.0

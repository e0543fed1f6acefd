"""Units: SI constants and display formatting.

Every quantity in the library's API is in SI base units: bytes, seconds, bytes/s, FLOP
and FLOP/s. The constants here turn a spec-sheet number into those units
(``900 * GB`` is 9e11 bytes, ``400 * Gbps`` is 5e10 bytes/s) and the formatters turn
them back into text for readers.

Two conventions the field mixes up, made explicit here:

* **Decimal vs binary sizes.** ``GB = 1e9`` bytes (used for bandwidths and on spec
  sheets), ``GiB = 2**30`` bytes (used for memory capacity). One GiB is 7.4 % larger
  than one GB.
* **Per-direction vs bidirectional bandwidth.** The library stores every link's
  bandwidth *per direction* (what one GPU can push to its peer while the peer pushes
  the same amount back). Vendors often quote the sum of both directions
  ("bidirectional", "duplex", "aggregate"); :func:`bidirectional` and
  :func:`per_direction` convert, and the formatters always say which one is shown.

References
----------
BIPM, *The International System of Units (SI)*, 9th ed., 2019.
IEC 80000-13:2008, binary prefixes (KiB, MiB, GiB).
"""

from __future__ import annotations

import numpy as np

from ._stable import stable
from ._validate import as_nonnegative, as_positive, choice

# sizes, decimal (SI) and binary (IEC), in bytes
B = 1.0
KB, MB, GB, TB, PB = 1e3, 1e6, 1e9, 1e12, 1e15
KiB, MiB, GiB, TiB = float(2**10), float(2**20), float(2**30), float(2**40)
bit = 1 / 8  # one bit in bytes

# rates in bytes/s
Bps = 1.0
KBps, MBps, GBps, TBps = 1e3, 1e6, 1e9, 1e12
Mbps, Gbps, Tbps = 1e6 / 8, 1e9 / 8, 1e12 / 8  # bits per second, expressed in bytes/s

# signalling rate (transfers per second per lane)
GT = 1e9  # 1 GT/s = 1e9 transfers/s

# time, s
s = 1.0
ms, us, ns = 1e-3, 1e-6, 1e-9
minute, hour, day = 60.0, 3600.0, 86400.0

# compute
GFLOP, TFLOP, PFLOP = 1e9, 1e12, 1e15
GFLOPS, TFLOPS, PFLOPS = 1e9, 1e12, 1e15

# power
W, kW, MW = 1.0, 1e3, 1e6

__all__ = [
    "B", "KB", "MB", "GB", "TB", "PB", "KiB", "MiB", "GiB", "TiB", "bit",
    "Bps", "KBps", "MBps", "GBps", "TBps", "Mbps", "Gbps", "Tbps", "GT",
    "s", "ms", "us", "ns", "minute", "hour", "day",
    "GFLOP", "TFLOP", "PFLOP", "GFLOPS", "TFLOPS", "PFLOPS", "W", "kW", "MW",
    "bidirectional", "per_direction", "bits_to_bytes", "bytes_to_bits",
    "fmt_bytes", "fmt_bandwidth", "fmt_time", "fmt_flops", "fmt_si",
]


def bidirectional(per_direction_bandwidth):
    """Bidirectional (sum of both directions) bandwidth from a per-direction one.

    Parameters
    ----------
    per_direction_bandwidth : float or array
        Bytes/s in one direction.

    Returns
    -------
    float or ndarray
        Bytes/s counted in both directions, i.e. twice the input.

    Examples
    --------
    >>> bidirectional(450e9) / 1e9     # H100 NVLink: 450 GB/s per direction is the quoted 900 GB/s
    900.0
    """
    return 2.0 * as_nonnegative("per_direction_bandwidth", per_direction_bandwidth, "bytes/s")


def per_direction(bidirectional_bandwidth):
    """Per-direction bandwidth from a bidirectional (both directions summed) one.

    Parameters
    ----------
    bidirectional_bandwidth : float or array
        Bytes/s, both directions added.

    Returns
    -------
    float or ndarray
        Bytes/s in one direction: half the input.

    Examples
    --------
    >>> per_direction(900e9) / 1e9     # the quoted 900 GB/s of H100 NVLink, per direction
    450.0
    """
    return 0.5 * as_nonnegative("bidirectional_bandwidth", bidirectional_bandwidth, "bytes/s")


def bits_to_bytes(bits):
    """Bits to bytes (divide by 8).

    Examples
    --------
    >>> bits_to_bytes(400e9) / 1e9     # a 400 Gb/s NDR port in GB/s
    50.0
    """
    return as_nonnegative("bits", bits) / 8.0


def bytes_to_bits(nbytes):
    """Bytes to bits (multiply by 8).

    Examples
    --------
    >>> bytes_to_bits(50e9) / 1e9      # 50 GB/s in Gb/s
    400.0
    """
    return as_nonnegative("nbytes", nbytes) * 8.0


_DEC = [(1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"), (1.0, "")]
_BIN = [(2.0**50, "Pi"), (2.0**40, "Ti"), (2.0**30, "Gi"), (2.0**20, "Mi"), (2.0**10, "Ki"), (1.0, "")]


def _num(x, digits):
    """Format with ``digits`` significant figures, no exponent, trailing zeros dropped."""
    if x == 0:
        return "0"
    # the same text on every CPU and BLAS (interconnect._stable); a large number keeps all
    # its integer digits (2112 days reads "2112", not "2110")
    x = stable(x, max(digits, int(np.floor(np.log10(abs(x)))) + 1))
    text = f"{x:.{digits}g}"
    if "e" in text:
        text = f"{x:.{max(digits - 1 - int(np.floor(np.log10(abs(x)))), 0)}f}"
    return text


def fmt_si(value, unit, digits=3):
    """``value`` with a decimal SI prefix, e.g. ``fmt_si(4.5e11, 'B/s') == '450 GB/s'``.

    Examples
    --------
    >>> fmt_si(4.5e11, "B/s"), fmt_si(32e9, "T/s")      # NVLink 4 per GPU; a PCIe 5.0 lane
    ('450 GB/s', '32 GT/s')
    """
    value = float(value)
    for scale, prefix in _DEC:
        if abs(value) >= scale:
            return f"{_num(value / scale, digits)} {prefix}{unit}"
    return f"{_num(value, digits)} {unit}"


def fmt_bytes(nbytes, binary=True, digits=3):
    """A size in bytes for display: binary prefixes (GiB) by default, decimal (GB) if asked.

    Examples
    --------
    >>> fmt_bytes(2**30)
    '1 GiB'
    >>> fmt_bytes(1e9, binary=False)
    '1 GB'
    >>> fmt_bytes(80 * 2**30)            # an "80 GB" H100: HBM capacity is binary
    '80 GiB'
    >>> fmt_bytes(80e9)                 # the same "80 GB" misread as 80e9 bytes
    '74.5 GiB'
    """
    nbytes = float(as_nonnegative("nbytes", nbytes, "bytes"))
    table = _BIN if binary else _DEC
    for scale, prefix in table:
        if nbytes >= scale:
            return f"{_num(nbytes / scale, digits)} {prefix}B"
    return f"{_num(nbytes, digits)} B"


def fmt_bandwidth(bandwidth, direction="per direction", digits=3):
    """A bandwidth in bytes/s for display in decimal GB/s, always saying the direction.

    Parameters
    ----------
    bandwidth : float
        Bytes/s.
    direction : {"per direction", "bidirectional"}
        Which convention ``bandwidth`` is in; it is written after the number.

    Examples
    --------
    >>> fmt_bandwidth(450e9)
    '450 GB/s per direction'
    """
    direction = choice("direction", direction, ["per direction", "bidirectional"])
    bandwidth = float(as_nonnegative("bandwidth", bandwidth, "bytes/s"))
    return f"{fmt_si(bandwidth, 'B/s', digits)} {direction}"


def fmt_time(seconds, digits=3):
    """A duration in seconds as ns / µs / ms / s / min / h, whichever reads best.

    Examples
    --------
    >>> fmt_time(2.5e-6)
    '2.5 µs'
    """
    t = float(as_nonnegative("seconds", seconds, "s"))
    if t == 0:
        return "0 s"
    units = [(ns, "ns", 1e-6), (us, "µs", 1e-3), (ms, "ms", 1.0), (1.0, "s", 120.0),
             (minute, "min", 2 * hour), (hour, "h", 2 * day), (day, "days", float("inf"))]
    for scale, name, upper in units:
        # choose the unit after rounding, so 0.9999e-6 s reads "1 µs", not "1000 ns"
        if float(_num(t, digits)) < upper or name == "days":
            return f"{_num(t / scale, digits)} {name}"
    raise AssertionError("unreachable")


def fmt_flops(flops_per_s, digits=3):
    """A compute rate in FLOP/s for display, e.g. ``'989 TFLOP/s'``.

    Examples
    --------
    >>> fmt_flops(989.4e12)            # H100 SXM dense BF16 peak
    '989 TFLOP/s'
    """
    return fmt_si(as_positive("flops_per_s", flops_per_s, "FLOP/s"), "FLOP/s", digits)

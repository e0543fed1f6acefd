"""Line codes and FEC: encoding efficiency, usable rate of a link, FEC block time.

Part of :mod:`interconnect.signalling`; see its docstring for units and references.
"""

from __future__ import annotations

from .._validate import as_count, as_fraction, as_positive
from ..catalog.media import ENCODINGS


# ----------------------------------------------------------------------------------
# Line codes and FEC (the table is catalog.media.ENCODINGS)
# ----------------------------------------------------------------------------------
def _efficiency(efficiency):
    if isinstance(efficiency, str):
        return encoding_efficiency(efficiency)
    return as_fraction("efficiency", efficiency, 0.0, 1.0)


def encoding_efficiency(encoding, exact=False):
    """Fraction of the line rate that carries data after the line code and FEC.

    Parameters
    ----------
    encoding : str
        A key of :data:`ENCODINGS` (case-insensitive), e.g. ``"128b/130b"``.
    exact : bool
        Return a :class:`fractions.Fraction` instead of a float.

    Returns
    -------
    float or Fraction
        In (0, 1].

    Raises
    ------
    ValueError
        If ``encoding`` is unknown; the message lists the known names.

    Examples
    --------
    >>> encoding_efficiency("256b/257b+RS(544,514)", exact=True)
    Fraction(16, 17)
    """
    if not isinstance(encoding, str):
        raise ValueError(f"encoding={encoding!r} is not a string; allowed: {', '.join(ENCODINGS)}")
    norm = {k.lower().replace(" ", ""): k for k in ENCODINGS}
    key = encoding.strip().lower().replace(" ", "")
    if key not in norm:
        raise ValueError(f"encoding={encoding!r} is unknown; allowed: {', '.join(ENCODINGS)}")
    eff = ENCODINGS[norm[key]][0]
    return eff if exact else float(eff)


def overhead_fraction(encoding):
    """Fraction of the line rate spent on the code, ``1 - efficiency`` (8b/10b: 0.2)."""
    return 1.0 - encoding_efficiency(encoding)


def usable_rate(lanes, line_rate, efficiency):
    """Data bandwidth of a link after line coding, bytes/s per direction.

    ``lanes * line_rate * efficiency / 8``. Still a peak: packet headers and flow
    control come out of it (see :mod:`~interconnect.links`).

    Parameters
    ----------
    lanes : int or array
        Lanes per direction, >= 1.
    line_rate : float or array
        Bits per second per lane per direction before coding (GT/s x 1e9 for PCIe).
    efficiency : float, array or str
        Fraction in (0, 1], or a key of :data:`ENCODINGS`.

    Returns
    -------
    float or ndarray
        Bytes/s per direction.

    Examples
    --------
    >>> round(usable_rate(1, 32e9, "128b/130b") / 1e9, 4)   # PCIe 5.0 x1
    3.9385
    """
    n = as_count("lanes", lanes, 1)
    r = as_positive("line_rate", line_rate, "bit/s")
    return n * r * _efficiency(efficiency) / 8.0


def fec_block_time(block_bits, rate):
    """Time to receive one FEC block at ``rate`` bit/s, s: a floor on FEC latency.

    A block code can correct a block only once all of it has arrived, so the decoder
    adds at least one block time (plus the decoding itself) to every hop; with
    interleaving over several codewords, pass their total size.

    Parameters
    ----------
    block_bits : float or array
        Bits per block: 5440 for RS(544,514) (544 symbols of 10 bits), 5280 for
        RS(528,514), 2048 for a 256-byte PCIe 6.0 flit.
    rate : float or array
        Bits per second at which the block arrives (all lanes it is striped over).

    Returns
    -------
    float or ndarray
        Seconds.

    References
    ----------
    Sella, Moore, Zilberman, "FEC Killed the Cut-Through Switch", NEAT '18.
    """
    return as_positive("block_bits", block_bits, "bits") / as_positive("rate", rate, "bit/s")



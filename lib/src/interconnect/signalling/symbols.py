"""Symbols and bits: modulation, line and symbol rates, Nyquist frequency, PAM4's SNR cost.

Part of :mod:`interconnect.signalling`; see its docstring for units and references.
"""

from __future__ import annotations

import numpy as np

from .._validate import as_fraction, as_positive, choice

# ----------------------------------------------------------------------------------
# Symbols and bits
# ----------------------------------------------------------------------------------
#: Modulation name -> bits per symbol. NRZ is PAM2.
MODULATIONS = {"NRZ": 1, "PAM4": 2}


def bits_per_symbol(modulation):
    """Bits carried by one symbol: NRZ 1, PAM4 2.

    Parameters
    ----------
    modulation : {"NRZ", "PAM4"}
        Case-insensitive.

    Returns
    -------
    int

    Raises
    ------
    ValueError
        If ``modulation`` is not one of :data:`MODULATIONS`.
    """
    return MODULATIONS[choice("modulation", modulation, tuple(MODULATIONS))]


def _levels(modulation):
    return 2 ** bits_per_symbol(modulation)


def line_rate(baud, modulation="NRZ"):
    """Serial bit rate of one lane: symbol rate x bits per symbol.

    Parameters
    ----------
    baud : float or array
        Symbols per second (Bd), > 0.
    modulation : {"NRZ", "PAM4"}

    Returns
    -------
    float or ndarray
        Bits per second per lane per direction, before line coding.

    Examples
    --------
    >>> line_rate(53.125e9, "PAM4") / 1e9   # one 100G Ethernet / NDR InfiniBand lane
    106.25
    """
    return bits_per_symbol(modulation) * as_positive("baud", baud, "Bd")


def symbol_rate(line_rate, modulation="NRZ"):
    """Symbols per second (Bd) needed to carry ``line_rate`` bit/s: the inverse of :func:`line_rate`."""
    return as_positive("line_rate", line_rate, "bit/s") / bits_per_symbol(modulation)


def nyquist_frequency(baud):
    """Nyquist frequency of a symbol stream, Hz: half the symbol rate.

    The fastest pattern (alternating symbols) is a square wave at ``baud / 2``;
    channel loss is quoted at this frequency. PAM4 carries a given bit rate at half
    the baud of NRZ, hence half the Nyquist frequency.

    Parameters
    ----------
    baud : float or array
        Symbols per second, > 0.

    Returns
    -------
    float or ndarray
        Hz.
    """
    return as_positive("baud", baud, "Bd") / 2.0


def eye_height_fraction(modulation):
    """Ideal vertical opening of each eye as a fraction of the full swing: ``1 / (M - 1)``.

    NRZ has one eye spanning the whole swing (1); PAM4 stacks three eyes in the same
    swing, each a third as tall.
    """
    return 1.0 / (_levels(modulation) - 1)


def snr_penalty_db(modulation):
    """SNR penalty of M-level PAM against NRZ at the same peak swing, dB: ``20 log10(M - 1)``.

    With the same transmitter swing and the same noise, each of PAM-M's eyes is
    ``1/(M-1)`` as tall, so the signal-to-noise ratio per decision is that much worse
    (a voltage ratio, hence 20 log10). 0 dB for NRZ, 9.54 dB for PAM4.
    """
    return 20.0 * np.log10(_levels(modulation) - 1)


def pam4_snr_penalty_db():
    """PAM4's SNR penalty against NRZ at equal swing: ``20 log10 3`` = 9.54 dB.

    References
    ----------
    D. Maliniak (Teledyne LeCroy), "Fundamentals of PAM4", EE News Analog, 2016: each
    of PAM4's three eyes is A/3 tall, trading SNR for bandwidth.
    """
    return float(snr_penalty_db("PAM4"))


def pam4_crossover_loss_db(exponent=1.0):
    """Channel loss at NRZ's Nyquist frequency above which PAM4 costs less SNR, dB.

    At the same bit rate PAM4 runs at half the baud, so it sees the loss at half the
    frequency: ``L * 2**-exponent`` instead of ``L`` when loss grows as
    ``f**exponent``. If the equalised SNR falls dB for dB with the Nyquist loss,
    PAM4 wins once the loss it saves, ``L (1 - 2**-exponent)``, exceeds its
    :func:`pam4_snr_penalty_db`. A first-order rule, not a link budget.

    Parameters
    ----------
    exponent : float
        In (0, 2]: 1 for dielectric-dominated loss, 0.5 for skin effect.

    Returns
    -------
    float
        dB (19.1 dB for ``exponent = 1``).
    """
    k = as_fraction("exponent", exponent, 0.0, 2.0)
    return pam4_snr_penalty_db() / (1.0 - 2.0 ** (-k))



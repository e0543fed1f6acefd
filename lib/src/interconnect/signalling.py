"""Signalling: layer 1 below the link catalog, from symbols on a wire to watts.

The :mod:`~interconnect.links` catalog says what a link delivers; this module says
why. It holds the small models of the physical layer that the chapter *Physical
links* uses:

* **Symbols and bits.** A lane sends ``baud`` symbols per second; NRZ (PAM2) carries
  1 bit per symbol, PAM4 2 bits. :func:`line_rate`, :func:`symbol_rate`,
  :func:`nyquist_frequency`, :func:`eye_height_fraction`, :func:`snr_penalty_db`
  and :func:`pam4_snr_penalty_db` (``20 log10 3`` = 9.54 dB).
* **Line codes and FEC.** :data:`ENCODINGS` (8b/10b ... PCIe 6.0 flit) as exact
  fractions, :func:`encoding_efficiency`, :func:`overhead_fraction`,
  :func:`usable_rate` (bytes/s per direction), :func:`fec_block_time` (the time to
  receive one FEC block, a lower bound on FEC latency).
* **Channels.** :func:`amplitude_ratio`, :func:`trace_loss_db`, :func:`trace_reach`
  for frequency-dependent loss on a board, and a seeded eye-diagram simulation
  (:func:`simulate_waveform`, :func:`eye_diagram`, :func:`eye_opening`).
* **Reach and energy.** :data:`REACH` (how far each medium carries a lane, with the
  standard or datasheet it comes from), :data:`ENERGY` (typical pJ/bit with date and
  basis), :func:`link_power` and :func:`bandwidth_wall` (beachfront bandwidth).

The data tables (:data:`ENCODINGS`, :data:`REACH`, :data:`ENERGY` and their lookups) live in
:mod:`interconnect.catalog.media` and are re-exported here; this module holds the models.

Conventions
-----------
SI units: bit/s for line rates, bytes/s for data bandwidth (per direction, as in
:mod:`~interconnect.links`), Bd for symbol rates, Hz, metres, watts, joules. A
``line_rate`` is the serial bit rate of one lane in one direction before line
coding (what PCI-SIG calls GT/s, what IEEE 802.3 calls the signalling rate times
bits per symbol). Energy per bit follows the vendors' convention: the power of *one
end* of a link divided by its rate in *one* direction, which equals the power of
both ends divided by the bits moved in both directions.

References
----------
IEEE Std 802.3-2022, clauses 91 (RS-FEC), 119 (200G/400G PCS, 256b/257b, RS(544,514));
IEEE 802.3bj-2014, 802.3cd-2018, 802.3bs-2017, 802.3cm-2020.
PCI-SIG, *PCI Express Base Specification* 6.x, Flit Mode.
D. Das Sharma et al., "On-Package Memory with Universal Chiplet Interconnect Express
(UCIe)", arXiv:2510.06513 (2025).
O. S. Sella, A. W. Moore, N. Zilberman, "FEC Killed the Cut-Through Switch",
NEAT '18 (SIGCOMM workshop), 2018.
"""

from __future__ import annotations

import numpy as np

from ._validate import as_count, as_fraction, as_nonnegative, as_positive, choice
from .catalog.media import (
    ENCODINGS,
    ENERGY,
    REACH,
    EnergyPoint,
    ReachPoint,
    energy_table,
    media,
    reach_table,
)

__all__ = [
    "MODULATIONS", "bits_per_symbol", "line_rate", "symbol_rate", "nyquist_frequency",
    "eye_height_fraction", "snr_penalty_db", "pam4_snr_penalty_db", "pam4_crossover_loss_db",
    "ENCODINGS", "encoding_efficiency", "overhead_fraction", "usable_rate",
    "fec_block_time", "amplitude_ratio", "trace_loss_db", "trace_reach",
    "symbol_levels", "simulate_waveform", "eye_diagram", "eye_opening", "same_bit_rate_eyes",
    "ReachPoint", "REACH", "reach_table", "media", "EnergyPoint", "ENERGY",
    "energy_table", "link_power", "bandwidth_wall",
]

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


# ----------------------------------------------------------------------------------
# Channels
# ----------------------------------------------------------------------------------
def amplitude_ratio(loss_db):
    """Voltage amplitude left after ``loss_db`` of insertion loss: ``10**(-loss_db/20)``.

    Examples
    --------
    >>> round(0.8 * amplitude_ratio(36.0) * 1e3, 1)   # 800 mV after PCIe 5.0's 36 dB, in mV
    12.7
    """
    return 10.0 ** (-as_nonnegative("loss_db", loss_db, "dB") / 20.0)


def trace_loss_db(length, frequency, loss_per_m, ref_frequency, exponent=1.0):
    """Insertion loss of a board trace, dB: ``loss_per_m * length * (f / f_ref)**exponent``.

    A one-point model of frequency-dependent loss. ``exponent = 1`` is dielectric
    loss (dominant on FR-4 at multi-GHz), ``0.5`` skin-effect conductor loss; real
    traces lie between.

    Parameters
    ----------
    length : float or array
        Metres, >= 0.
    frequency : float or array
        Hz (usually the Nyquist frequency), > 0.
    loss_per_m : float
        dB per metre measured at ``ref_frequency``, > 0.
    ref_frequency : float
        Hz, > 0.
    exponent : float
        In (0, 2].

    Returns
    -------
    float or ndarray
        dB.
    """
    L = as_nonnegative("length", length, "m")
    f = as_positive("frequency", frequency, "Hz")
    a = as_positive("loss_per_m", loss_per_m, "dB/m")
    f0 = as_positive("ref_frequency", ref_frequency, "Hz")
    k = as_fraction("exponent", exponent, 0.0, 2.0)
    return a * L * (f / f0) ** k


def trace_reach(loss_budget_db, frequency, loss_per_m, ref_frequency, exponent=1.0):
    """Longest trace, m, whose loss at ``frequency`` stays within ``loss_budget_db``.

    The inverse of :func:`trace_loss_db`.
    """
    budget = as_positive("loss_budget_db", loss_budget_db, "dB")
    per_m = trace_loss_db(1.0, frequency, loss_per_m, ref_frequency, exponent)
    return budget / per_m


def symbol_levels(modulation):
    """Nominal levels of a PAM alphabet with full swing [-1, 1]: NRZ ±1, PAM4 ±1, ±1/3."""
    return np.linspace(-1.0, 1.0, _levels(modulation))


def simulate_waveform(modulation="NRZ", n_symbols=2000, samples_per_symbol=32,
                      loss_db=0.0, noise_rms=0.0, seed=0, equalize=False):
    """A random symbol stream through a lossy channel with noise (an illustration).

    Rectangular pulses of the levels of :func:`symbol_levels` are filtered by a
    zero-phase channel whose loss in dB grows linearly with frequency, reaching
    ``loss_db`` at the Nyquist frequency (dielectric-dominated loss, no
    equalisation), and white Gaussian noise of ``noise_rms`` (in units of the full
    swing's half-amplitude) is added at the receiver input. With ``equalize=True``
    an ideal linear equaliser (a continuous-time linear equaliser, CTLE, at its
    best) then inverts the channel up to the Nyquist frequency and stays flat above
    it: intersymbol interference mostly goes, but the noise is amplified along with
    the high frequencies, so the loss turns into an SNR penalty. The stream is
    treated as periodic (circular filtering), so it has no start-up transient.

    Parameters
    ----------
    modulation : {"NRZ", "PAM4"}
    n_symbols : int
        >= 16.
    samples_per_symbol : int
        >= 4; time resolution of one unit interval (UI).
    loss_db : float
        Channel loss at the Nyquist frequency, dB, >= 0.
    noise_rms : float
        >= 0.
    seed : int
        Seed of :func:`numpy.random.default_rng`; same seed, same waveform.
    equalize : bool
        Apply the ideal equaliser described above.

    Returns
    -------
    dict
        ``t`` (time in UI, ndarray), ``v`` (received voltage), ``symbols`` (level
        index of each UI, ndarray of int), ``samples_per_symbol`` (int).
    """
    n = as_count("n_symbols", n_symbols, 16)
    sps = as_count("samples_per_symbol", samples_per_symbol, 4)
    loss = float(as_nonnegative("loss_db", loss_db, "dB"))
    sigma = float(as_nonnegative("noise_rms", noise_rms))
    levels = symbol_levels(modulation)
    rng = np.random.default_rng(seed)
    sym = rng.integers(0, len(levels), n)
    x = np.repeat(levels[sym], sps)
    # frequency in units of the Nyquist frequency (baud/2): sample rate = sps * baud
    f = np.fft.rfftfreq(x.size, d=1.0 / sps) * 2.0
    h = 10.0 ** (-loss * f / 20.0)
    spec = np.fft.rfft(x) * h
    if sigma > 0:
        spec = spec + np.fft.rfft(rng.normal(0.0, sigma, x.size))
    if equalize:
        spec = spec * 10.0 ** (loss * np.minimum(f, 1.0) / 20.0)
    v = np.fft.irfft(spec, n=x.size)
    return {"t": np.arange(x.size) / sps, "v": v, "symbols": sym, "samples_per_symbol": sps}


def eye_diagram(wave, v_bins=96, v_range=(-1.4, 1.4)):
    """Fold a waveform into a two-UI eye: a 2-D histogram of voltage against time.

    Parameters
    ----------
    wave : dict
        Output of :func:`simulate_waveform`.
    v_bins : int
        Voltage bins, >= 8.
    v_range : (float, float)
        Voltage limits of the histogram.

    Returns
    -------
    ndarray
        Shape ``(v_bins, 2 * samples_per_symbol)``, counts; row 0 is the lowest
        voltage. Time runs from -1 UI to +1 UI around a sampling instant.
    """
    sps = wave["samples_per_symbol"]
    nb = as_count("v_bins", v_bins, 8)
    v = wave["v"]
    # centre each window on the middle of a UI: shift by half a UI
    v = np.roll(v, sps // 2)
    n_win = v.size // (2 * sps)
    seg = v[: n_win * 2 * sps].reshape(n_win, 2 * sps)
    lo, hi = v_range
    idx = np.clip(((seg - lo) / (hi - lo) * nb).astype(int), 0, nb - 1)
    img = np.zeros((nb, 2 * sps))
    cols = np.broadcast_to(np.arange(2 * sps), seg.shape)
    np.add.at(img, (idx.ravel(), cols.ravel()), 1.0)
    return img


def eye_opening(wave):
    """Worst-case vertical opening of each eye at the best sampling phase.

    For each pair of adjacent levels, the lowest received voltage of the upper level
    minus the highest of the lower level, at one sampling phase within the UI (the
    one that maximises the smallest eye). Negative means the eye is closed.

    Parameters
    ----------
    wave : dict
        Output of :func:`simulate_waveform`.

    Returns
    -------
    dict
        ``openings`` (ndarray, one per eye, in units of the full swing, so an ideal
        NRZ eye is 1 and an ideal PAM4 eye 1/3), ``min`` (the smallest), ``phase``
        (best sampling phase, in UI from the start of the symbol).
    """
    sps = wave["samples_per_symbol"]
    sym = wave["symbols"]
    samples = wave["v"].reshape(sym.size, sps)
    m = int(sym.max()) + 1
    m = max(m, 2)
    best = None
    for k in range(sps):
        col = samples[:, k]
        ops = []
        for i in range(m - 1):
            lo = col[sym == i]
            up = col[sym == i + 1]
            if lo.size == 0 or up.size == 0:
                ops.append(np.nan)
                continue
            ops.append((up.min() - lo.max()) / 2.0)
        ops = np.array(ops)
        score = np.nanmin(ops)
        if best is None or score > best[0]:
            best = (score, ops, k)
    return {"openings": best[1], "min": float(best[0]), "phase": best[2] / sps}


def same_bit_rate_eyes(loss_db, noise_rms=0.01, modulations=("NRZ", "PAM4"), n_symbols=1024,
                       samples_per_symbol=32, seed=7, equalize=True):
    """NRZ against PAM4 at the same bit rate through the same channel: waveforms and eyes.

    The channel loss ``loss_db`` is quoted at NRZ's Nyquist frequency. Under the
    proportional-loss model of :func:`simulate_waveform` (loss in dB grows linearly with
    frequency) a modulation with ``b`` bits per symbol runs at ``1/b`` of NRZ's baud, so
    its Nyquist frequency, and the loss there, is ``loss_db / b``: PAM4 sees half of it.
    Each modulation's waveform is :func:`simulate_waveform` with that loss, the same
    noise and seed; its eye is :func:`eye_opening`.

    Parameters
    ----------
    loss_db : float
        Channel loss at NRZ's Nyquist frequency, dB, >= 0.
    noise_rms : float
        Receiver noise, as for :func:`simulate_waveform`.
    modulations : sequence of str
        Keys of :data:`MODULATIONS`.
    n_symbols, samples_per_symbol, seed, equalize
        As for :func:`simulate_waveform` (the defaults are the chapter's).

    Returns
    -------
    dict
        ``{modulation: {"loss_db": float, "wave": dict, "opening": float}}``: the loss at
        that modulation's Nyquist frequency, the waveform and the worst-case eye opening
        (fraction of the full swing; negative when closed).

    Examples
    --------
    >>> eyes = same_bit_rate_eyes(0.0, noise_rms=0.0)       # no loss, no noise: ideal eyes
    >>> round(eyes["NRZ"]["opening"], 6), round(eyes["PAM4"]["opening"], 6)
    (1.0, 0.333333)
    """
    loss = float(as_nonnegative("loss_db", loss_db, "dB"))
    out = {}
    for m in modulations:
        loss_m = loss / bits_per_symbol(m)
        w = simulate_waveform(m, n_symbols, samples_per_symbol, loss_db=loss_m, noise_rms=noise_rms, seed=seed,
                              equalize=equalize)
        out[m] = {"loss_db": loss_m, "wave": w, "opening": eye_opening(w)["min"]}
    return out


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

"""Channels: insertion loss of a trace, reach, and a seeded eye-diagram simulation.

Part of :mod:`interconnect.signalling`; see its docstring for units and references.
"""

from __future__ import annotations

import numpy as np

from .._validate import as_count, as_fraction, as_nonnegative, as_positive
from .symbols import _levels, bits_per_symbol


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



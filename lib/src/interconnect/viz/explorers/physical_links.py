"""Figures and explorers of the chapter "Physical links" (``book/stack/physical_links.ipynb``).

Presentation only: the waveforms, eye histograms and eye openings come from
:mod:`interconnect.signalling` (:func:`~interconnect.signalling.simulate_waveform`,
:func:`~interconnect.signalling.eye_diagram`, :func:`~interconnect.signalling.eye_opening`,
:func:`~interconnect.signalling.same_bit_rate_eyes`).
"""

from __future__ import annotations

import numpy as np

from ... import plots
from ... import signalling as sig
from ...units import fmt_si
from ...widgets import Explorer, Param

__all__ = ["eye_axes", "draw_eye", "eye_explorer"]

_EXTENT = (-1, 1, -1.4, 1.4)   # two UI wide, the voltage range of signalling.eye_diagram


def eye_axes(ax, title):
    """Style ``ax`` for an eye diagram: time in UI from -1 to 1, voltage -1.4 to 1.4, no grid."""
    ax.set_title(title, fontsize=10.5)
    ax.set_xlabel("time (UI)")
    ax.set_xticks([-1, -0.5, 0, 0.5, 1])
    ax.set_ylim(-1.4, 1.4)
    ax.grid(False)


def eye_image(wave):
    """The eye histogram of ``wave`` (:func:`interconnect.signalling.eye_diagram`) on a log
    scale, normalised to 1 at its densest bin: what :func:`draw_eye` shows."""
    img = np.log1p(sig.eye_diagram(wave))
    return img / img.max()


def draw_eye(ax, wave, cmap="Blues"):
    """Draw the eye diagram of ``wave`` (a :func:`interconnect.signalling.simulate_waveform`
    result) on ``ax`` as an image; returns the ``AxesImage``."""
    return ax.imshow(eye_image(wave), origin="lower", aspect="auto", extent=_EXTENT,
                     cmap=cmap, vmin=0, vmax=1, interpolation="nearest")


def eye_explorer(losses=tuple(range(0, 41, 5)), default_loss=10, noises=(0.005, 0.01, 0.02), default_noise=0.01,
                 bit_rates=(53.125e9, 106.25e9, 212.5e9), default_bit_rate=106.25e9):
    """NRZ against PAM4 at the same bit rate through a lossy channel: two eye diagrams
    (chapter "Physical links").

    Sliders: the channel loss at NRZ's Nyquist frequency, the receiver noise, the bit rate
    per lane and an ideal equaliser on or off. PAM4 runs at half NRZ's baud and so sees
    half the loss in dB (:func:`interconnect.signalling.same_bit_rate_eyes`); each panel's
    title gives the symbol rate, the Nyquist frequency, the loss there and the worst-case
    eye opening (:func:`interconnect.signalling.eye_opening`). The bit rate changes only
    the labels: the model is in units of the symbol time.

    Parameters
    ----------
    losses : sequence of float
        Losses offered, dB at NRZ's Nyquist frequency.
    default_loss : float
        One of ``losses``.
    noises : sequence of float
        Noise levels offered (rms, fraction of the half-swing).
    default_noise : float
        One of ``noises``.
    bit_rates : sequence of float
        Bit rates per lane offered, bit/s.
    default_bit_rate : float
        One of ``bit_rates``.

    Returns
    -------
    interconnect.widgets.Explorer
    """
    mods = ("NRZ", "PAM4")

    def make_figure():
        fig, axes = plots.new_figure("Same bit rate, NRZ against PAM4", "time (UI)",
                                     "received voltage (full swing = ±1)", figsize=(7.2, 3.9), ncols=2, sharey=True)
        ims, texts = [], []
        for ax, m in zip(axes, mods):
            ims.append(ax.imshow(np.zeros((96, 64)), origin="lower", aspect="auto", extent=_EXTENT,
                                 cmap="Blues", vmin=0, vmax=1, interpolation="nearest"))
            eye_axes(ax, m)
            texts.append(ax.title)
        axes[1].set_ylabel("")

        def update(loss, noise, bit_rate, equalize):
            eyes = sig.same_bit_rate_eyes(loss, noise, mods, equalize=equalize)
            for m, im, txt in zip(mods, ims, texts):
                baud = sig.symbol_rate(bit_rate, m)
                im.set_data(eye_image(eyes[m]["wave"]))
                op = eyes[m]["opening"]
                eye = f"{op:5.0%} of swing" if op > 0 else "closed"
                txt.set_text(f"{m} at {fmt_si(baud, 'Bd')}, Nyquist {fmt_si(sig.nyquist_frequency(baud), 'Hz')}\n"
                             f"loss there {eyes[m]['loss_db']:.1f} dB, eye {eye}")
            return [*ims, *texts]

        return fig, update

    def alt(loss, noise, bit_rate, equalize):
        return (f"Two eye diagrams at {bit_rate / 1e9:g} Gb/s with {loss:g} dB of loss at NRZ's Nyquist frequency "
                f"and noise {noise:g}: NRZ on the left with one eye, PAM4 on the right with three eyes "
                f"a third as tall.")

    return Explorer(
        "NRZ against PAM4 at the same bit rate",
        [Param("loss", "channel loss at NRZ's Nyquist frequency (dB)", tuple(losses), default_loss,
               fmt=lambda x: f"{x} dB"),
         Param("noise", "receiver noise (rms, fraction of half-swing)", tuple(noises), default_noise,
               fmt=lambda x: f"{x:g}"),
         Param("bit_rate", "bit rate per lane", tuple(bit_rates), default_bit_rate, fmt=lambda r: f"{r / 1e9:g} Gb/s"),
         Param("equalize", "ideal equaliser", (True, False), True, fmt=lambda e: "on" if e else "off")],
        make_figure, static=["loss", "noise"], alt=alt, colors=32)

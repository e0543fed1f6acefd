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

from ..catalog.media import ENCODINGS, ENERGY, REACH, EnergyPoint, ReachPoint, energy_table, media, reach_table
from .channel import (
    amplitude_ratio,
    eye_diagram,
    eye_opening,
    same_bit_rate_eyes,
    simulate_waveform,
    symbol_levels,
    trace_loss_db,
    trace_reach,
)
from .coding import encoding_efficiency, fec_block_time, overhead_fraction, usable_rate
from .energy import bandwidth_wall, link_power
from .symbols import (
    MODULATIONS,
    bits_per_symbol,
    eye_height_fraction,
    line_rate,
    nyquist_frequency,
    pam4_crossover_loss_db,
    pam4_snr_penalty_db,
    snr_penalty_db,
    symbol_rate,
)

__all__ = [
    "MODULATIONS", "bits_per_symbol", "line_rate", "symbol_rate", "nyquist_frequency",
    "eye_height_fraction", "snr_penalty_db", "pam4_snr_penalty_db", "pam4_crossover_loss_db",
    "ENCODINGS", "encoding_efficiency", "overhead_fraction", "usable_rate", "fec_block_time",
    "amplitude_ratio", "trace_loss_db", "trace_reach", "symbol_levels", "simulate_waveform",
    "eye_diagram", "eye_opening", "same_bit_rate_eyes", "ReachPoint", "REACH", "reach_table",
    "media", "EnergyPoint", "ENERGY", "energy_table", "link_power", "bandwidth_wall",
]

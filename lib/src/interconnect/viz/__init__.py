"""The presentation layer: figures and explorers drawn from the models.

This package, with :mod:`interconnect.plots`, :mod:`interconnect.widgets`,
:mod:`interconnect.diagrams` and :mod:`interconnect.explorers`, is where matplotlib and
ipywidgets are imported; the model modules return numbers and never draw. Nothing here is
imported by ``import interconnect``: a chapter imports the explorer it shows, e.g.
``from interconnect.viz.explorers import rendering``.

* :mod:`interconnect.viz.explorers`: one module per chapter, each function returning an
  :class:`interconnect.widgets.Explorer` (live ipywidgets in Jupyter, precomputed frames in
  the HTML book).
* :mod:`interconnect.viz.timelines`: a simulation's flows over time and its link loads
  (``netsim.plot_timeline`` and ``netsim.plot_link_load`` are lazy aliases of these).
* :mod:`interconnect.viz.history`: the timeline of link generations (``links.plot_timeline``).
* :mod:`interconnect.viz.frames`: frame intervals of multi-GPU rendering
  (``rendering.plot_frame_intervals``).
"""

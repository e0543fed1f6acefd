"""The chapters' explorers, one module per chapter (``interconnect.viz.explorers.<chapter>``).

Each explorer is a function that returns an :class:`interconnect.widgets.Explorer` built on
the library's models, so the chapter that shows it, its tests and the benchmarks share one
copy. Modules are imported on demand (they import matplotlib).
"""

"""The dynamic setting (Kash, Procaccia and Shah, JAIR 51, 2014): the
allocation after every arrival, for a dynamic mechanism
(:class:`models.dynamic.DynamicPolicy`) or any static policy lifted by
recomputation (:mod:`.trajectory`), and the result users read
(:class:`.result.DynamicRun`, from :func:`analyzer.dynamic_run`)."""

"""Exhaustive checks over bounded integer instances (the discrete prover).

:func:`analyzer.proving.discrete.prove_discrete` decides a property of a
discrete policy (progressive filling, Ghodsi et al., NSDI 2011, Section 4.2,
Algorithm 1) on *every* integer instance of one size whose capacities and
demands lie in ``1..K`` (``0..K`` for zero demands). The pieces:

* :mod:`.space` -- the class of instances as a numbered grid (mixed radix)
  and its size;
* :mod:`.symmetry` -- the symmetries used to check one instance per orbit,
  and why each is sound;
* :mod:`.deciders` -- per property, the deviations checked on an instance
  (the property's own exact check, or its exact verification of every lie or
  capacity growth within the bound);
* :mod:`.worker` -- one chunk of the grid, as a picklable task for a
  process pool or a Dask cluster;
* :mod:`.store` -- the progress file that makes a run resumable.
"""

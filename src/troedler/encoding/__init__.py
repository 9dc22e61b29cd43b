"""Games as numbers, for learning and search: a fixed integer id for every
move (:mod:`~troedler.encoding.action_ids`) and what a seat knows as a
fixed-length array (:mod:`~troedler.encoding.tensors`, which needs numpy).

Depends on the core and the seat only, so that bots, adapters and the JAX
engine all share it.
"""

"""Adapters that bring troedler to reinforcement-learning libraries.

- :mod:`troedler.encoding.action_ids`: a fixed integer id for every move of a
  board and card catalogue (no dependencies beyond troedler).
- :mod:`troedler.encoding.tensors`: observations as flat ``float32`` arrays
  (needs numpy).
- :mod:`troedler.bots.neural`: a bot that plays a trained policy
  network from a weight file (needs numpy).
- :mod:`troedler.adapters.pettingzoo`: a PettingZoo AEC environment (needs
  numpy, gymnasium and pettingzoo: ``pip install -e '.[rl]'``).
- :mod:`troedler.adapters.gymnasium`: one seat of it as a single-agent
  Gymnasium environment against bots (the same extra).

The core never imports this package, and this package imports numpy and
the RL libraries only in the modules that need them.
"""

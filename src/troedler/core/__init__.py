"""The rules of the game: the records, the actions and the facts they rest on.

The core depends on ``attrs`` only and imports no other part of troedler.
Everything a caller needs is re-exported flat by :mod:`troedler`; these
modules are where each part lives:

- :mod:`~troedler.core.errors`, :mod:`~troedler.core.limits`,
  :mod:`~troedler.core.datafile`: the error family, the domain of the
  numbers a game carries, and the checked reading of the data files;
- :mod:`~troedler.core.goods`, :mod:`~troedler.core.board`,
  :mod:`~troedler.core.cards`, :mod:`~troedler.core.pile`: the components;
- :mod:`~troedler.core.rulebook`: every fact of the rules once, by rule
  id, and :class:`~troedler.Rules`;
- :mod:`~troedler.core.state`: the records of a position;
- :mod:`~troedler.core.moves`: the moves;
- :mod:`~troedler.core.shuffle`: the seeded shuffles;
- :mod:`~troedler.core.setting_up`, :mod:`~troedler.core.chance`: setting a
  game up, and chance's nodes with the seed's answers to them;
- :mod:`~troedler.core.actions`, :mod:`~troedler.core.legal`: the actions
  and the one door into them;
- :mod:`~troedler.core.scoring`, :mod:`~troedler.core.invariants`: the
  scoring and the checks of a position.
"""

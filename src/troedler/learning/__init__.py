"""Training the learned bot by expert iteration, one generation at a time.

A generation plays games through the tournament runners (self-play with a
little exploration, and games against the greedy bot and earlier
generations), labels positions of them with a search guided by the best
network so far (:class:`~troedler.bots.ismcts.ISMCTSBot` with a
:class:`~troedler.bots.learned.ValueGuide`), trains a new network on what
the search found, and keeps it only if it beats the best so far in a
sequential probability ratio test over paired deals (:mod:`.sprt`).
Every phase checkpoints, so a stopped run resumes where it was.

``python -m troedler.learning --help`` lists the commands; docs/rl.md
gives the recipe. Needs numpy (``pip install -e '.[rl]'``).
"""

from __future__ import annotations

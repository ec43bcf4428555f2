"""Environments for reinforcement learning: PettingZoo, Gymnasium and OpenSpiel.

Each environment is a module of its own, imported only when used, because each
needs an optional extra (``pip install 'american-sniff[rl]'`` for PettingZoo
and Gymnasium, ``'american-sniff[openspiel]'`` for OpenSpiel):

* ``american_sniff.envs.pettingzoo``: ``AmericanSniffEnv``, a PettingZoo AEC
  environment for 2, 3 or 4 players;
* ``american_sniff.envs.gymnasium``: ``AmericanSniffGymEnv``, one seat against
  the library's bots (registered as ``AmericanSniff-v0``);
* ``american_sniff.envs.openspiel``: the OpenSpiel game ``american_sniff``.

Beside them, for batched learners (NumPy, the ``rl`` extra):
``american_sniff.envs.batched`` and ``american_sniff.envs.vector`` (many
matches at once on the batch engine), and ``american_sniff.envs.features``
(what each legal action scores and leaves, from the observations).

All three use the integer actions of :mod:`american_sniff.actions` and the
observations of :mod:`american_sniff.observation`; the rewards they share are
in :mod:`american_sniff.envs.rewards`.
"""

"""The applications built on the library: the ``rams`` command and its web server.

The cut: ``cli/`` is the ``rams`` command (one module per built-in subcommand) and ``serve/`` is
``rams serve`` (one module per job of the server). What both use sits here, one level up:

- ``command``: the :class:`~rams_env.apps.command.Command` type, ``CommandError``, the subcommands
  that other packages add through the ``rams_env.commands`` entry points, and the parser;
- ``game_log``: the game log that ``rams play --save`` and the server write and read back;
- ``narration``: the lines that say what happened, as one seat saw it, in the terminal and on the page;
- ``scores``: what a deal did to each score and why, worded once for all of them (``10 → 7``: lower is
  better).

Imports go one way: these modules import the library (rules, envs, agents, evaluation), and nothing in
the library imports them.
"""

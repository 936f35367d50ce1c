"""Self-play training for rams_env (imports rams_env, never the reverse); installed as ``rams_training``.

In a checkout, run its scripts from the folder (``python -m training.improve``); installed, the same
modules are ``rams_training.*`` (``python -m rams_training.improve``; pyproject.toml says why).

The modules, one job each, in the order a run uses them:

- ``config``: :class:`~training.config.TrainArgs`, every argument of a run with its documentation and
  checks, and the run's two stages (its "Stages" section: what ``heuristic_after`` and the ``late_*``
  fields change);
- ``cli``: ``rams train``, its options made from ``TrainArgs`` and the ``quick``, ``full`` and ``deal`` recipes;
- ``run``: the :class:`~training.run.Trainer` (one update after another, checkpoints, exact resume)
  and the lock on its run folder;
- ``rollout``: collection, the games of one update in the batched env, their opponents, the learner's
  decisions in a ``Rollout`` and GAE along each seat's own decisions;
- ``ppo`` and ``dmc``: the two learning algorithms, how each acts and how it learns from a rollout;
- ``critic``: the privileged critic, a training-only value network that also sees the other hands;
- ``shaping``: the equity shaping of the win reward;
- ``heuristic_pool``: ``HeuristicAgent`` opponents shared between processes;
- ``logs``: ``progress.csv``, TensorBoard, log lines and the learning-curve plot;
- ``runargs``: a run's saved ``args.json`` read back with every field's type checked;
- ``export``: a trained run shipped to the model zoo with its card; ``fit_equity``: the equity model's fit.

The cut follows the data: arguments (``config``) drive a run (``run``), which collects samples
(``rollout``) and learns from them (``ppo``/``dmc``), writing what it did as it goes (``logs``).
"""

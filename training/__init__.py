"""Self-play training for rams_env (imports rams_env, never the reverse); installed as ``rams_training``.

One name everywhere: the folder ``training/`` installs (editable or from the wheel) as the package
``rams_training`` (pyproject.toml says why); tests, benchmarks and docs import ``rams_training.*`` and run
its scripts as ``python -m rams_training.improve`` or through ``rams`` (``rams train``, ``rams exploit``,
``rams psro``). Never import it as ``training``: a second name would load every module twice.

The modules, one job each, in the order a run uses them:

- ``config``: :class:`~rams_training.config.TrainArgs`, every argument of a run with its documentation and
  checks, in five groups (the games, the learning, the opponents, the start, the run), and the run's two
  stages (its "Stages" section: what ``heuristic_after`` and the ``late_*`` fields change);
- ``cli``: ``rams train``, its options made from ``TrainArgs`` and the ``quick``, ``full`` and ``deal`` recipes;
- ``run``: the :class:`~rams_training.run.Trainer` (one update after another, checkpoints, exact resume)
  and the lock on its run folder;
- ``rollout``: collection, the games of one update in the batched env, the learner's decisions in a
  ``Rollout`` and GAE along each seat's own decisions;
- ``mixing``: the ``OpponentMix`` that draws each episode's seats, a row of ``rams_env.Seat`` (self-play, pool,
  heuristic, random, target);
- ``algorithms``: the ``Algorithm`` Protocol and the registry that turns ``--algorithm NAME`` into a class;
- ``ppo`` and ``dmc``: the two registered algorithms, how each acts and how it learns from a rollout;
- ``critic``: the privileged critic, a training-only value network that also sees the other hands;
- ``shaping``: the equity shaping of the win reward;
- ``logs``: ``progress.csv``, TensorBoard, log lines and the learning-curve plot;
- ``runargs``: a run's saved ``args.json`` read back with every field's type checked;
- ``export``: a trained run shipped to the model zoo with its card; ``fit_equity``: the equity model's fit.

The cut follows the data: arguments (``config``) drive a run (``run``), which collects samples
(``rollout``) against the opponents ``mixing`` draws and learns from them with its registered algorithm
(``ppo``, ``dmc``), writing what it did as it goes (``logs``).
"""

if __name__ != "rams_training":  # python -m training.X from the folder, or the checkout's root on sys.path
    raise ImportError(f"this package is rams_training, not {__name__}: import rams_training (pyproject.toml says why)")

"""``rams serve``: a local web page to play Rams against agents and to watch games step by step.

The page (``static/``) talks to a small JSON API served by Flask:

- ``POST /api/games`` starts a game: you take one seat, agents (any spec ``rams eval`` accepts:
  ``random``, ``heuristic``, ``search:200``, a zoo name, a checkpoint path) the others. The agents move on the
  server until it is your turn; ``POST /api/games/<id>/act`` plays your move, ``.../buy`` your whole
  purchase at once (``{"discards": [cards]}``: those discards, then the draw, checked before any is
  played), ``.../next`` deals the next deal of a ``rams`` or ``match`` episode. Each state also says
  what the deal just over did to every score and why, and who won (``deal_summary``, its ``result``),
  every seat's score after each deal (``score_chart``), the agents' moves since yours (``recent``),
  what your moves mean and why when only one is offered (``hint``) and a move that was no choice,
  played for you (``note``: drawing from an empty talon).
- ``POST /api/replays`` opens a game to watch step by step: a log written by ``rams play --save``
  (uploaded, or one the server was started with or saved), a game of agents on deck ``k`` of the
  deal set ``seed``, which is that deck's game in ``rams eval --seed``, or (``.../replay``) a
  finished game of the page. ``GET /api/replays/<id>?step=k&seat=s`` is the table after ``k``
  actions as seat ``s`` sees it.

No leaks: every state the page receives holds the viewing seat's ``view()`` (what
``env.unwrapped.view(agent)`` returns: ``Game.view(seat)``), the card counts derived from it, the
viewing seat's legal moves and lines of what happened as that seat saw it (``rams_env.apps.narration``:
others' discards face down). Never the deck, the seed of a game in progress or another seat's hand;
the log of a game (which holds the whole deck) stays on the server (``--save-dir``).

Bad requests get a JSON ``{"error": ...}`` with a 4xx status and leave the server running. Bound to
127.0.0.1 by default; then requests naming another host (DNS rebinding) are refused, and the API
takes only ``application/json`` bodies, which other sites cannot send without the browser asking
first (CORS), so a web page elsewhere cannot drive the server.

Budgets (``limits``, each a ``rams serve`` option): an agent named in a request may
search at most ``--max-simulations`` per move, and a search agent's move stops at ``--move-time``; the
agents' moves of one request stop at ``--request-time``, answered 503 (a game being played stops with
that message), so no request keeps a core busy after its answer. Games and replays are kept up to
``--max-games`` and ``--max-replays``. A finished game stays readable for ``--keep-finished`` (a player
who reloads finds it), unless its player started another (``previous`` in ``POST /api/games``). A new
game takes the place of one its player left, else of one finished longer ago (the oldest first), else of
one idle for ``--idle-time``, least recently used first; when no slot can be freed it is refused with
503 naming the limit, and no game in play is ever dropped.

Flask is imported only when the server is made: ``pip install "rams_env[serve]"``.

One module per job, in the order a request meets them:

- ``command``: ``rams serve``, its options, and starting the server;
- ``app``: the Flask app, its routes registered in groups (guards, errors, the page, playing, watching);
- ``validation``: reading a request's JSON (bounds, rules, agent specs within the budgets, actions);
- ``state``: what one server holds (the stores of games and replays, saved logs, suggested agents);
- ``games``: a game being played (:class:`~.games.LiveGame`), ``replays``: a game to watch
  (:class:`~.replays.Replay`);
- ``seat_view``: what a seat is shown; ``score_chart``: every score after each deal (why each changed:
  ``rams_env.apps.scores``);
  ``zoo_cards``: the trained agents the page suggests; ``limits``: the budgets and the stores.
"""

"""The applications built on the library: the ``rams`` command (``cli/``) and its web server (``serve/``)."""

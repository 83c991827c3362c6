"""The application layer: each verb as a function of a request and its collaborators.

``cli.py``, the pytest plugin and the Action are wiring around these functions. A verb
takes what the user asked for (a frozen request), the collaborators it must not build
itself (how to measure, the environment, how to reach GitHub, where to write the report)
and returns an outcome that knows its one exit code. Nothing here prints: printing is
``reporting.console``'s job, reading argv is ``cli``'s.
"""

"""The templates perfguard renders: the workflows and perfguard.yml ``perfguard init``
writes, the markdown report and the history site.

This folder ships inside the wheel as the package ``guard.templates`` (see pyproject.toml);
this file makes it a regular package, so an editable install finds it too. Templates are
read only through ``guard.templating``.
"""

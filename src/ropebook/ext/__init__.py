"""The book's Sphinx extensions, listed in ``_config.yml`` (``sphinx: extra_extensions:``)."""

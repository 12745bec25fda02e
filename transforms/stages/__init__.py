"""The index stages, one module each, every one exposing ``STAGE`` (a ``transforms.registry.Stage``)."""

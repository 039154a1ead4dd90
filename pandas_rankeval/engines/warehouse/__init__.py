"""The warehouse engine: an ``ibis.Table`` on any Ibis backend, computed where the table lies."""

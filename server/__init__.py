"""levata.server: the referee, match records, tournaments and the ``levata`` command line."""

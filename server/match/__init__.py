"""One match on the referee: the gRPC services, the referee of a match, its record.

``app`` starts the gRPC server; ``arena`` holds the services (bots' ``ArenaService``, the
operator's ``AdminService``); ``referee`` runs one match (clocks, faults, resume); ``store``
records it in SQLite; ``recovery`` takes up unfinished matches after a restart; ``replay``
checks a record against the engine; ``auth`` (tokens) and ``limits`` (what a client may
send) guard the door; ``run`` plays one refereed match with bot processes; ``narrate`` turns
its events into lines a card player reads.

This package never imports :mod:`levata.server.tournament` or :mod:`levata.server.cli`.
"""

"""The named lists the graph rules read, declared once for the real validation
(:mod:`masrl.traces.validate`, :mod:`masrl.traces.lifecycle`) and the quick verdict of
``masrl validate`` (:mod:`masrl.traces.quick_verdict`), which must not import numpy."""

LIFECYCLE_TYPES = ("spawn", "despawn", "return")  # the events that start or end an agent's life
# costs keys that validation recounts (a warning when they differ) -> the event type counted
RECOUNTED_COSTS = {"tool_calls": "tool_call", "messages": "message"}

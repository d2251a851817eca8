"""kcp Transparent Multi-Cluster placement, both API generations <-> the neutral model. The record:
system.py; the library surface: api.py."""

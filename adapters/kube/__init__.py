"""Kubernetes objects in and out, for every system: reading and writing manifests (codecs
chosen by measurement), typed field access, the API server's own rules, label selectors."""

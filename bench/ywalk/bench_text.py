"""A MEASUREMENT (i20-fleet6, docs/performance.md): the 10,000 x 2,000 output's YAML text, what
-o yaml writes, made in this process: by the Python writer, or with codec.dump_yaml_pieces
replaced as cwalk_run.py in DIR (this folder, ywalk built in it) replaces it; the best of five.
usage: PYTHONPATH=TREE python bench_text.py [DIR]   (YWALK=walk: the templates by Python)"""

import gc
import hashlib
import sys
import time
from datetime import UTC, datetime

from adapters.kube import codec
from adapters.kube.manifests import parse_text, yaml_items
from adapters.registry import reads
from adapters.run.pipeline import schedule_manifests
from solver import SolveOptions

gc.disable()
if len(sys.argv) > 1:
    with open(sys.argv[1] + "/cwalk_run.py") as file:
        source = file.read()
    exec(source[: source.index("from adapters.cli.main import entry")])  # noqa: S102 - its patch alone
with open("/work/bench/fleet.yaml") as file:
    manifests = parse_text(file.read(), "fleet.yaml", reads=reads)
now = datetime(2026, 11, 24, 3, tzinfo=UTC)
objects = list(schedule_manifests(manifests, now=now, options=SolveOptions(), config=None).apply)
best = float("inf")
for _ in range(5):
    codec.forget_memos()
    start = time.process_time()
    text = b"".join(yaml_items(objects))
    best = min(best, time.process_time() - start)
digest = hashlib.md5(text).hexdigest()[:8]
writer = sys.argv[1] if len(sys.argv) > 1 else "python"
print(f"{writer}: {len(text) / 1e6:.1f} MB in {best:.3f} CPU s, md5 {digest}")

"""A MEASUREMENT PROTOTYPE (i20-fleet6, docs/performance.md): the command, with the YAML writer's
codec.dump_yaml_pieces done by ywalk (built beside this file: see ywalk.c). YWALK=walk leaves the
templates' documents to Python (codec.Template.render); else ywalk renders them too. Any document
ywalk leaves (codec.Unhandled) is written the Python way. usage: python cwalk_run.py solve ARGS..."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ywalk  # noqa: E402

from adapters.kube import codec  # noqa: E402

_orig = codec.dump_yaml_pieces
_TEMPLATES = os.environ.get("YWALK") != "walk"


def pieces(objects, fallback, size):
    tails, keys, memo = {}, {}, {}
    shaped = codec.Shaped if _TEMPLATES else None
    ywalk.setup(codec._string, codec._key, codec.Unhandled, tails, keys, memo, 1, shaped)
    pmemo = {}
    out, run, count = [], [], 0

    def flush():
        if not run:
            return
        try:
            out.append(ywalk.documents(run).decode("utf-8"))
        except codec.Unhandled:
            for obj in run:  # this run's documents the Python way
                out.append("".join(_orig([obj], fallback, 0)))
        run.clear()

    for obj in objects:
        if type(obj) is codec.Shaped and not _TEMPLATES:
            flush()
            try:
                out.append("---\n" + obj._template.render(obj._values, pmemo))
            except codec.Unhandled:
                out.append("".join(_orig([obj], fallback, 0)))
        else:
            run.append(obj)
        count += 1
        if count == size:
            flush()
            yield "".join(out)
            out.clear()
            count = 0
            if len(memo) > codec._MEMO_LIMIT:
                memo.clear()
            if len(pmemo) > codec._MEMO_LIMIT:
                pmemo.clear()
    flush()
    if out or not size:
        yield "".join(out)


codec.dump_yaml_pieces = pieces
from adapters.cli.main import entry  # noqa: E402

sys.argv = ["placement-solver", *sys.argv[1:]]
entry()

"""-o apply-script: the writes the upstream controllers make for one run, as a POSIX shell script
of kubectl commands, so that a live hub gets those writes and nothing more.

`kubectl apply -f -` of the -o yaml stream cannot do that: apply leaves `status` alone where a kind
has a status subresource, and a whole-object apply takes over fields other controllers own. So each
system declares, in `adapters/<system>/writes.py`, the requests its upstream controllers send for
each kind they write, in upstream's order: what each request carries (which fields of spec, status,
labels, annotations, finalizers), its verb, whether it goes through the status subresource, the
preconditions it carries (uid, resourceVersion) and the field manager the API server records for it.
This module renders those declarations against the run's plan (adapters.run.changes.changed_objects: the
objects new or different from the input; the outcome's deletions):

- create: `kubectl create` of the new object, its status left out (the API server drops it there);
  a status write upstream makes next follows as a patch of the status subresource;
- update and patch: `kubectl patch --type=merge` carrying only that request's fields that change,
  with the object's uid and resourceVersion in the patch where upstream's request carries them. An
  update (upstream sends the whole object as read) becomes a merge patch of what it changes with the
  same preconditions: the API server applies the same change under the same conditions;
- delete: `kubectl delete --ignore-not-found --wait=false`: upstream's deletes carry no
  preconditions, ignore NotFound and do not wait for finalizers.

A request conditional on the version of an object this script wrote before takes the uid and
resourceVersion that write returned (`-o jsonpath`), as upstream takes them from the response or its
cache. Object contents go in quoted here-documents, one line of JSON each; names are checked as the
API server checks them and every argument is quoted. The same run gives the same bytes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from adapters.contract import Field, Verb, Write, Writes
from adapters.errors import InputError
from adapters.kube.manifests import Manifest
from adapters.kube.validation import subdomain_errors
from adapters.registry import facet, system
from adapters.run.changes import changed_objects, object_key

__all__ = ["apply_script"]


# ------------------------------------------------------------------------------------------- diffs

_MISSING = object()


def _merge_patch(before: Any, after: Any) -> Any:
    """The JSON merge patch (RFC 7386) that turns `before` into `after`: maps key by key, removed
    keys null, anything else replaced whole."""
    if not (isinstance(before, Mapping) and isinstance(after, Mapping)):
        return after
    out = {}
    for key, value in after.items():
        if key not in before:
            out[key] = value
        elif before[key] != value:
            out[key] = _merge_patch(before[key], value)
    out.update((key, None) for key in before if key not in after)
    return out


def _at(obj: Any, path: tuple[str, ...]) -> Any:
    for key in path:
        if not isinstance(obj, Mapping) or key not in obj:
            return _MISSING
        obj = obj[key]
    return obj


Leaf = tuple[tuple[str, ...], str | None]  # a path, and a map key under it (None: the whole value)


def _fragment(f: Field, before: Mapping[str, Any], after: Mapping[str, Any], carried: set[Leaf]) -> Any:
    """What changes at `f` that no earlier request carried: _MISSING when nothing does."""
    if any(f.path[: len(p)] == p for p, key in carried if key is None):
        return _MISSING
    old, new = _at(before, f.path), _at(after, f.path)
    if f.filtered:
        old, new = ({k: v for k, v in _entries(value).items() if f.admits(k)} for value in (old, new))
    if old == new:
        return _MISSING
    if isinstance(new, Mapping) and old is _MISSING:
        old = {}  # a map made here: its entries, as those of an empty one
    if not (isinstance(old, Mapping) and isinstance(new, Mapping)):
        return None if new is _MISSING else new
    patch = {k: v for k, v in _merge_patch(old, new).items() if (f.path, k) not in carried}
    return patch or _MISSING


def _entries(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _leaves(f: Field, fragment: Any) -> set[Leaf]:
    return {(f.path, key) for key in fragment} if f.filtered else {(f.path, None)}


def _put(body: dict[str, Any], f: Field, fragment: Any) -> None:
    *parents, last = f.path
    for key in parents:
        body = body.setdefault(key, {})
    if f.filtered:
        body.setdefault(last, {}).update(fragment)
    else:
        body[last] = fragment


# ----------------------------------------------------------------------------------------- requests


@dataclass(frozen=True, slots=True)
class _Target:
    """Where a request goes: kubectl's resource argument, the object's name or generateName,
    namespace and workspace, and how comments name it."""

    resource: str
    name: str
    namespace: str
    workspace: str
    label: str


@dataclass(slots=True)
class _Object:
    """A written object: as read (None: made by this run) and as the run leaves it."""

    kind: str
    before: Mapping[str, Any] | None
    after: Mapping[str, Any]
    writes: Writes
    target: _Target
    carried: set[Leaf] = field(default_factory=set)
    requests: list[_Request] = field(default_factory=list)


@dataclass(slots=True)
class _Request:
    writes: Writes
    write: Write
    target: _Target
    body: dict[str, Any] | None = None  # None: a delete
    obj: _Object | None = None
    capture: bool = False  # a later request for the object takes its uid and resourceVersion
    chained: _Request | None = None  # the earlier request its preconditions come from


def _tables(outcome: Any, manifests: Sequence[Manifest]) -> list[Writes]:
    """The writes of each system of the run, in the run's order (adapters.contract.System.writes)."""
    out = []
    for name in dict.fromkeys(part.system for part in outcome.parts):
        declared = facet(name, system(name).writes)
        if declared is None:
            raise InputError(f"the {name} system declares no writes to script", field="-o apply-script")
        out.append(declared(manifests))
    return out


def _target(obj: Mapping[str, Any], writes: Writes) -> _Target:
    group, kind, workspace, namespace, name = object_key(obj)
    version = str(obj.get("apiVersion", "")).rpartition("/")[2]
    plural = writes.kinds[kind][1]
    resource = f"{plural}.{version}.{group}" if group else plural
    where = f"{kind}/{namespace}/" if namespace else f"{kind}/"
    if name:
        _check(name, where + name, "metadata.name")
        where += name
    else:  # a name the API server gives (generateName): only a create has none
        name = str((obj.get("metadata") or {}).get("generateName") or "")
        _check(name + "x", where + name, "metadata.generateName")
        where += name + "*"
    if namespace:
        _check(namespace, where, "metadata.namespace")
    if workspace and not _WORKSPACE.fullmatch(workspace):
        raise InputError(f"not a logical cluster path: {workspace!r}", where=where, field="workspace")
    label = where + (f" in workspace {workspace}" if workspace else "")
    return _Target(resource, name, namespace, workspace, label)


_WORKSPACE = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(:[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")


def _check(name: str, where: str, path: str) -> None:
    if errors := subdomain_errors(name):
        raise InputError(f"invalid name {name!r}: {'; '.join(errors)}", where=where, field=path)


def _requests(outcome: Any, manifests: Sequence[Manifest]) -> list[_Request]:
    """Every request of the run, in order: each system's requests in upstream's order, and each
    request for its objects in the output's order."""
    tables = _tables(outcome, manifests)
    owner = {(group, kind): writes for writes in tables for kind, (group, _) in writes.kinds.items()}
    objects: dict[tuple[int, str], list[_Object]] = {}  # (id of a system's writes, kind) -> objects
    changed, _ = changed_objects(outcome.apply, manifests)
    for before, after in changed:
        group, kind = object_key(after)[:2]
        writes = owner.get((group, kind))
        if writes is None:
            raise AssertionError(f"the run writes {kind} ({group or 'core'}), which no system declares")
        obj = _Object(kind, before, after, writes, _target(after, writes))
        objects.setdefault((id(writes), kind), []).append(obj)
    requests: list[_Request] = []
    for writes in tables:
        for write in writes.writes:
            if write.verb is Verb.DELETE:
                deleted = _deleted(outcome, writes, write)
                requests += [_Request(writes, write, _target(ref, writes)) for ref in deleted]
                continue
            for obj in objects.get((id(writes), write.kind), ()):
                request = _made(obj, write)
                if request is not None:
                    obj.requests.append(request)
                    requests.append(request)
    for kind_objects in objects.values():
        for obj in kind_objects:
            _check_carried(obj)
            _chain(obj.requests)
    return requests


def _deleted(outcome: Any, writes: Writes, write: Write) -> list[Mapping[str, Any]]:
    group = writes.kinds[write.kind][0]
    return [
        {"apiVersion": ref["apiVersion"], "kind": ref["kind"], "metadata": ref}
        for ref in outcome.delete
        if ref["kind"] == write.kind and ref["apiVersion"].rpartition("/")[0] == group
    ]


def _made(obj: _Object, write: Write) -> _Request | None:
    """The request `write` makes for `obj`, or None when upstream makes none. An object this run
    makes is created whole but for its status, which only the status requests after carry."""
    if write.verb is Verb.CREATE:
        if obj.before is not None:
            return None
        return _Request(obj.writes, write, obj.target, _created(obj.after), obj)
    before = obj.before
    if before is None:
        if not write.status:
            return None
        before = {}
    if write.when is not None and not write.when(before, obj.after):
        return None
    body: dict[str, Any] = {"metadata": {}}
    for f in write.fields:
        fragment = _fragment(f, before, obj.after, obj.carried)
        if fragment is not _MISSING:
            _put(body, f, fragment)
            obj.carried |= _leaves(f, fragment)
    if not body["metadata"]:
        del body["metadata"]
    return _Request(obj.writes, write, obj.target, body, obj) if body else None


def _created(obj: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in obj.items() if k != "status"}


def _check_carried(obj: _Object) -> None:
    """Every field of the object's kind that the run changes went with one of upstream's requests:
    a change no upstream request makes would be a defect of the emitter or of the declarations."""
    before = obj.before if obj.before is not None else {}
    for write in obj.writes.writes:
        if write.kind != obj.kind or write.verb in (Verb.CREATE, Verb.DELETE):
            continue
        if obj.before is None and not write.status:
            continue  # the create carried it
        for f in write.fields:
            if _fragment(f, before, obj.after, obj.carried) is not _MISSING:
                raise AssertionError(
                    f"{obj.target.label}: the run changes {'.'.join(f.path)}, which none of the "
                    "requests upstream makes for it carries"
                )


def _chain(requests: list[_Request]) -> None:
    """A request with preconditions after another request for the same object is conditional on
    the version that one returned; the first one, on the object as read."""
    for earlier, later in zip(requests, requests[1:], strict=False):
        if later.write.preconditions:
            later.chained = earlier
            earlier.capture = True


# ------------------------------------------------------------------------------------------- script

_HEADER = """\
#!/bin/sh
# placement-solver -o apply-script: the writes the upstream schedulers make for this run, against
# the hub its input was read from (kubectl's current context; kubectl 1.24 or later). Each request
# names upstream's call and carries only what that call changes, under upstream's field manager;
# one conditional on an object's uid and resourceVersion fails, and stops the script, when the
# object changed since it was read: read the hub again and solve again.
set -eu
"""

_WORKSPACES = """\
# Objects of a logical workspace are written at {paths} under the hub's server: HUB_SERVER,
# or the current context's server without a workspace path of its own.
server=${{HUB_SERVER:-$(kubectl config view --minify --output='jsonpath={{.clusters[0].cluster.server}}')}}
"""


_CAPTURE = "--output=jsonpath={.metadata.uid} {.metadata.resourceVersion}"
_SAFE = re.compile(r"[A-Za-z0-9_./:=@%+,-]+")


def apply_script(outcome: Any, manifests: Sequence[Manifest]) -> str:
    """The run's writes as a POSIX shell script (see the module's docstring)."""
    requests = _requests(outcome, manifests)
    parts = [_HEADER]
    paths = sorted({r.writes.workspace_path for r in requests if r.target.workspace})
    if paths:
        parts.append(_WORKSPACES.format(paths=", ".join(p.format("<workspace>") for p in paths)))
        parts += [f"server=${{server%%{p.partition('{}')[0]}*}}\n" for p in paths]
    if not requests:
        parts.append("# nothing to write\n")
    captures: dict[int, int] = {}  # id of a request whose uid and resourceVersion are kept -> its number
    for request in requests:
        if request.capture:
            captures[id(request)] = len(captures) + 1
        chained = captures[id(request.chained)] if request.chained is not None else 0
        parts.append(_command(request, captures.get(id(request), 0), chained))
    return "".join(parts)


def _command(request: _Request, capture: int, chained: int) -> str:
    """The request's comment and command. `capture`: the number of the shell variables its uid and
    resourceVersion go to (0: none); `chained`: of those its preconditions come from (0: the input)."""
    command = " ".join(_quote(a) for a in _argv(request, capture))
    target = request.target
    if target.workspace:
        command += f' --server="$server"{_quote(request.writes.workspace_path.format(target.workspace))}'
    comment = _comment(request)
    if request.body is None:
        return f"{comment}{command}\n"
    text, head = _body(request, chained)
    if head:  # the start of the JSON, with the preconditions an earlier write returned, then the rest
        command = f"{{ {head}; cat <<'EOF'\n{text}\nEOF\n}} | {command}"
    else:
        command = f"{command} <<'EOF'\n{text}\nEOF"
    if not capture:
        return f"{comment}{command}\n"
    kept = f"uid_{capture}=${{written%% *}} rv_{capture}=${{written#* }}"
    return f"{comment}written=$({command}\n)\n{kept}\n"


def _argv(request: _Request, capture: int) -> list[str]:
    write, target, manager = request.write, request.target, request.writes.manager
    if write.verb is Verb.CREATE:
        argv = ["kubectl", "create", f"--field-manager={manager}", "--filename=-"]
    else:
        argv = ["kubectl", "delete" if write.verb is Verb.DELETE else "patch", target.resource, target.name]
        if target.namespace:
            argv.append(f"--namespace={target.namespace}")
    if write.verb is Verb.DELETE:
        argv += ["--ignore-not-found=true", "--wait=false"]
    elif write.verb is not Verb.CREATE:
        argv += ["--subresource=status"] if write.status else []
        argv += ["--type=merge", f"--field-manager={manager}", "--patch-file=/dev/stdin"]
    return argv + [_CAPTURE] if capture else argv


def _comment(request: _Request) -> str:
    """What upstream does, and where: `# update of the status of Kind/name, conditional on ...: call`."""
    write = request.write
    what = f"{write.verb.value} of the status of" if write.status else write.verb.value
    conditions = f", conditional on {' and '.join(write.preconditions)}" if write.preconditions else ""
    return f"# {what} {request.target.label}{conditions}: {write.call}\n"


def _body(request: _Request, chained: int) -> tuple[str, str]:
    """The request's JSON on one line; when its preconditions come from the earlier write whose
    variables are numbered `chained`, the printf of the JSON's start with them and the line's rest."""
    body, names = request.body, request.write.preconditions
    if chained:
        values = {"uid": f'"$uid_{chained}"', "resourceVersion": f'"$rv_{chained}"'}
        start = '{"metadata":{'
        head = f"printf '{start}" + ",".join(f'"{name}":"%s"' for name in names) + "' "
        head += " ".join(values[name] for name in names)
        text = _json(body)
        if "metadata" in body:  # the first key: _made puts it there
            return "," + text.removeprefix(start), head
        return "}," + text[1:], head
    if names:  # the object as read
        metadata = request.obj.before.get("metadata") or {}
        known = {name: _version(metadata.get(name), name, request) for name in names}
        rest = {k: v for k, v in body.items() if k != "metadata"}
        body = {"metadata": {**known, **body.get("metadata", {})}, **rest}
    return _json(body), ""


def _version(value: Any, name: str, request: _Request) -> str:
    if not isinstance(value, str) or not value:
        raise InputError(
            f"required by -o apply-script: upstream's {request.write.call} is conditional on it "
            "(read the hub with kubectl get -o yaml)",
            where=request.target.label,
            field=f"metadata.{name}",
        )
    return value


def _json(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=True, separators=(",", ":"), allow_nan=False)


def _quote(arg: str) -> str:
    if _SAFE.fullmatch(arg):
        return arg
    return "'" + arg.replace("'", "'\\''") + "'"

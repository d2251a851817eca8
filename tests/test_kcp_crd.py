"""Every integer and enum field the kcp CRDs declare (config/crds of kcp v0.5.0-alpha.1 and
v0.8.0: Placement, Location, SyncTarget/WorkloadCluster, APIBinding) read as the API server checks
it: each allowed value and the range's ends are read, a value past them is bad input naming the
object with its workspace and the field."""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from typing import Any

import pytest

from adapters.errors import InputError
from adapters.kcp.api import load
from adapters.kube.manifests import from_objects
from tests.fixtures.kcp import (
    COMPUTE,
    NOW_TIME,
    TEAM,
    at,
    binding,
    cluster,
    location,
    namespace,
    placement,
    solve_cli,
    sync_target,
)

INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1

Obj = dict[str, Any]


def v08_hub() -> list[Obj]:
    return [
        binding(generation="v0.8"),
        location("us", generation="v0.8"),
        sync_target("s1", "us"),
        namespace("app", generation="v0.8"),
        placement("web"),
    ]


def v05_hub() -> list[Obj]:
    return [binding(), location("us"), cluster("c1", "us"), namespace("app")]


def changed(hub: list[Obj], kind: str, change: Callable[[Obj], Any]) -> list[Obj]:
    out = copy.deepcopy(hub)
    (obj,) = [o for o in out if o["kind"] == kind]
    change(obj)
    return out


def read(objects: list[Obj]) -> None:
    load(from_objects(objects, "<test>"), now=NOW_TIME, seed=0)


def refused(objects: list[Obj], where: str, field: str) -> None:
    with pytest.raises(InputError, match=f"^{re.escape(f'{where}: {field}: ')}"):
        read(objects)


def at_path(obj: Obj, path: str, value: Any) -> None:
    """Set `a.b.c` (created as needed); `a.b[0].c` indexes a list made as needed."""
    node: Any = obj
    parts = path.split(".")
    for part in parts[:-1]:
        name, _, index = part.partition("[")
        node = node.setdefault(name, [{}] if index else {})
        if index:
            node = node[int(index[:-1])]
    node[parts[-1]] = value


# ---------------------------------------------------------------------------------------- enums

# How errors name each hub's objects.
WHERE = {
    "Placement": f"Placement {TEAM}|web",
    "Location": f"Location {COMPUTE}|us",
    "SyncTarget": f"SyncTarget {COMPUTE}|s1",
    "WorkloadCluster": f"WorkloadCluster {COMPUTE}|c1",
    "APIBinding": f"APIBinding {TEAM}|kubernetes",
}
RESOURCE = "spec.locationResource"
ENUMS = [
    # (hub, kind, field, allowed, refused)
    (v08_hub, "Placement", f"{RESOURCE}.group", ["workload.kcp.dev"], ["", "workloads.kcp.dev", "apps"]),
    (v08_hub, "Placement", f"{RESOURCE}.version", ["v1alpha1"], ["v1", "v1beta1"]),
    (v08_hub, "Placement", f"{RESOURCE}.resource", ["synctargets"], ["workloadclusters", "locations"]),
    (v08_hub, "Placement", "status.phase", ["Pending", "Unbound", "Bound"], ["", "bound", "Scheduled"]),
    (v08_hub, "Location", "spec.resource.group", ["workload.kcp.dev"], ["", "scheduling.kcp.dev"]),
    (v08_hub, "Location", "spec.resource.version", ["v1alpha1"], ["v2"]),
    (v08_hub, "Location", "spec.resource.resource", ["synctargets"], ["workloadclusters"]),
    (v05_hub, "Location", "spec.resource.resource", ["workloadclusters"], ["synctargets"]),
    (
        v08_hub,
        "SyncTarget",
        "status.syncedResources[0].state",
        ["Pending", "Accepted", "Incompatible"],
        ["", "Ready"],
    ),
    (v08_hub, "APIBinding", "status.phase", ["", "Binding", "Bound"], ["Unbound", "bound"]),
    (v05_hub, "APIBinding", "status.phase", ["", "Binding", "Bound"], ["Ready"]),
    (v08_hub, "APIBinding", "spec.permissionClaims[0].state", ["Accepted", "Rejected"], ["", "Pending"]),
]
IDS = [f"{e[0].__name__[:3]}-{e[1]}-{e[2]}" for e in ENUMS]


def _complete(kind: str, field: str, obj: Obj) -> None:
    """The siblings an enum's object requires (a synced resource's resource and versions, a
    claim's resource)."""
    if field.startswith("status.syncedResources"):
        at_path(obj, "status.syncedResources[0].resource", "deployments")
        at_path(obj, "status.syncedResources[0].versions", ["v1"])
    if field.startswith("spec.permissionClaims"):
        at_path(obj, "spec.permissionClaims[0].resource", "configmaps")


@pytest.mark.parametrize(("hub", "kind", "field", "allowed", "bad"), ENUMS, ids=IDS)
def test_an_enum_reads_each_allowed_value_and_refuses_others(hub, kind, field, allowed, bad) -> None:
    def setting(value: Any) -> Callable[[Obj], None]:
        def change(obj: Obj) -> None:
            _complete(kind, field, obj)
            at_path(obj, field, value)

        return change

    for value in allowed:
        read(changed(hub(), kind, setting(value)))
    for value in bad:
        refused(changed(hub(), kind, setting(value)), WHERE[kind], field)


@pytest.mark.parametrize("kind", ["Placement", "Location"])
def test_a_resources_group_may_be_left_out(kind) -> None:
    path = "spec.locationResource" if kind == "Placement" else "spec.resource"

    def drop(obj: Obj) -> None:
        node = obj
        for part in path.split("."):
            node = node[part]
        del node["group"]

    read(changed(v08_hub(), kind, drop))


# ------------------------------------------------------------------------------------- integers


@pytest.mark.parametrize("field", ["status.instances", "status.availableInstances"])
@pytest.mark.parametrize("hub", [v05_hub, v08_hub], ids=["v0.5", "v0.8"])
def test_a_locations_int32_counts_are_read_to_their_ends_and_refused_past(hub, field) -> None:
    for value in (INT32_MIN, -1, 0, 3, INT32_MAX):
        read(changed(hub(), "Location", lambda o, v=value: at_path(o, field, v)))
    for value, message in ((INT32_MAX + 1, "must be between"), (INT32_MIN - 1, "must be between")):
        with pytest.raises(InputError, match=f"Location {COMPUTE}\\|us: {field}: {message}"):
            read(changed(hub(), "Location", lambda o, v=value: at_path(o, field, v)))
    for value in ("3", 3.5, True):
        refused(
            changed(hub(), "Location", lambda o, v=value: at_path(o, field, v)),
            f"Location {COMPUTE}|us",
            field,
        )


@pytest.mark.parametrize(
    ("hub", "kind", "name"), [(v05_hub, "WorkloadCluster", "c1"), (v08_hub, "SyncTarget", "s1")]
)
@pytest.mark.parametrize("field", ["status.capacity.cpu", "status.allocatable.memory"])
def test_a_clusters_quantities_are_integers_or_quantity_strings(hub, kind, name, field) -> None:
    for value in (0, 4, -2, 2**40, "4", "500m", "16Gi", "1.5e3", "+1", 4.0, None):  # None: pruned
        read(changed(hub(), kind, lambda o, v=value: at_path(o, field, v)))
    for value in (1.5, True, "", "4 cores", "1.5.2", "Gi"):
        refused(
            changed(hub(), kind, lambda o, v=value: at_path(o, field, v)), f"{kind} {COMPUTE}|{name}", field
        )


# ------------------------------------------------------------------------- the command line


def test_a_crd_refusal_exits_2_on_one_line(tmp_path) -> None:
    hub = changed(v08_hub(), "Location", lambda o: at_path(o, "status.instances", INT32_MAX + 1))
    result = solve_cli(tmp_path, hub)
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr == (
        f"error: Location {COMPUTE}|us: status.instances: must be between {INT32_MIN} and {INT32_MAX}, "
        f"got {INT32_MAX + 1}\n"
    )


def test_conditions_need_their_lastTransitionTime() -> None:
    for kind in ("Placement", "SyncTarget"):
        condition = {"type": "Ready", "status": "True"}
        hub = changed(
            v08_hub(), kind, lambda o, c=condition: o.setdefault("status", {}).update(conditions=[c])
        )
        refused(hub, WHERE[kind], "status.conditions[0].lastTransitionTime")
        condition["lastTransitionTime"] = "yesterday"
        refused(hub, WHERE[kind], "status.conditions[0].lastTransitionTime")
        condition["lastTransitionTime"] = at(0)
        read(hub)
        for key in ("type", "status"):  # required: present, but any string ("" was refused)
            condition[key] = ""
            read(hub)
            del condition[key]
            refused(hub, WHERE[kind], f"status.conditions[0].{key}")
            condition[key] = "True"


def test_a_placements_location_workspace_if_given_is_an_absolute_path() -> None:
    def placed(**spec: Any) -> list[Obj]:
        return changed(v08_hub(), "Placement", lambda o: o["spec"].update(spec))

    read(placed(locationWorkspace=COMPUTE))
    read(placed(locationWorkspace=None))  # absent: the Placement's own workspace
    for path in ("", "org:compute", "root:Org"):  # "" was read as absent
        refused(placed(locationWorkspace=path), WHERE["Placement"], "spec.locationWorkspace")


# ------------------------------------------------------------------- required fields and patterns


def test_a_selected_location_needs_an_absolute_path_and_a_name() -> None:
    def selected(**ref: Any) -> list[Obj]:
        return changed(
            v08_hub(), "Placement", lambda o: o.update(status={"phase": "Bound", "selectedLocation": ref})
        )

    read(selected(path=COMPUTE, locationName="us"))
    read(selected(path="root", locationName="us"))
    base = "status.selectedLocation"
    refused(selected(locationName="us"), WHERE["Placement"], f"{base}.path")
    for path in ("", "org:compute", "root:", "root:Org"):
        refused(selected(path=path, locationName="us"), WHERE["Placement"], f"{base}.path")
    refused(selected(path=COMPUTE), WHERE["Placement"], f"{base}.locationName")


def test_available_selector_labels_are_a_map_of_label_value_sets() -> None:
    def labels(*items: Obj) -> list[Obj]:
        return changed(v08_hub(), "Location", lambda o: o["spec"].update(availableSelectorLabels=list(items)))

    where, path = WHERE["Location"], "spec.availableSelectorLabels"
    read(labels({"key": "example.com/region", "values": ["", "x" * 63]}, {"key": "tier", "values": ["gold"]}))
    refused(labels({"key": "region", "values": ["x" * 64]}), where, f"{path}[0].values[0]")
    refused(labels({"key": "region", "values": ["-eu"]}), where, f"{path}[0].values[0]")
    refused(labels({"key": "region", "values": []}), where, f"{path}[0].values")
    refused(labels({"key": "region", "values": ["eu", "eu"]}), where, f"{path}[0].values")
    refused(
        labels({"key": "region", "values": ["eu"]}, {"key": "region", "values": ["us"]}),
        where,
        f"{path}[1].key",
    )
    refused(labels({"key": "Example.com/region", "values": ["eu"]}), where, f"{path}[0].key")
    refused(labels({"values": ["eu"]}), where, f"{path}[0].key")


def test_a_sync_targets_name_is_at_most_234_characters() -> None:
    def named(length: int) -> list[Obj]:
        return changed(v08_hub(), "SyncTarget", lambda o: o["metadata"].update(name="s" * length))

    read(named(234))
    refused(named(235), f"SyncTarget {COMPUTE}|{'s' * 235}", "metadata.name")


@pytest.mark.parametrize(("hub", "kind"), [(v05_hub, "WorkloadCluster"), (v08_hub, "SyncTarget")])
def test_a_clusters_virtual_workspaces_need_a_url(hub, kind) -> None:
    def urls(*items: Obj) -> list[Obj]:
        return changed(hub(), kind, lambda o: o["status"].update(virtualWorkspaces=list(items)))

    read(urls({"url": "https://kcp.example/services/syncer/c1"}))
    refused(urls({"url": ""}), WHERE[kind], "status.virtualWorkspaces[0].url")
    refused(urls({}), WHERE[kind], "status.virtualWorkspaces[0].url")


@pytest.mark.parametrize("hub", [v05_hub, v08_hub], ids=["v0.5", "v0.8"])
def test_a_bindings_export_name_is_required_but_may_be_empty(hub) -> None:
    def named(name: str | None) -> list[Obj]:
        return changed(
            hub(), "APIBinding", lambda o: o["spec"]["reference"]["workspace"].update(exportName=name)
        )

    read(named(""))  # the CRD requires it present, of any length ("" was refused as missing)
    refused(named(None), WHERE["APIBinding"], "spec.reference.workspace.exportName")

"""The scheduler config through `solve --config`: upstream's defaults, every validation error
(exit status 2, the message naming the purpose and the field), merged files, completed selectors."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from adapters.cli.main import main
from adapters.openmcp.config import combine, merge_documents, parse_config
from model import LabelOperator, LabelRequirement, LabelSelector
from tests.fixtures.openmcp import (
    MODES,
    NOW,
    Written,
    cluster,
    config,
    purpose,
    request,
    solve_cli,
    write_yaml,
)

HUB = [cluster("other", "c1", "p"), request("foo", "a", "p")]


def fails(tmp_path, cfg, *needles: str) -> str:
    result = solve_cli(tmp_path, HUB, config=cfg)
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    for needle in needles:
        assert needle in result.stderr, result.stderr
    return result.stderr


# ------------------------------------------------------------------------------------------ defaults


@pytest.mark.parametrize("mode", MODES)
def test_defaults_cluster_scope_balanced(tmp_path, mode) -> None:
    # Scope Cluster by default: a cluster in another namespace is a candidate. Balanced: the
    # cluster with fewer requests wins (c2 has none, c1 one stale finalizer).
    hub = [
        cluster("other", "c1", "p", finalizers=["request.clusters.openmcp.cloud/x"]),
        cluster("other", "c2", "p"),
        request("foo", "a", "p"),
    ]
    written = Written.solve(tmp_path, hub, config(p=purpose(count=3)), mode)
    assert written.granted("foo/a") == "other/c2"


MISSING = "give --config FILE (in the library: config=) with a `scheduler:` block"


def test_no_config_is_refused_when_there_are_requests(tmp_path) -> None:
    # Upstream's scheduler does not start without its config (NewClusterScheduler: "scheduler
    # config must not be nil"); its requests would wait for ever, without a word.
    stderr = fails(tmp_path, None, "scheduler config: missing: ", MISSING)
    assert stderr.count("\n") == 1
    for document in ({}, {"other": {"x": 1}}, {"scheduler": None}):  # no block, or a null one
        # the field named as every other error of the config names its field
        stderr = fails(tmp_path, document, "scheduler config: scheduler: required: ", MISSING)
        assert stderr.count("\n") == 1


def test_the_library_refuses_the_same() -> None:
    from adapters.errors import InputError
    from adapters.live.hub import HubScheduler
    from adapters.run.pipeline import schedule

    for document in (None, {"other": {"x": 1}}):
        with pytest.raises(InputError, match="give --config FILE"):
            schedule(HUB, config=document)
        with pytest.raises(InputError, match="give --config FILE"):
            HubScheduler(HUB, config=document)


@pytest.mark.parametrize("mode", MODES)
def test_an_empty_block_is_all_defaults(tmp_path, mode) -> None:
    # `scheduler: {}` is a config: purposeMappings defaults to {}, so every request is Pending
    # ("no cluster definition found for purpose").
    written = Written.solve(tmp_path, HUB, {"scheduler": {}}, mode)
    assert written.phase("foo/a") == "Pending"
    assert written.granted("foo/a") is None
    assert written.clusters() == {}
    assert written.plan["summary"]["unsatisfied"] == 1
    assert parse_config({"scheduler": {}}).scope == "Cluster"
    assert parse_config({"scheduler": {}}).strategy == "Balanced"
    assert parse_config({"scheduler": {}}).purposes == {}


def test_clusters_alone_need_no_config(tmp_path) -> None:
    # Nothing to schedule: the config decides nothing (an input of other systems may hold them).
    result = solve_cli(tmp_path, [cluster("other", "c1", "p")], "-o", "plan")
    assert result.exit_code == 0, result.output


# ---------------------------------------------------------------------------------------- validation


def test_unknown_scope_and_strategy(tmp_path) -> None:
    fails(
        tmp_path,
        {"scheduler": {"scope": "Global"}},
        'scheduler.scope: Unsupported value: "Global": supported values: "Cluster", "Namespaced"',
    )
    fails(
        tmp_path,
        {"scheduler": {"strategy": "Fastest"}},
        'scheduler.strategy: Unsupported value: "Fastest": supported values: "Balanced", "Random", "Simple"',
    )


def test_profile_required(tmp_path) -> None:
    fails(
        tmp_path,
        config(p=purpose(profile=None)),
        "scheduler.purposeMappings[p].template.spec.profile",
        "Required",
    )


def test_tenancy_required_and_supported(tmp_path) -> None:
    fails(
        tmp_path, config(p=purpose("")), "scheduler.purposeMappings[p].template.spec.tenancy: Required value"
    )
    fails(
        tmp_path,
        config(p=purpose("Private")),
        'scheduler.purposeMappings[p].template.spec.tenancy: Unsupported value: "Private"',
    )


def test_tenancy_failure_skips_the_other_checks(tmp_path) -> None:
    # tenancyCount 3 would be wrong for Exclusive, and the labels miss the global selector, but
    # without a valid tenancy upstream checks neither.
    cfg = config(clusters={"matchLabels": {"a": "b"}}, p=purpose("Private", count=3))
    stderr = fails(tmp_path, cfg, "template.spec.tenancy")
    assert "tenancyCount" not in stderr and "labels" not in stderr


def test_tenancy_count_not_negative(tmp_path) -> None:
    fails(
        tmp_path,
        config(p=purpose(count=-1)),
        "scheduler.purposeMappings[p].tenancyCount: Invalid value: -1: "
        "tenancyCount must be greater than or equal to 0",
    )


def test_exclusive_needs_tenancy_count_zero(tmp_path) -> None:
    fails(
        tmp_path,
        config(mcp=purpose("Exclusive", count=2)),
        "scheduler.purposeMappings[mcp].tenancyCount: Invalid value: 2: "
        "tenancyCount must be 0 if the template specifies 'Exclusive' tenancy",
    )
    assert solve_cli(tmp_path, HUB, config=config(mcp=purpose("Exclusive", count=0))).exit_code == 0


def test_template_labels_must_match_the_global_selector(tmp_path) -> None:
    cfg = config(clusters={"matchLabels": {"landscape": "live"}}, p=purpose(labels={"landscape": "dev"}))
    fails(
        tmp_path,
        cfg,
        "scheduler.purposeMappings[p].template.metadata.labels",
        "labels do not match specified global cluster selector",
    )
    ok = config(clusters={"matchLabels": {"landscape": "live"}}, p=purpose(labels={"landscape": "live"}))
    assert solve_cli(tmp_path, HUB, config=ok).exit_code == 0


def test_template_labels_must_match_the_purpose_selector(tmp_path) -> None:
    selector = {"matchExpressions": [{"key": "pool", "operator": "In", "values": ["a", "b"]}]}
    fails(
        tmp_path,
        config(p=purpose(selector=selector, labels={"pool": "c"})),
        "scheduler.purposeMappings[p].template.metadata.labels",
        "labels do not match specified local cluster selector",
    )


def test_invalid_selectors(tmp_path) -> None:
    bad = {"matchExpressions": [{"key": "a", "operator": "In", "values": []}]}
    fails(
        tmp_path,
        {"scheduler": {"selectors": {"clusters": bad}}},
        "scheduler.selectors.clusters: Invalid value",
    )
    fails(
        tmp_path,
        {"scheduler": {"selectors": {"requests": bad}}},
        "scheduler.selectors.requests: Invalid value",
    )
    fails(tmp_path, config(p=purpose(selector=bad)), "scheduler.purposeMappings[p].selector: Invalid value")


def test_empty_purpose_and_null_definition(tmp_path) -> None:
    fails(tmp_path, {"scheduler": {"purposeMappings": {"": purpose()}}}, "purpose must not be empty")
    fails(
        tmp_path,
        {"scheduler": {"purposeMappings": {"p": None}}},
        "scheduler.purposeMappings[p]: Required value: definition must not be nil",
    )


def test_errors_are_aggregated(tmp_path) -> None:
    cfg = config(scope="Global", a=purpose(profile=None), b=purpose("Exclusive", count=1))
    stderr = fails(tmp_path, cfg, "3 errors", "scheduler.scope", "purposeMappings[a]", "purposeMappings[b]")
    assert stderr.count("\n") == 1  # one line


def test_wrong_types_name_the_field(tmp_path) -> None:
    fails(tmp_path, {"scheduler": {"scope": 3}}, "scheduler.scope", "expected a string")
    fails(tmp_path, config(p={"tenancyCount": "two", **purpose()}), "purposeMappings[p].tenancyCount")
    fails(tmp_path, config(p={"template": []}), "purposeMappings[p].template", "expected an object")
    fails(tmp_path, {"scheduler": []}, "scheduler", "expected an object")


def test_bad_files(tmp_path) -> None:
    hub = write_yaml(tmp_path / "hub.yaml", HUB)
    missing = CliRunner().invoke(
        main, ["solve", "-f", hub, "--now", NOW, "--config", str(tmp_path / "nope.yaml")]
    )
    assert missing.exit_code == 2 and "no such file" in missing.stderr
    (tmp_path / "bad.yaml").write_text("scheduler: [unclosed\n", encoding="utf-8")
    bad = CliRunner().invoke(main, ["solve", "-f", hub, "--now", NOW, "--config", str(tmp_path / "bad.yaml")])
    assert bad.exit_code == 2 and "bad.yaml" in bad.stderr and "not valid YAML" in bad.stderr
    (tmp_path / "list.yaml").write_text("- 1\n", encoding="utf-8")
    listed = CliRunner().invoke(
        main, ["solve", "-f", hub, "--now", NOW, "--config", str(tmp_path / "list.yaml")]
    )
    assert listed.exit_code == 2 and "must be an object" in listed.stderr


def test_a_bad_config_fails_even_without_openmcp_objects(tmp_path) -> None:
    result = solve_cli(tmp_path, [], config={"scheduler": {"scope": "Global"}})
    assert result.exit_code == 2 and "scheduler.scope" in result.stderr


# ------------------------------------------------------------------------------------------- merging


@pytest.mark.parametrize("mode", MODES)
def test_later_files_override(tmp_path, mode) -> None:
    hub = [cluster("foo", "c1", "p"), cluster("other", "c2", "p"), request("foo", "a", "p")]
    base = config(scope="Cluster", strategy="Simple", p=purpose(count=2))
    # The override narrows the scope; a later empty value (strategy "") changes nothing.
    override = {
        "scheduler": {"scope": "Namespaced", "strategy": "", "purposeMappings": {"p": {"tenancyCount": 1}}}
    }
    written = Written.solve(tmp_path, hub, [base, override], mode)
    assert written.granted("foo/a") == "foo/c1"
    merged = parse_config(merge_documents([base, override]))
    assert (merged.scope, merged.strategy, merged.purposes["p"].tenancy_count) == ("Namespaced", "Simple", 1)
    assert merged.purposes["p"].template.spec["profile"] == "test-profile"  # deep merge kept it


def test_merge_is_deep_and_empty_values_do_not_override() -> None:
    merged = merge_documents(
        [
            {
                "scheduler": {
                    "purposeMappings": {"a": {"tenancyCount": 5, "template": {"spec": {"profile": "x"}}}}
                }
            },
            {"scheduler": {"purposeMappings": {"a": {"tenancyCount": 0}, "b": {"tenancyCount": 1}}}},
            {
                "scheduler": {
                    "scope": None,
                    "purposeMappings": {"a": {"template": {"spec": {"tenancy": "Shared"}}}},
                }
            },
        ]
    )
    assert merged == {
        "scheduler": {
            "purposeMappings": {
                "a": {"tenancyCount": 5, "template": {"spec": {"profile": "x", "tenancy": "Shared"}}},
                "b": {"tenancyCount": 1},
            },
            "scope": None,
        }
    }


def test_config_directory(tmp_path) -> None:
    directory = tmp_path / "conf"
    directory.mkdir()
    write_yaml(directory / "1-base.yaml", [config(p=purpose(count=2))])
    write_yaml(directory / "2-more.yaml", [{"scheduler": {"strategy": "Simple"}}])
    (directory / "notes.txt").write_text("not a config", encoding="utf-8")
    hub = write_yaml(tmp_path / "hub.yaml", HUB)
    result = CliRunner().invoke(main, ["solve", "-f", hub, "--now", NOW, "--config", str(directory)])
    assert result.exit_code == 0, result.output
    assert "phase: Granted" in result.stdout


# ---------------------------------------------------------------------------------------- completion


def test_completion_global_wins_and_expressions_local_first() -> None:
    local = LabelSelector((("a", "local"), ("b", "x")), (LabelRequirement("l", LabelOperator.EXISTS),))
    common = LabelSelector((("a", "global"),), (LabelRequirement("g", LabelOperator.DOES_NOT_EXIST),))
    combined = combine(local, common)
    assert combined.match_labels == (("a", "global"), ("b", "x"))
    assert [r.key for r in combined.match_expressions] == ["l", "g"]
    assert combine(None, common) is common and combine(local, None) is local and combine(None, None) is None


@pytest.mark.parametrize("mode", MODES)
def test_completed_selector_filters_candidates(tmp_path, mode) -> None:
    # Global: landscape=live; purpose p: pool=a. Only c-ok passes both.
    cfg = config(
        clusters={"matchLabels": {"landscape": "live"}},
        p=purpose(
            count=5, selector={"matchLabels": {"pool": "a"}}, labels={"landscape": "live", "pool": "a"}
        ),
    )
    hub = [
        cluster("ns", "c-dev", "p", labels={"landscape": "dev", "pool": "a"}),
        cluster(
            "ns",
            "c-ok",
            "p",
            labels={"landscape": "live", "pool": "a"},
            finalizers=["request.clusters.openmcp.cloud/x"],
        ),
        cluster("ns", "c-pool-b", "p", labels={"landscape": "live", "pool": "b"}),
        request("ns", "r", "p"),
    ]
    assert Written.solve(tmp_path, hub, cfg, mode).granted("ns/r") == "ns/c-ok"

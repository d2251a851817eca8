"""The table's difference section for tenancy placements: what optimal gained, in words."""

from click.testing import CliRunner

from adapters.cli.main import main


def test_demo_says_optimal_joins_an_existing_cluster_where_greedy_created_one():
    out = CliRunner().invoke(main, ["demo", "--system", "openmcp"])
    assert out.exit_code == 0, out.output
    assert "joins an existing cluster where greedy created" in out.output
    assert "the batch creates 1 new cluster, greedy 2" in out.output
    assert "as good on every level" not in out.output


def test_kcp_demo_spreads_the_evicted_namespaces_and_says_so():
    out = CliRunner().invoke(main, ["demo", "--system", "kcp"])
    assert out.exit_code == 0, out.output
    assert "released" in out.output  # the evicting cluster's namespaces move: forced
    assert "the busiest cluster holds 2 (greedy 3); no new clusters in either mode" in out.output

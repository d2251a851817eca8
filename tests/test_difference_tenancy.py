"""The table's difference section for tenancy placements: what optimal gained, in words."""

from click.testing import CliRunner

from adapters.cli import main


def test_demo_says_optimal_joins_an_existing_cluster_where_greedy_created_one():
    out = CliRunner().invoke(main, ["demo", "--system", "openmcp"])
    assert out.exit_code == 0, out.output
    assert "joins an existing cluster where greedy created" in out.output
    assert "the batch creates 1 new cluster, greedy 2" in out.output
    assert "as good on every level" not in out.output

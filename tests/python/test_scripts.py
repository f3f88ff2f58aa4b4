"""scripts/plot_diagnostics.py (units of the run), scripts/test_summary.py
(skip reasons and the closing line of the test command) and
scripts/golden_merge.py (what a recording may replace)."""

import importlib.util

import pytest

import orrery
from package_helpers import REPO, run_cli


def script(name):
    spec = importlib.util.spec_from_file_location(name, REPO / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_plot_diagnostics_shows_a_physical_run_in_gyr_and_kpc(tmp_path):
    pytest.importorskip("matplotlib")
    run_cli("run", "examples/hernquist_halo.toml", "--set", "initial_conditions.count=200", "--set", "integration.t_end=0.0078125",
            "--set", "output.snapshot_interval=0.0078125", "--set", f"output.directory={tmp_path / 'halo'}", cwd=REPO)
    run_cli("run", "--set", "initial_conditions.count=50", "--set", "integration.t_end=0.0625",
            "--set", f"output.directory={tmp_path / 'henon'}")
    plot = script("plot_diagnostics")
    t, t_label, r, r_label = plot.run_units(str(tmp_path / "halo" / "diagnostics.csv"), "auto")
    assert (t_label, r_label) == ("time (Gyr)", "Lagrangian radius (kpc)")
    assert t == pytest.approx(orrery.Units("physical").time_gyr, rel=1e-12) and r == 1.0
    assert plot.run_units(str(tmp_path / "henon" / "diagnostics.csv"), "auto")[1] == "time (code units)"
    out = tmp_path / "d.png"
    plot.main([str(tmp_path / "halo" / "diagnostics.csv"), "-o", str(out)])
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_summary_gives_each_skip_reason_and_one_closing_line(tmp_path, capsys):
    log = tmp_path / "LastTest.log"
    log.write_text(
        "1/3 Testing: A.Runs\n1/3 Test: A.Runs\nOutput:\n[ OK ]\n<end of output>\nTest Passed.\n"
        "2/3 Testing: Gpu.Direct\nOutput:\nx.cu:9: Skipped\nno CUDA device\n[  SKIPPED ] Gpu.Direct\n"
        "<end of output>\nTest Pass Reason:\nSkip regular expression found in output.\n"
        "3/3 Testing: B.Fails\nOutput:\nboom\n<end of output>\nTest Failed.\n")
    xml = tmp_path / "py.xml"
    xml.write_text('<testsuites><testsuite><testcase name="a"/><testcase name="b">'
                   '<skipped message="tests/x.py:3: no GPU here"/></testcase></testsuite></testsuites>')
    summary = script("test_summary")
    assert summary.main(["--ctest", str(log), "--pytest", str(xml)]) == 1
    out = capsys.readouterr().out
    assert "   1  no CUDA device" in out and "   1  no GPU here" in out
    assert out.splitlines()[-1] == ("tests: C++ 3 (1 passed, 1 skipped, 1 failed); "
                                    "Python 2 (1 passed, 1 skipped, 0 failed): FAILED")
    # The pip install suite, when asked for, is one more part; missing, it did not run.
    assert summary.main(["--ctest", str(log), "--pytest", str(xml), "--pip", str(xml)]) == 1
    assert capsys.readouterr().out.splitlines()[-1].endswith("; pip install 2 (1 passed, 1 skipped, 0 failed): FAILED")
    assert summary.main(["--ctest", str(log), "--pytest", str(xml), "--pip", str(tmp_path / "none.xml")]) == 1
    assert "pip install: did not run" in capsys.readouterr().out
    assert summary.main(["--pytest", str(xml)]) == 1  # the C++ part did not run: not a pass
    assert capsys.readouterr().out.splitlines()[-1].startswith("tests: C++: did not run; Python 2")


def test_golden_merge_replaces_a_coherent_cases_visits_and_nothing_else(tmp_path, capsys):
    merge = script("golden_merge")
    name = "plummer/tree/cuda/coherent/exact/monopole/geometric"
    fields = "ax=01 ay=02 az=03 pot=04 counts={c} totals={v}/95/59 sample=0x1p-4,0x1p-1,0x1p+0"
    golden = tmp_path / "golden.txt"
    golden.write_text("# header\ninput=aa " + name + " " + fields.format(c="c1", v=158) + "\n")
    visits = tmp_path / "visits.txt"
    visits.write_text("input=aa " + name + " " + fields.format(c="c2", v=152) + "\n")
    assert merge.main(str(golden), str(visits)) == 1, "without --replace-visits any difference is refused"
    assert "c1" in golden.read_text()
    assert merge.main(str(golden), str(visits), replace_visits=True) == 0
    assert golden.read_text() == "# header\ninput=aa " + name + " " + fields.format(c="c2", v=152) + "\n"
    assert "visits 158 -> 152" in capsys.readouterr().out
    # A force, an interaction total or an independent walk's visits: refused, the file kept.
    for case, line in [(name, fields.format(c="c3", v=150).replace("ax=01", "ax=09")),
                       (name, fields.format(c="c3", v=150).replace("/95/", "/96/")),
                       (name.replace("coherent", "independent"), fields.format(c="c3", v=150))]:
        golden.write_text("input=aa " + case + " " + fields.format(c="c2", v=152) + "\n")
        kept = golden.read_text()
        visits.write_text("input=aa " + case + " " + line + "\n")
        assert merge.main(str(golden), str(visits), replace_visits=True) == 1, line
        assert golden.read_text() == kept


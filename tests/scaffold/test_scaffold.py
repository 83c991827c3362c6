"""perfguard init: project detection, rendered config and workflow, and safe writing."""

from __future__ import annotations

import re
import textwrap
from fnmatch import fnmatchcase
from pathlib import Path

import pytest
import yaml

from guard.checking.expectation import parse_expectation
from guard.config import load_config, parse_range
from guard.errors import UsageError
from guard.scaffold import (
    CONFIG_PATH,
    WORKFLOW_PATH,
    InitFile,
    Parameter,
    ProjectKind,
    detect_project,
    render_init,
    render_project,
    write_init,
)

ROOT = Path(__file__).resolve().parents[2]

# Every project file below would leave a marker and stop if it were ever imported or run.
TRAP = """
import pathlib
pathlib.Path(__file__).with_suffix(".ran").write_text("executed")
raise SystemExit("perfguard init must never run project code")
"""

PYTEST_PROJECT = {
    "pyproject.toml": """
        [project]
        name = "demo"
        version = "0.1"
        # pytest-benchmark is only an optional dependency here
        [project.optional-dependencies]
        bench = ["pytest>=8", "pytest-benchmark[histogram]>=4.0"]
        """,
    "tests/test_perf.py": TRAP
    + """
import pytest

SIZES = [2**k for k in range(8, 17)]

@pytest.mark.parametrize("n", SIZES)
def test_sort(benchmark, n):
    benchmark(sorted, list(range(n)))

@pytest.mark.parametrize("n", [1000, 2000, 4000, 8000, 16000])
@pytest.mark.parametrize("kind", ["list", "set"])
def test_build(benchmark, n, kind):
    pass

class TestSearch:
    @pytest.mark.parametrize("n", [pytest.param(1024, id="small"), 2048, 4096, 8192, 16384])
    def test_bisect(self, benchmark, n):
        pass

def test_flat(benchmark):
    pass

def test_unrelated(tmp_path):
    pass
""",
    "tests/test_plain.py": "def test_nothing():\n    assert True\n",
}

ASV_PROJECT = {
    "asv.conf.json": """
        {
            // The version of the config file format. Do not change.
            "version": 1,
            "project": "demo",
            "repo": "https://example.org/demo.git", // a URL keeps its "//"
            /* a block comment */
            "benchmark_dir": "perf",
        }
        """,
    "perf/__init__.py": "",
    "perf/bench_sort.py": TRAP
    + """
import random

class TimeSort:
    params = [[100, 1000, 10000, 100000, 1000000], ["list", "array"]]
    param_names = ["n", "kind"]

    def setup(self, n, kind):
        self.data = [random.random() for _ in range(n)]

    def time_sort(self, n, kind):
        sorted(self.data)

    def peakmem_sort(self, n, kind):
        sorted(self.data)

def time_sum(size):
    sum(range(size))

time_sum.params = [10**k for k in range(2, 7)]
time_sum.param_names = ["size"]

def time_flat():
    pass
""",
}

PLAIN_PROJECT = {
    "README.md": "# demo\n",
    "src/demo/__init__.py": TRAP,
    "tests/test_demo.py": "def test_demo():\n    assert True\n",
}

PROJECTS = {"plain": PLAIN_PROJECT, "pytest-benchmark": PYTEST_PROJECT, "asv": ASV_PROJECT}


def make(root: Path, files: dict[str, str]) -> Path:
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return root


def rendered(files: list[InitFile]) -> dict[str, str]:
    return {str(f.path): f.text for f in files}


def no_code_ran(root: Path) -> bool:
    return not list(root.rglob("*.ran"))


def expectation_parameters(project: ProjectKind) -> set[str]:
    names = {p.name for b in project.benchmarks for p in b.numeric()}
    return names or {"n"}


# ---------------------------------------------------------------- detection


def test_plain_project(tmp_path: Path) -> None:
    project = detect_project(make(tmp_path, PLAIN_PROJECT))
    assert project.kind == "plain"
    assert project.benchmarks == ()
    assert project.describe() == "a project without pytest-benchmark or asv benchmarks"
    assert no_code_ran(tmp_path)


def test_pytest_benchmark_tests_are_found_with_their_parametrization(tmp_path: Path) -> None:
    project = detect_project(make(tmp_path, PYTEST_PROJECT))
    assert project.kind == "pytest-benchmark"
    assert "pyproject.toml lists pytest-benchmark" in project.evidence
    assert project.describe().startswith("a pytest-benchmark project (pyproject.toml lists")
    assert any("tests/test_perf.py" in e for e in project.evidence)
    by_name = {b.name: b for b in project.benchmarks}
    assert list(by_name) == ["test_sort", "test_build", "test_bisect", "test_flat"]
    assert by_name["test_sort"].parameters == (Parameter("n", tuple(2**k for k in range(8, 17))),)
    assert by_name["test_sort"].path == "tests/test_perf.py"
    assert by_name["test_build"].parameters == (
        Parameter("n", (1000, 2000, 4000, 8000, 16000)),
        Parameter("kind", ("list", "set")),
    )
    assert by_name["test_bisect"].parameters == (Parameter("n", (1024, 2048, 4096, 8192, 16384)),)
    assert by_name["test_flat"].parameters == ()
    assert any("test_flat" in note and "numeric parameter" in note for note in project.notes)
    assert project.installable
    assert no_code_ran(tmp_path)


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("pyproject.toml", '[project]\nname = "x"\ndependencies = ["pytest_benchmark>=4"]\n'),
        (
            "pyproject.toml",
            '[tool.poetry.group.dev.dependencies]\n"pytest-benchmark" = "^4.0"\n',
        ),
        ("pyproject.toml", 'not [valid toml\ndeps = ["pytest-benchmark"]\n'),
        ("setup.cfg", "[options.extras_require]\ntest =\n    pytest\n    pytest-benchmark>=4\n"),
        (
            "setup.py",
            "from setuptools import setup\n"
            + TRAP
            + "\nsetup(tests_require=['pytest-benchmark'])\n",
        ),
        ("requirements-dev.txt", "pytest>=8\nPytest.Benchmark==4.0.0  # timing\n"),
        ("requirements/test.txt", "pytest-benchmark\n"),
    ],
)
def test_pytest_benchmark_dependency_is_found(tmp_path: Path, name: str, text: str) -> None:
    make(tmp_path, {name: text})
    project = detect_project(tmp_path)
    assert project.kind == "pytest-benchmark"
    assert project.evidence == (f"{name} lists pytest-benchmark",)
    assert no_code_ran(tmp_path)


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("requirements.txt", "pytest\n# pytest-benchmark, maybe later\n"),
        ("pyproject.toml", '[project]\nname = "x"\n# dependencies = ["pytest-benchmark"]\n'),
        ("requirements.txt", "pytest-benchmarkish\n"),
        ("tests/test_x.py", "def test_x(benchmark_data):\n    pass\n"),
    ],
)
def test_mentions_that_are_not_dependencies_do_not_count(
    tmp_path: Path, name: str, text: str
) -> None:
    make(tmp_path, {name: text})
    assert detect_project(tmp_path).kind == "plain"


def test_virtualenvs_and_hidden_folders_are_not_scanned(tmp_path: Path) -> None:
    test = "def test_x(benchmark):\n    pass\n"
    make(
        tmp_path,
        {
            ".venv/lib/test_vendor.py": test,
            "myenv/pyvenv.cfg": "home = /usr\n",
            "myenv/lib/test_vendor.py": test,
            "node_modules/pkg/test_vendor.py": test,
        },
    )
    assert detect_project(tmp_path).kind == "plain"


def test_a_test_file_that_is_not_python_is_noted_not_fatal(tmp_path: Path) -> None:
    make(
        tmp_path,
        {
            "tests/test_broken.py": "def test_x(benchmark:\n",
            "tests/test_ok.py": "def test_y(benchmark):\n    pass\n",
        },
    )
    project = detect_project(tmp_path)
    assert [b.name for b in project.benchmarks] == ["test_y"]
    assert any("test_broken.py" in note for note in project.notes)


@pytest.mark.parametrize(
    ("expression", "values"),
    [
        ("[2**k for k in range(8, 11)]", (256, 512, 1024)),
        ("list(range(100, 400, 100))", (100, 200, 300)),
        ("(10**3, 2 * 10**3, -(-4000))", (1000, 2000, 4000)),
        ("[pytest.param(1, id='one'), 2.5]", (1, 2.5)),
        ("SIZES", (8, 16)),
        ("UNKNOWN", ()),
        ("[f(k) for k in range(3)]", ()),
        ("[2**10**10]", ()),
        ("[1 / 0]", ()),
    ],
)
def test_literal_sizes(tmp_path: Path, expression: str, values: tuple[object, ...]) -> None:
    source = (
        f"import pytest\nSIZES = [8, 16]\n"
        f'@pytest.mark.parametrize("n", {expression})\n'
        "def test_x(benchmark, n):\n    pass\n"
    )
    make(tmp_path, {"test_sizes.py": source})
    (bench,) = detect_project(tmp_path).benchmarks
    assert bench.parameters == (Parameter("n", values),)


def test_asv_project_with_commented_config(tmp_path: Path) -> None:
    project = detect_project(make(tmp_path, ASV_PROJECT))
    assert project.kind == "asv"
    assert project.describe().startswith("an asv project (")
    assert project.benchmark_dir == "perf"
    by_name = {b.name: b for b in project.benchmarks}
    assert set(by_name) == {
        "bench_sort.TimeSort.time_sort",
        "bench_sort.TimeSort.peakmem_sort",
        "bench_sort.time_sum",
        "bench_sort.time_flat",
    }
    sort = by_name["bench_sort.TimeSort.time_sort"]
    assert sort.parameters == (
        Parameter("n", (100, 1000, 10000, 100000, 1000000)),
        Parameter("kind", ("list", "array")),
    )
    assert (sort.module, sort.call, sort.setup, sort.metric) == (
        "perf.bench_sort",
        "TimeSort.time_sort",
        True,
        "time",
    )
    assert by_name["bench_sort.TimeSort.peakmem_sort"].metric == "memory"
    assert by_name["bench_sort.time_sum"].parameters == (
        Parameter("size", (100, 1000, 10000, 100000, 1000000)),
    )
    assert by_name["bench_sort.time_flat"].parameters == ()
    assert any("time_flat" in note for note in project.notes)
    assert no_code_ran(tmp_path)


def test_asv_defaults_and_broken_config(tmp_path: Path) -> None:
    make(
        tmp_path,
        {
            "asv.conf.json": '{"version": 1,, }',
            "benchmarks/bench.py": "class Suite:\n    params = [1, 2]\n    def time_x(self, p):\n"
            "        pass\n",
        },
    )
    project = detect_project(tmp_path)
    assert project.kind == "asv"
    assert project.benchmark_dir == "benchmarks"
    assert any("not valid JSON" in note for note in project.notes)
    (bench,) = project.benchmarks
    assert bench.name == "bench.Suite.time_x"
    assert bench.parameters == (Parameter("param1", (1, 2)),)
    # fewer sizes are modelled (at most inconclusive), not "too few for a model"
    (few,) = [note for note in project.notes if "fewer than 5 sizes" in note]
    assert "time_x" in few and "modelled, but too few to fail a build on" in few


def test_asv_params_that_are_not_literal_keep_their_names(tmp_path: Path) -> None:
    make(
        tmp_path,
        {
            "asv.conf.json": "{}",
            "benchmarks/bench.py": "import numpy\nclass Suite:\n    params = numpy.logspace(2, 6)\n"
            "    param_names = ['n']\n    def time_x(self, n):\n        pass\n",
        },
    )
    project = detect_project(tmp_path)
    (bench,) = project.benchmarks
    assert bench.parameters == (Parameter("n"),)
    assert any("not literal" in note for note in project.notes)
    config = rendered(render_project(project))[str(CONFIG_PATH)]
    assert '"bench.Suite.time_x"' in config


def test_pytest_benchmark_tests_win_over_asv(tmp_path: Path) -> None:
    make(tmp_path, {**ASV_PROJECT, **PYTEST_PROJECT})
    project = detect_project(tmp_path)
    assert project.kind == "pytest-benchmark"
    assert any("asv.conf.json" in note for note in project.notes)


def test_detect_needs_a_folder(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="not a directory"):
        detect_project(tmp_path / "missing")


# ---------------------------------------------------------------- rendered config


@pytest.mark.parametrize("kind", list(PROJECTS))
def test_rendered_config_is_valid_for_every_kind(tmp_path: Path, kind: str) -> None:
    root = make(tmp_path / "project", PROJECTS[kind])
    project = detect_project(root)
    assert project.kind == kind
    files = render_project(project)
    assert [f.path for f in files] == [CONFIG_PATH, WORKFLOW_PATH]
    written = write_init(root, files, force=False)
    config = load_config(written[0])
    assert config.version == 1
    for rule in config.expect:
        parse_expectation(rule.expectation, sorted(expectation_parameters(project)))
    assert no_code_ran(root)


def test_plain_config_has_an_example_benchmark_and_a_ci_budget(tmp_path: Path) -> None:
    root = make(tmp_path, PLAIN_PROJECT)
    write_init(root, render_init(root), force=False)
    config = load_config(root / "perfguard.yml")
    assert dict(config.parameters) == {"n": parse_range("2^8..2^16")}
    assert config.run.budget == 120
    (example,) = config.benchmarks
    assert example.command == "python benchmarks/bench_example.py --n {n}"
    assert example.expect == "<= n log n"
    assert [(r.pattern, r.expectation) for r in config.expect] == [("*", "<= n^2")]
    assert dict(config.check.target) == {"n": 1.0e6}
    text = (root / "perfguard.yml").read_text()
    for key in ("callable:", "metric:", "noise_target", "min_time", "max_slowdown", "strict"):
        assert key in text


def test_pytest_benchmark_config_checks_the_existing_results(tmp_path: Path) -> None:
    root = make(tmp_path, PYTEST_PROJECT)
    text = rendered(render_init(root))[str(CONFIG_PATH)]
    assert "pytest --benchmark-only --benchmark-json=bench.json" in text
    assert "perfguard check bench.json -c perfguard.yml" in text
    path = root / "perfguard.yml"
    path.write_text(text)
    config = load_config(path)
    assert config.benchmarks == () and dict(config.parameters) == {}  # measured by pytest
    assert [(r.pattern, r.expectation) for r in config.expect] == [
        ("test_sort", "<= n^2"),
        ("test_bisect", "<= n^2"),
        ("test_build[[]*", "<= n^2"),
        ("*", "<= n^2"),
    ]
    assert dict(config.check.target) == {"n": 1.0e6}
    # The kernel of test_build[kind=list] (text parameters join the name) has its own rule.
    assert fnmatchcase("test_build[kind=list]", "test_build[[]*")
    assert "test_flat" in text  # the note on the unparametrized test


def test_a_rule_for_text_parameters_names_them_in_its_comment(tmp_path: Path) -> None:
    # the comment read "test_grid[kind=...]" whatever the parameter was called
    files = {
        "pyproject.toml": PYTEST_PROJECT["pyproject.toml"],
        "tests/test_grid.py": """
import pytest

@pytest.mark.parametrize("n", [100, 200, 400, 800, 1600])
@pytest.mark.parametrize("variant", ["list", "tuple"])
def test_grid(benchmark, n, variant):
    pass
""",
    }
    text = rendered(render_init(make(tmp_path, files)))[str(CONFIG_PATH)]
    assert "test_grid[variant=...]" in text and "test_grid[kind=" not in text


def test_pytest_benchmark_without_tests_leaves_rules_to_the_user(tmp_path: Path) -> None:
    make(tmp_path, {"requirements.txt": "pytest-benchmark\n"})
    path = tmp_path / "perfguard.yml"
    path.write_text(rendered(render_init(tmp_path))[str(CONFIG_PATH)])
    config = load_config(path)
    assert config.expect == () and config.check.target == {}


def test_asv_config_suggests_each_parametrized_benchmark(tmp_path: Path) -> None:
    root = make(tmp_path, ASV_PROJECT)
    text = rendered(render_init(root))[str(CONFIG_PATH)]
    path = root / "perfguard.yml"
    path.write_text(text)
    config = load_config(path)
    assert config.benchmarks == ()  # suggestions only, commented out
    # one set of parameters: every benchmark of a config gets every top-level one, so
    # time_sum over `size` beside TimeSort over `n` ran each with the other's keyword
    # (TypeError for all); it is named in a note, for a config of its own
    assert dict(config.parameters) == {"n": (100.0, 1000.0, 10000.0, 100000.0, 1000000.0)}
    assert ("bench_sort.time_sum", "<= size^2") in [
        (r.pattern, r.expectation) for r in config.expect
    ]
    assert '# "bench_sort.TimeSort.time_sort":' in text
    assert '# "bench_sort.time_sum":' not in text  # no benchmark block (its rule stays)
    assert "over other parameters than n, so not suggested" in text
    assert "perf/bench_sort.py" in text
    assert "bench_sort.time_flat" in text  # named in a note, not suggested
    assert '"bench_sort.time_flat":' not in text


def uncomment_suggestions(text: str) -> str:
    """The asv suggestions' YAML lines uncommented (the adapter code stays a comment)."""
    return re.sub(r'(?m)^  # ("[^"]+":|  \w+: .*)$', r"  \1", text)


def test_asv_suggestions_load_when_uncommented(tmp_path: Path) -> None:
    root = make(tmp_path, ASV_PROJECT)
    path = root / "perfguard.yml"
    path.write_text(uncomment_suggestions(rendered(render_init(root))[str(CONFIG_PATH)]))
    config = load_config(path)
    by_name = {b.name: b for b in config.benchmarks}
    assert set(by_name) == {"bench_sort.TimeSort.time_sort", "bench_sort.TimeSort.peakmem_sort"}
    sort = by_name["bench_sort.TimeSort.time_sort"]
    assert sort.callable == "perfguard_asv:bench_sort_TimeSort_time_sort"
    assert dict(sort.parameters) == {"n": (100.0, 1000.0, 10000.0, 100000.0, 1000000.0)}
    assert by_name["bench_sort.TimeSort.peakmem_sort"].metric == "memory"


def test_asv_adapters_are_valid_python(tmp_path: Path) -> None:
    root = make(tmp_path, ASV_PROJECT)
    text = rendered(render_init(root))[str(CONFIG_PATH)]
    blocks = re.findall(r"(?m)^  # with this adapter.*\n((?:  #     .*\n)+)", text)
    assert len(blocks) == 2
    for block in blocks:
        code = "\n".join(line[len("  #     ") :] for line in block.splitlines())
        compile(code, "perfguard_asv.py", "exec")  # compiled, never run
    assert "bench.setup(int(n), 'list')" in text
    assert "return lambda: bench.time_sort(int(n), 'list')" in text
    assert "from perf.bench_sort import time_sum" not in text  # over size: not suggested


def test_render_init_writes_nothing(tmp_path: Path) -> None:
    root = make(tmp_path, PYTEST_PROJECT)
    before = sorted(root.rglob("*"))
    render_init(root)
    assert sorted(root.rglob("*")) == before


def test_templates_ship_in_the_wheel() -> None:
    tomllib = pytest.importorskip("tomllib")
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert setuptools["package-dir"]["guard.templates"] == "templates"
    assert "*" in setuptools["package-data"]["guard.templates"]
    assert (ROOT / "templates" / "perfguard.yml.tmpl").is_file()
    folders = [p for p in (ROOT / "templates").glob("*/") if p.name != "__pycache__"]
    assert not folders  # "*" is flat


# ---------------------------------------------------------------- workflow


def workflow_for(root: Path) -> dict:
    return yaml.safe_load(rendered(render_init(root))[str(WORKFLOW_PATH)])


def step_scripts(workflow: dict) -> str:
    return "\n".join(step.get("run", "") for step in workflow["jobs"]["scalability"]["steps"])


@pytest.mark.parametrize("kind", list(PROJECTS))
def test_workflow_is_pinned_least_privilege_yaml(tmp_path: Path, kind: str) -> None:
    root = make(tmp_path, PROJECTS[kind])
    sha = "0123456789abcdef0123456789abcdef01234567"
    text = rendered(render_project(detect_project(root), "check", sha))[str(WORKFLOW_PATH)]
    workflow = yaml.safe_load(text)
    assert "pull_request" in workflow[True]  # YAML 1.1 reads the key `on` as true
    assert workflow["permissions"] == {"contents": "read"}
    steps = workflow["jobs"]["scalability"]["steps"]
    uses = [step["uses"] for step in steps if "uses" in step]
    assert [u.split("@")[0] for u in uses] == ["actions/checkout", "perfguard/perfguard/setup"]
    assert all(re.fullmatch(r"[\w/-]+@[0-9a-f]{40}", u) for u in uses)
    assert re.search(r"actions/checkout@[0-9a-f]{40} # v4\.\d+\.\d+", text)
    assert f"perfguard/perfguard/setup@{sha} # perfguard's commit" in text
    assert steps[0]["with"]["fetch-depth"] == 0
    scripts = step_scripts(workflow)
    assert "pip install perfguard" not in scripts  # pinned by the setup action, no registry
    assert 'git worktree add --detach "$RUNNER_TEMP/base" "$BASE_SHA"' in scripts
    assert "perfguard check head.json" in scripts
    assert "--baseline base.json" in scripts
    assert "-c perfguard.yml --markdown report.md" in scripts
    assert 'cat report.md >> "$GITHUB_STEP_SUMMARY"' in scripts
    assert 'exit "$status"' in scripts


def test_workflow_runs_perfguard_for_plain_and_asv(tmp_path: Path) -> None:
    for kind in ("plain", "asv"):
        scripts = step_scripts(workflow_for(make(tmp_path / kind, PROJECTS[kind])))
        assert 'perfguard run -c perfguard.yml -o "$OUT"' in scripts
        assert "pytest" not in scripts


def test_workflow_runs_pytest_benchmark_for_its_projects(tmp_path: Path) -> None:
    scripts = step_scripts(workflow_for(make(tmp_path, PYTEST_PROJECT)))
    assert 'python -m pytest --benchmark-only --benchmark-json="$OUT"' in scripts
    assert "perfguard run" not in scripts
    assert "python -m pip install -e . pytest pytest-benchmark" in scripts


# ---------------------------------------------------------------- writing


def test_write_init_writes_both_files(tmp_path: Path) -> None:
    files = [InitFile(CONFIG_PATH, "version: 1\n"), InitFile(WORKFLOW_PATH, "name: x\n")]
    written = write_init(tmp_path, files, force=False)
    assert written == [tmp_path / "perfguard.yml", tmp_path / ".github/workflows/perfguard.yml"]
    assert [p.read_text() for p in written] == ["version: 1\n", "name: x\n"]
    assert sorted(p.name for p in tmp_path.rglob("*") if p.is_file()) == [
        "perfguard.yml",
        "perfguard.yml",
    ]  # no temporary files left behind


def test_write_init_refuses_to_overwrite_and_writes_nothing(tmp_path: Path) -> None:
    workflow = tmp_path / ".github/workflows/perfguard.yml"
    workflow.parent.mkdir(parents=True)
    workflow.write_text("mine\n")
    files = [InitFile(CONFIG_PATH, "version: 1\n"), InitFile(WORKFLOW_PATH, "name: x\n")]
    with pytest.raises(UsageError) as info:
        write_init(tmp_path, files, force=False)
    message = str(info.value)
    assert str(workflow) in message and "pass --force to overwrite" in message
    assert "\n" not in message
    assert not (tmp_path / "perfguard.yml").exists()  # checked before writing any
    assert workflow.read_text() == "mine\n"


def test_write_init_overwrites_with_force(tmp_path: Path) -> None:
    (tmp_path / "perfguard.yml").write_text("old\n")
    files = [InitFile(CONFIG_PATH, "version: 1\n")]
    write_init(tmp_path, files, force=True)
    assert (tmp_path / "perfguard.yml").read_text() == "version: 1\n"


def test_write_init_will_not_replace_a_folder_or_leave_the_root(tmp_path: Path) -> None:
    (tmp_path / "perfguard.yml").mkdir()
    with pytest.raises(UsageError, match="is a directory"):
        write_init(tmp_path, [InitFile(CONFIG_PATH, "version: 1\n")], force=True)
    with pytest.raises(UsageError, match="inside the project folder"):
        write_init(tmp_path, [InitFile(CONFIG_PATH.parent / "../x.yml", "")], force=True)


def test_the_action_reference_is_a_commit_or_an_explained_tag(monkeypatch) -> None:
    from guard import scaffold
    from guard.scaffold import workflows

    sha = "0123456789abcdef0123456789abcdef01234567"
    assert scaffold.action_reference(sha) == f"{sha} # perfguard's commit"
    with pytest.raises(UsageError, match="full 40-hex commit SHA"):
        scaffold.action_reference("v1")
    monkeypatch.setattr(workflows, "_own_commit", lambda: "")
    unpinned = scaffold.action_reference()
    # no inline ignore: a movable tag in a privileged comment job is what zizmor is for
    assert unpinned.startswith("v0 # pin: ") and "zizmor" not in unpinned
    assert "replace v0 with a commit SHA" in unpinned
    monkeypatch.setattr(workflows, "_own_commit", lambda: sha)
    assert scaffold.action_reference() == f"{sha} # perfguard's commit"


def test_init_says_to_pin_a_tag_it_had_to_write(tmp_path: Path, monkeypatch) -> None:
    from guard.app.init import init
    from guard.scaffold import workflows

    monkeypatch.setattr(workflows, "_own_commit", lambda: "")
    make(tmp_path, PROJECTS["plain"])
    outcome = init(tmp_path, "fork-safe")
    (note,) = [n for n in outcome.notes if "perfguard/perfguard@v0" in n]
    assert "pin it to a full commit SHA (--action-ref SHA)" in note
    again = init(
        tmp_path, "fork-safe", action_ref="0123456789abcdef0123456789abcdef01234567", force=True
    )
    assert not [n for n in again.notes if "@v0" in n]


@pytest.mark.parametrize("kind", ["pull-request", "fork-safe"])
def test_init_writes_the_action_workflows(tmp_path: Path, kind: str) -> None:
    sha = "0123456789abcdef0123456789abcdef01234567"
    files = render_project(detect_project(make(tmp_path, PROJECTS["plain"])), kind, sha)
    names = [str(f.path) for f in files]
    expected = {
        "pull-request": [".github/workflows/perfguard.yml"],
        "fork-safe": [
            ".github/workflows/perfguard-measure.yml",
            ".github/workflows/perfguard-comment.yml",
        ],
    }[kind]
    assert names == [str(CONFIG_PATH), *expected]
    for f in files[1:]:
        assert f"perfguard/perfguard@{sha}" in f.text and "@@" not in f.text


def test_init_tells_an_asv_user_to_uncomment_and_write_the_adapters(tmp_path: Path) -> None:
    # "next: replace the placeholder expectations, then commit": committed as told, the
    # workflow's run failed ("no benchmarks: section to run"): the blocks are commented out
    from guard.app.init import init

    asv = init(make(tmp_path / "asv", ASV_PROJECT))
    assert "uncomment the suggested benchmarks" in asv.next_step
    assert "perfguard_asv.py" in asv.next_step
    plain = init(make(tmp_path / "plain", PLAIN_PROJECT))
    assert "uncomment" not in plain.next_step


def test_asv_kinds_perfguard_does_not_measure_are_named(tmp_path: Path) -> None:
    # MemSuite.mem_list and track_value were missing from the count, the rules and the notes
    files = dict(ASV_PROJECT)
    files["perf/bench_more.py"] = """
class MemSuite:
    params = [10, 100, 1000, 10000, 100000]
    def mem_list(self, n):
        return [0] * n

def track_value():
    return 42
"""
    project = detect_project(make(tmp_path, files))
    (note,) = [n for n in project.notes if "mem_*" in n]
    assert "bench_more.MemSuite.mem_list" in note and "bench_more.track_value" in note

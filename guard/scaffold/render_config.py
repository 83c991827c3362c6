"""perfguard.yml for a detected project: sections from the templates, commented where the
project's own tool measures, with placeholder expectations for every benchmark found."""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from .. import defaults
from ..collection.runner import MIN_POINTS
from ..templating import fill
from .project import FoundBenchmark, Parameter, ProjectKind, sized_together
from .yaml_text import comment_block, commented, flow_list, one_line, quoted

__all__ = ["CONFIG_PATH", "render_config"]

CONFIG_PATH = PurePosixPath(defaults.CONFIG_PATH)

_DEFAULT_BUDGET = 120  # seconds: a CI-sized run (the schema's default is 300)


def render_config(project: ProjectKind) -> str:
    """perfguard.yml's text for the project: the templates' sections, filled in for it."""
    param, known = _main_parameter(project)
    about = _about(project)
    if project.notes:
        about += "\n#\n# Notes from perfguard init:\n" + comment_block(project.notes)
    sections = {
        "parameters": fill("section-parameters.tmpl", entries=_parameter_entries(project)),
        "run": fill("section-run.tmpl", budget=_DEFAULT_BUDGET),
        "benchmarks": fill("section-benchmarks.tmpl", entries=_benchmark_entries(project)),
    }
    if project.kind == "pytest-benchmark":  # measured by pytest, not by perfguard run
        sections = {key: commented(text) for key, text in sections.items()}
    text = fill(
        "perfguard.yml.tmpl",
        about=about,
        expect=fill("section-expect.tmpl", rules=_expect_rules(project, param, known)),
        check=fill("section-check.tmpl", param=param, param_known="" if known else "# "),
        **sections,
    )
    return text + "\n"


def _about(project: ProjectKind) -> str:
    if project.kind == "plain":
        return fill("about-plain.tmpl")
    evidence = comment_block(project.evidence)
    return fill(f"about-{project.kind}.tmpl", evidence=evidence)


def _main_parameter(project: ProjectKind) -> tuple[str, bool]:
    """The size parameter to write expectations in, and whether it came from the project."""
    if project.kind == "plain":
        return "n", True
    for bench in project.benchmarks:
        numeric = bench.numeric()
        if numeric:
            return numeric[0].name, True
    return "n", False


def _parameter_entries(project: ProjectKind) -> str:
    """``parameters:`` lines: the detected asv sizes (union per name), else an example range."""
    sizes: dict[str, set[float]] = {}
    for bench in _suggested(project):
        for p in bench.numeric():
            sizes.setdefault(p.name, set()).update(p.sizes or ())
    if not sizes:
        return '  n: "2^8..2^16" # 256, 512, ..., 65536: nine sizes'
    lines = []
    for name, values in sizes.items():
        if len(values) >= MIN_POINTS:
            lines.append(f"  {name}: {flow_list(sorted(values))}")
        elif values:
            lines.append(
                f"  {name}: {flow_list(sorted(values))} # from asv: add sizes, a model needs "
                f"{MIN_POINTS}"
            )
        else:
            lines.append(f'  {name}: "2^8..2^16" # asv\'s values are not literal: set them')
    if len(sizes) > 1:
        lines.insert(0, "  # every benchmark gets every parameter: keep the ones you use")
    return "\n".join(lines)


def _benchmark_entries(project: ProjectKind) -> str:
    if project.kind != "asv":
        return fill("benchmark-example.tmpl")
    suggestions = [_asv_suggestion(b) for b in _suggested(project)]
    if not suggestions:
        return "  # (no parametrized asv benchmark was found: add benchmarks here)"
    return "\n\n".join(suggestions)


def _suggested(project: ProjectKind) -> list[FoundBenchmark]:
    """The asv benchmarks written into the config: those over the parameters most share
    (the others are named in a note: they need a config of their own)."""
    if project.kind != "asv":
        return []
    together = sized_together(project.benchmarks)
    return [
        b
        for b in project.benchmarks
        if b.numeric() and tuple(p.name for p in b.numeric()) == together
    ]


def _asv_suggestion(bench: FoundBenchmark) -> str:
    """One asv benchmark as a commented perfguard benchmark with its adapter."""
    adapter = re.sub(r"\W", "_", bench.name)
    sizes = ", ".join(
        f"{p.name}: {flow_list(p.values) if p.sizes else quoted('2^8..2^16')}"
        for p in bench.numeric()
    )
    what = "method" if "." in bench.call else "function"
    return fill(
        "benchmark-asv.tmpl",
        name=one_line(bench.name),
        what=what,
        where=one_line(f"{bench.path}:{bench.line}"),
        adapter=adapter,
        adapter_code=_adapter_code(bench, adapter),
        metric=bench.metric,
        parameters="{" + sizes + "}",
    )


def _adapter_code(bench: FoundBenchmark, adapter: str) -> str:
    """The adapter to write, as comment lines: perfguard's callable contract around asv's."""
    numeric = [p.name for p in bench.numeric()]
    args = ", ".join(_cast(p) if p.name in numeric else repr(p.values[0]) for p in bench.parameters)
    owner, _, method = bench.call.rpartition(".")
    lines = [f"from {bench.module} import {owner or bench.call}"]
    lines.append(f"def {adapter}({', '.join(numeric)}):")
    if owner:
        lines.append(f"    bench = {owner}()")
        if bench.setup:
            lines.append(f"    bench.setup({args})")
        lines.append(f"    return lambda: bench.{method}({args})")
    else:
        lines.append(f"    return lambda: {bench.call}({args})")
    fixed = [p.name for p in bench.parameters if p.name not in numeric]
    if fixed:
        lines.append(f"# {', '.join(fixed)}: fixed to asv's first value; add a benchmark per value")
    return "\n".join(f"  #     {one_line(line)}" for line in lines)


def _cast(p: Parameter) -> str:
    """perfguard passes sizes as floats; asv's integer values get int() back."""
    integral = bool(p.values) and all(isinstance(v, int) for v in p.values)
    return f"int({p.name})" if integral or not p.values else p.name


def _expect_rules(project: ProjectKind, param: str, known: bool) -> str:
    """``expect:`` lines: a placeholder per detected benchmark, then a catch-all."""
    rules = _placeholder_rules(project)
    lines = ["  # Placeholders: replace each with the class you expect."] if rules else []
    rules.append(("*", f"<= {param}^2", "any other kernel: at worst quadratic"))
    keys = [quoted(pattern) + ":" for pattern, _, _ in rules]
    values = [quoted(expectation) for _, expectation, _ in rules]
    key_width, value_width = max(map(len, keys)), max(map(len, values))
    for key, value, (_, _, comment) in zip(keys, values, rules):
        line = f"  {key:<{key_width}} {value:<{value_width}}  # {comment}"
        lines.append(line if known else commented(line))
    if not known:
        lines.insert(0, "  # No size parameter was found: write yours in these rules.")
    return "\n".join(lines)


def _placeholder_rules(project: ProjectKind) -> list[tuple[str, str, str]]:
    """(glob, expectation, comment) per detected benchmark with a size; exact names first."""
    exact, globs = [], []
    seen = set()
    for bench in project.benchmarks:
        numeric = bench.numeric()
        if not numeric or bench.name in seen:
            continue
        seen.add(bench.name)
        where = one_line(f"{bench.path}:{bench.line}")
        expectation = f"<= {numeric[0].name}^2"
        if project.kind == "pytest-benchmark" and len(numeric) < len(bench.parameters):
            # Text parameters become part of the kernel's name: test_sort[kind=list].
            pattern = f"{bench.name}[[]*"
            labels = ",".join(f"{p.name}=..." for p in bench.parameters if p not in numeric)
            globs.append((pattern, expectation, f"{where}; {bench.name}[{labels}]"))
        else:
            exact.append((bench.name, expectation, where))
    # A longer glob first, so test_sort[[]* cannot take test_sort_fast[...]'s kernels.
    globs.sort(key=lambda rule: -len(rule[0]))
    return exact + globs

"""The layering contract (docs/ARCHITECTURE.md): every import, at module level or inside a function,
goes to the importer's own layer or one below it; the model families do not import each other; no
modules import each other in a circle; the library never imports Streamlit or the app.  And the sizes
issue 29 set: no module over ``MAX_MODULE_LINES`` lines, no page's ``main()`` over ``MAX_MAIN_LINES``.

The imports are read from the source with ``ast`` (nothing is imported), so the contract also covers
code that a test run never reaches.  A failure lists every offending import with its file and line."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

LAYERS = (  # top first: a module may import its own layer and those after it
    ("app", ("app", "app_state", "app_pages", "app_widgets")),
    ("cli", ("ordercore.cli",)),
    ("experiments", ("ordercore.experiments",)),
    ("studio", ("ordercore.studio",)),
    ("knowledge", ("ordercore.knowledge",)),
    ("families", ("ordercore.lp", "ordercore.gp", "ordercore.mpmr", "ordercore.npsvor")),
    ("models", ("ordercore.models",)),
    ("data", ("ordercore.data",)),
    (
        "basics",
        (
            "ordercore.exceptions",
            "ordercore.preferences",
            "ordercore.preference_tables",
            "ordercore.pair_scores",
            "ordercore.numerics",
            "ordercore.inputs",
        ),
    ),
)
"""The layers, each a tuple of module prefixes.  The families are one layer of independent siblings."""

FACADES = ("ordercore", "ordercore.__main__")
"""The package's public names (``from ordercore import ...``) and its ``python -m`` entry: they gather
from every layer, and no module of the library may import them."""

UI_ONLY = ("streamlit", "app", "app_state", "app_pages", "app_widgets")
"""What the library never imports: the UI lives above it."""

MAX_MODULE_LINES = 500
"""No module of the library or the app is longer (a longer one holds two concerns: split it)."""

MAX_MAIN_LINES = 40
"""No page's ``main()`` is longer: a page lays out widgets and calls the engine."""


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def source_files() -> dict[str, Path]:
    paths = [
        *ROOT.glob("ordercore/**/*.py"),
        *ROOT.glob("app_pages/*.py"),
        *ROOT.glob("app_widgets/*.py"),
        ROOT / "app.py",
        ROOT / "app_state.py",
    ]
    return {module_name(path): path for path in paths}


def imports(path: Path, name: str, known: set[str]) -> list[tuple[str, int]]:
    """(imported module, line) for every import in the file, functions included.  ``from a import b``
    names the submodule a.b when there is one, else a; relative imports are resolved from ``name``."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parent, *([base] if base else [])])
            for alias in node.names:
                found.append((f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base, node.lineno))
    return found


def layer_of(module: str) -> int | None:
    for rank, (_, prefixes) in enumerate(LAYERS):
        if any(module == prefix or module.startswith(prefix + ".") for prefix in prefixes):
            return rank
    return None


def family_of(module: str) -> str | None:
    families = dict(LAYERS)["families"]
    return next((f for f in families if module == f or module.startswith(f + ".")), None)


@pytest.fixture(scope="module")
def graph() -> dict[str, list[tuple[str, int]]]:
    files = source_files()
    known = set(files)
    return {name: imports(path, name, known) for name, path in files.items()}


def test_every_module_is_in_a_layer(graph):
    """No module outside the layers but the facades: a new top-level module is a decision (a new
    basic, or a place in a layer), made here."""
    assert sorted(m for m in graph if m not in FACADES and layer_of(m) is None) == []


def test_imports_go_down(graph):
    upward = []
    for module, targets in graph.items():
        if module in FACADES:
            continue
        rank = layer_of(module)
        for target, line in targets:
            if target in FACADES and module.startswith("ordercore"):
                upward.append(f"{module}:{line} imports the facade {target} (import from the module itself)")
            elif layer_of(target) is not None and layer_of(target) < rank:
                upward.append(f"{module}:{line} ({LAYERS[rank][0]}) imports {target} ({LAYERS[layer_of(target)][0]})")
    assert upward == []


def test_the_families_do_not_import_each_other(graph):
    crossing = [
        f"{module}:{line} imports {target}"
        for module, targets in graph.items()
        for target, line in targets
        if family_of(module) and family_of(target) and family_of(module) != family_of(target)
    ]
    assert crossing == []


def test_the_library_never_imports_the_ui(graph):
    found = [
        f"{module}:{line} imports {target}"
        for module, targets in graph.items()
        if module.startswith("ordercore")
        for target, line in targets
        if target.split(".")[0] in UI_ONLY
    ]
    assert found == []


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm), or of one
    module that imports itself."""
    index, low, on_stack, stack, found = {}, {}, set(), [], []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in edges.get(node, ()):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1 or node in edges.get(node, ()):
                found.append(sorted(component))

    for node in list(edges):
        if node not in index:
            visit(node)
    return found


def test_no_import_cycles(graph):
    edges = {
        module: {target for target, _ in targets if target in graph and target not in FACADES}
        for module, targets in graph.items()
        if module not in FACADES
    }
    assert cycles(edges) == []


def test_the_contract_catches_what_it_forbids():
    """The checks themselves, on hand-made cases: an upward import, a cycle, a crossing of families."""
    assert layer_of("ordercore.lp.engine") > layer_of("ordercore.studio.workbench")
    assert layer_of("ordercore.preferences") > layer_of("ordercore.data.tables")
    assert family_of("ordercore.gp.laplace") == "ordercore.gp" and family_of("ordercore.models.files") is None
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []
    assert cycles({"a": {"a"}}) == [["a"]]


def too_long(files: dict[str, Path]) -> list[str]:
    """'module: n lines' for each file over ``MAX_MODULE_LINES``."""
    lengths = {name: len(path.read_text().splitlines()) for name, path in files.items()}
    return [f"{name}: {n} lines" for name, n in sorted(lengths.items()) if n > MAX_MODULE_LINES]


def long_mains(files: dict[str, Path]) -> list[str]:
    """'module: main() n lines' for each ``main`` function over ``MAX_MAIN_LINES``, decorators excluded."""
    found = []
    for name, path in sorted(files.items()):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.FunctionDef) and node.name == "main":
                length = node.end_lineno - node.lineno + 1
                found += [f"{name}: main() {length} lines"] if length > MAX_MAIN_LINES else []
    return found


def test_no_module_is_over_500_lines_and_no_page_main_over_40():
    files = source_files()
    pages = {name: path for name, path in files.items() if name == "app" or name.startswith("app_pages.")}
    assert too_long(files) == [] and long_mains(pages) == []


def test_the_size_checks_catch_what_they_forbid(tmp_path):
    """Hand-made files one line over and at each limit."""
    at, over = tmp_path / "at.py", tmp_path / "over.py"
    at.write_text("x = 1\n" * MAX_MODULE_LINES)
    over.write_text("x = 1\n" * (MAX_MODULE_LINES + 1))
    assert too_long({"at": at, "over": over}) == [f"over: {MAX_MODULE_LINES + 1} lines"]
    body = "def main():\n" + "    x = 1\n" * (MAX_MAIN_LINES - 1)
    at.write_text(body)
    over.write_text(body + "    x = 2\n")
    assert long_mains({"at": at, "over": over}) == [f"over: main() {MAX_MAIN_LINES + 1} lines"]


def drawn_strings(files: dict[str, Path]) -> list[str]:
    """'module:line' of each bare string at a page's top level but its docstring: Streamlit's magic
    draws it on the page (a constant's "attribute docstring" showed above the Model page's title)."""
    found = []
    for name, path in sorted(files.items()):
        body = ast.parse(path.read_text(), str(path)).body
        for node in body[1:]:
            value = node.value if isinstance(node, ast.Expr) else None
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                found.append(f"{name}:{node.lineno}")
    return found


def test_no_page_draws_a_stray_string(tmp_path):
    files = source_files()
    pages = {name: path for name, path in files.items() if name == "app" or name.startswith("app_pages.")}
    assert drawn_strings(pages) == []
    page = tmp_path / "page.py"
    page.write_text('"""The page."""\nX = 1\n"""What X is."""\n')
    assert drawn_strings({"page": page}) == ["page:3"]

"""No import cycle among the SDK's modules, not even one hidden in an import inside a function
(see import_cycles.py, which also runs on its own: ``python3 python/tests/import_cycles.py``)."""

import import_cycles


def test_no_sdk_module_imports_one_that_imports_it_back():
    assert import_cycles.cycles(import_cycles.graph()) == []


def test_the_cycle_finder_finds_cycles_direct_indirect_and_through_lazy_imports(tmp_path):
    package = tmp_path / "sluice"
    package.mkdir()
    (tmp_path / "sieve").mkdir()
    (tmp_path / "sieve" / "__init__.py").write_text("from sluice import gpu\n")
    (package / "__init__.py").write_text("from sluice._a import A\n")
    (package / "gpu.py").write_text("")
    (package / "_a.py").write_text("from sluice._b import B\nA = 1\n")
    (package / "_b.py").write_text("def later():\n    from sluice import _a\n")  # a lazy import is an edge too
    (package / "_c.py").write_text("from . import _d\n")
    (package / "_d.py").write_text("import sluice._c\n")
    (package / "_e.py").write_text("import sluice._a\nfrom ._d import x\n")
    edges = import_cycles.graph(str(tmp_path))
    assert edges["sieve"] == {"sluice", "sluice.gpu"}
    assert edges["sluice._e"] == {"sluice._a", "sluice._d"}
    assert import_cycles.cycles(edges) == [["sluice._a", "sluice._b"], ["sluice._c", "sluice._d"]]

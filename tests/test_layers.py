"""The layers of docs/architecture.md, checked on every import statement of the package."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ENGINE = sorted((ROOT / "tantrix_pi").glob("*.py")) + sorted((ROOT / "tantrix_pi" / "solver").glob("*.py"))
OUTER = ("tantrix_pi.vision", "tantrix_pi.calibration", "tantrix_pi.devices", "tantrix_pi.live", "tantrix_pi.commands")


def imported(path: Path) -> set[str]:
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
            out.update(f"{node.module}.{a.name}" for a in node.names)
    return out


def reaches(path: Path, layers) -> list[str]:
    return sorted(m for m in imported(path) if any(m == p or m.startswith(p + ".") for p in layers))


@pytest.mark.parametrize("path", [p for p in ENGINE if p.name not in ("cli.py", "__main__.py")],
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_the_rules_engine_imports_no_outer_layer(path):
    assert reaches(path, OUTER) == []


@pytest.mark.parametrize("folder, outer", [
    ("tantrix_pi/devices", ("tantrix_pi.vision", "tantrix_pi.calibration", "tantrix_pi.live", "tantrix_pi.commands")),
    ("vision", ("tantrix_pi.live", "tantrix_pi.commands", "tantrix_pi.devices")),
    ("calibration", ("tantrix_pi.live", "tantrix_pi.commands")),
])
def test_vision_calibration_and_devices_never_import_the_referee_or_the_command_line(folder, outer):
    found = {str(p.relative_to(ROOT)): reaches(p, outer) for p in sorted((ROOT / folder).glob("*.py"))}
    assert {k: v for k, v in found.items() if v} == {}


def test_the_simulator_draws_with_the_engine_alone():
    found = {str(p.relative_to(ROOT)): reaches(p, OUTER) for p in sorted((ROOT / "tantrix_pi/simulator").glob("*.py"))}
    assert found and {k: v for k, v in found.items() if v} == {}


def test_the_web_page_is_an_edge_of_the_referee_that_the_referee_never_imports():
    found = {str(p.relative_to(ROOT)): reaches(p, ("tantrix_pi.commands",))
             for p in sorted((ROOT / "tantrix_pi/web").glob("*.py"))}
    assert found and {k: v for k, v in found.items() if v} == {}
    found = {str(p.relative_to(ROOT)): reaches(p, ("tantrix_pi.web",))
             for p in sorted((ROOT / "tantrix_pi/live").glob("*.py"))}
    assert {k: v for k, v in found.items() if v} == {}

"""pyproject.toml installs every package of the source tree, vision/ and calibration/ inside tantrix_pi."""

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _setuptools() -> dict:
    with open(ROOT / "pyproject.toml", "rb") as f:
        return tomllib.load(f)["tool"]["setuptools"]


def test_every_package_folder_is_installed_under_its_mapped_name():
    cfg = _setuptools()
    mapped = cfg["package-dir"]

    def folder(name: str) -> Path:
        # a package lives in its nearest mapped parent's folder (setuptools' package-dir), else by its name
        parts = name.split(".")
        for i in range(len(parts), 0, -1):
            if ".".join(parts[:i]) in mapped:
                return Path(mapped[".".join(parts[:i])], *parts[i:])
        return Path(*parts)

    folder_of = {name: folder(name) for name in cfg["packages"]}
    installed = {f: name for name, f in folder_of.items()}
    for top in ("tantrix_pi", "vision", "calibration"):
        for init in (ROOT / top).rglob("__init__.py"):
            folder = init.parent.relative_to(ROOT)
            assert folder in installed, f"{folder}/ is a package that pyproject.toml does not install"
    assert installed[Path("vision")] == "tantrix_pi.vision"
    assert installed[Path("calibration")] == "tantrix_pi.calibration"
    missing = [name for name, folder in folder_of.items() if not (ROOT / folder / "__init__.py").exists()]
    assert not missing, f"pyproject.toml lists packages that do not exist: {missing}"


def test_the_mapped_packages_are_imported_from_their_folders():
    import tantrix_pi.calibration
    import tantrix_pi.vision

    assert Path(tantrix_pi.vision.__file__).parent.name == "vision"
    assert Path(tantrix_pi.calibration.__file__).parent.name == "calibration"

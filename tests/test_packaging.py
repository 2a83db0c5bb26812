"""pyproject.toml installs every package of the source tree, vision/ and calibration/ inside tantrix_pi."""

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _setuptools() -> dict:
    with open(ROOT / "pyproject.toml", "rb") as f:
        return tomllib.load(f)["tool"]["setuptools"]


def test_every_package_folder_is_installed_under_its_mapped_name():
    cfg = _setuptools()
    folder_of = {name: Path(*name.split(".")) for name in cfg["packages"]}
    folder_of.update({name: Path(folder) for name, folder in cfg["package-dir"].items()})
    installed = {folder: name for name, folder in folder_of.items()}
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

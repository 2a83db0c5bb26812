"""Calibration: camera intrinsics (ChArUco), the table plane and colour prototypes, in one profile file."""

from calibration.profile import Profile, ProfileError, default_path

__all__ = ["Profile", "ProfileError", "default_path"]

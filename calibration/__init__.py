"""Calibration: camera intrinsics (ChArUco), the table plane and colour prototypes, in one profile file."""

from tantrix_pi.calibration.profile import Profile, ProfileError

__all__ = ["Profile", "ProfileError"]

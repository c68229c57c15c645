"""The model of a proving node: its configuration and the costs of its stages."""

from ..errors import ConfigError, ProfileError
from .config import ADMISSIONS, KEY_DOCS, LOCKS, PipelineConfig
from .profile import DEFAULT_PROFILE, Profile, list_profiles, profiles_dir

__all__ = ["PipelineConfig", "Profile", "LOCKS", "ADMISSIONS", "KEY_DOCS",
           "DEFAULT_PROFILE", "list_profiles", "profiles_dir", "ConfigError", "ProfileError"]

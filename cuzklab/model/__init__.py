"""The model of a proving node: its configuration and the costs of its stages."""

from .config import ADMISSIONS, KEY_DOCS, LOCKS, PipelineConfig

__all__ = ["PipelineConfig", "LOCKS", "ADMISSIONS", "KEY_DOCS"]
